"""`dkg ask`: the hybrid answer (text-to-Cypher first, the GRAG retriever otherwise) with its evidence."""

from __future__ import annotations

import json

import typer

from dkg.cli.common import app, console, friendly_errors
from dkg.cli.render import print_answer


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
    from dkg.graph.db import open_graph

    with open_graph() as graph:
        result = hybrid_answer(graph, question, explain=explain, k=k)
    answer = result.answer
    if as_json:
        console.print_json(json.dumps({"answer": answer.model_dump(mode="json"), "notes": result.notes}))
        return
    also = result.grag_answer.evidence if explain and result.grag_answer is not None and answer.route != "grag" else []
    print_answer(console, answer, notes=result.notes, also_retrieved=also)
