"""`dkg ask`: the hybrid answer (text-to-Cypher first, the GRAG retriever otherwise) with its evidence."""

from __future__ import annotations

import json

import typer

from dkg.cli.common import app, console, friendly_errors


@app.command("ask")
@friendly_errors
def ask_cmd(
    question: str = typer.Argument(..., help="A question about the guidelines or the cancers they cover."),
    explain: bool = typer.Option(False, "--explain", help="Run both routes and show what each returned."),
    k: int = typer.Option(5, "-k", min=1, max=50, help="How many retrieved nodes to show."),
    as_json: bool = typer.Option(False, "--json", help="Print the Answer as JSON."),
) -> None:
    """Answer a question: text-to-Cypher when its query validates and returns rows, else GRAG retrieval."""
    from dkg.answering import hybrid_answer
    from dkg.cli.retrieval_cmd import print_evidence
    from dkg.graph.db import open_graph

    with open_graph() as graph:
        result = hybrid_answer(graph, question, explain=explain, k=k)
    answer = result.answer
    if as_json:
        console.print_json(json.dumps({"answer": answer.model_dump(mode="json"), "notes": result.notes}))
        return
    console.print(f"[bold]route:[/] {answer.route}")
    for note in result.notes:
        console.print(f"[yellow]note:[/] {note}")
    if answer.cypher:
        console.print(f"[bold]cypher:[/] {answer.cypher}")
        if answer.cypher_params:
            console.print(f"[bold]params:[/] {json.dumps(answer.cypher_params)}")
    if explain and result.grag_answer is not None and answer.route != "grag":
        console.print("[bold]GRAG retrieved:[/]")
        print_evidence(result.grag_answer.evidence)
    console.print(f"[bold]answer:[/]\n{answer.answer or answer.no_answer_reason}")
    if answer.evidence:
        console.print("[bold]evidence:[/]")
        print_evidence(answer.evidence)
        paths = [e for e in answer.evidence if e.path][:3]
        if paths:
            console.print("[bold]evidence path (root → node; GRAG: seed → node):[/]")
            for e in paths:
                via = f"   (reached from seed {e.seed_uid}, {e.hop} hop(s))" if e.hop else ""
                console.print(f"  {' > '.join(e.path)}{via}")
    console.print(f"[dim]{answer.disclaimer}[/]")
