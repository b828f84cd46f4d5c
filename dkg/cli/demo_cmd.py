"""`dkg demo`: the main job, run by the README's first command.

Starts the local Neo4j, trains (or reuses) the text-to-Cypher model, builds the three shipped
guidelines from their PDFs (parse → extract → load), shows what a guideline revision is in this
model, indexes the graph for retrieval and answers sample questions with their evidence.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape
from rich.table import Table

from dkg import MEDICAL_DISCLAIMER
from dkg.cli.common import app, cell, console, echo, friendly_errors
from dkg.cli.render import print_answer
from dkg.config import get_settings
from dkg.graph.db import named_queries, open_graph
from dkg.services.neo4j_server import LocalNeo4jServer

if TYPE_CHECKING:
    from dkg.graph.db import Graph


def smoke_round_trip() -> float:
    """Write a node and read it back; return the round-trip time in ms."""
    marker = str(uuid.uuid4())
    start = time.perf_counter()
    with open_graph() as graph:
        graph.apply_schema()
        q = named_queries("cli")
        graph.write(q["smoke_write"], {"id": marker})
        rows = graph.read(q["smoke_read"], {"id": marker})
        graph.write(q["smoke_delete"], {"id": marker})
    if rows != [{"id": marker}]:
        raise RuntimeError(f"smoke test read back {rows!r} instead of the node it wrote")
    return (time.perf_counter() - start) * 1000


def _dim(message: str) -> None:
    console.print(message, style="dim", markup=False, highlight=False)


def _step(title: str) -> float:
    console.rule(f"[bold]{title}")
    return time.perf_counter()


def _onboarded_guidelines(graph: Graph) -> None:
    """Step 7: each recorded review (``datasets/guidelines/<name>/review-<version>.yaml``) replayed on its PDF —
    onboard → review → publish — then its sample questions (``datasets/qa/<name>_questions.jsonl``, the first
    development items) answered by the rule layer, with route and evidence."""
    import tempfile

    from dkg.answering import GragAnswerer, route_answer
    from dkg.cli.onboard_cmd import _reindex as reindex
    from dkg.evaluation.onboarded_qa import load_items, split
    from dkg.graph.drafts_replay import load_review, onboard_reviewed, review_files
    from dkg.qa.service import TextToCypherService
    from dkg.retrieval.grag import Retriever
    from dkg.vocabulary import GUIDELINES_ROOT

    for path in review_files(GUIDELINES_ROOT):
        recorded = load_review(path)
        t = _step(f"7. Onboarding a guideline from its PDF: {recorded.guideline} {recorded.version} "
                  "(onboard → recorded review → publish)")
        with tempfile.TemporaryDirectory(prefix="dkg-onboard-") as work:
            report = onboard_reviewed(graph, path, work=Path(work), echo=_dim)
        reindex(graph)  # publishing refreshes the retrieval index, as `dkg publish` does
        echo(f"draft: {report.boxes} boxes, {report.arrows} arrows; review replayed: {report.actions} audited "
             f"action(s); published: {report.counts['nodes']} nodes, {report.counts['decision']} decision, "
             f"{report.counts['relations']} relations ({time.perf_counter() - t:.0f} s)")
        if not report.matches_shipped:
            console.print("[yellow]note:[/] the published vocabulary differs from the shipped "
                          f"datasets/guidelines/{recorded.guideline}/vocabulary.yaml", highlight=False)
        questions = GUIDELINES_ROOT.parent / "qa" / f"{recorded.guideline.replace('-', '_')}_questions.jsonl"
        if not questions.is_file():
            continue
        dev, _held_out = split(load_items(questions))
        rules = TextToCypherService(graph.settings, graph=graph, rules_only=True)
        # built only when the rule layer has no answer (the index exists in the demo: step 5)
        grag = GragAnswerer(lambda text, k: Retriever(graph).answer(text, k))
        for item in [i for i in dev if i.type in ("next_step", "advise")][:3]:
            console.print(f"\n[bold cyan]Q:[/] {escape(item.question)}", highlight=False)
            start = time.perf_counter()
            result = route_answer(item.question, rules, grag)
            print_answer(console, result.answer, elapsed_ms=(time.perf_counter() - start) * 1000,
                         evidence_limit=3, show_paths=False, show_disclaimer=False)


@app.command()
@friendly_errors
def demo(
    quick_model: bool = typer.Option(False, "--quick-model", help="Train the tiny test model (about 2 minutes) "
                                                                  "instead of the full one."),
    from_sources: bool = typer.Option(False, "--from-sources", help="Build the graph from the YAML sources "
                                                                    "instead of parsing the PDFs."),
) -> None:
    """Run the main job on the configured Neo4j (the local server by default)."""
    begin = time.perf_counter()
    console.print(f"[bold yellow]{MEDICAL_DISCLAIMER}[/]")
    settings = get_settings()

    t = _step("1. Neo4j")
    if settings.uses_local_neo4j:
        echo(LocalNeo4jServer(settings).start().detail)
    console.print(f"smoke test: wrote and read a node in {smoke_round_trip():.0f} ms")

    t = _step("2. Text-to-Cypher model (trained here, reused when its training data is unchanged)")
    from dkg.qa.training import ensure_model

    model_dir = ensure_model(settings, quick=quick_model, on_progress=_dim)
    echo(f"model: {model_dir} ({time.perf_counter() - t:.0f} s)")

    t = _step("3. Build the guidelines: PDF → head–tail edges → constraints → Neo4j")
    from dkg.graph.builder import build, graph_counts

    if from_sources:
        from dkg.corpus.model import discover
        from dkg.graph.sources import input_from_source

        with open_graph() as graph:
            for code, version, _ in discover():
                build(graph, [input_from_source(code, version)])
    else:
        from dkg.pipeline import load_pipeline, run_pipelines, shipped_pipelines

        run_pipelines([load_pipeline(p) for p in shipped_pipelines()], echo=echo)
    with open_graph() as graph:
        table = Table("guideline", "version", "nodes", "decision nodes", "relations")
        for row in graph.read(named_queries("cli")["loaded_versions"]):
            counts = graph_counts(graph, row["g"], row["v"])
            table.add_row(cell(row["g"]), cell(row["v"]), str(counts["nodes"]), str(counts["decision"]),
                          str(counts["relations"]))
        console.print(table)
        console.print(f"built in {time.perf_counter() - t:.0f} s")

        t = _step("4. A guideline revision is a list of constraint SET/REMOVE operations")
        from dkg.corpus.model import discover_changes
        from dkg.graph.revision import Snapshot, diff

        for n, (code, old, new, _) in enumerate(discover_changes()):
            revision = diff(Snapshot.from_graph(graph, code, old), Snapshot.from_graph(graph, code, new))
            echo(f"{code} {old} → {new}: {len(revision.ops)} constraint operation(s) on "
                 f"{len({o.node for o in revision.ops})} decision node(s), "
                 f"{len(revision.structural)} structural difference(s)")
            for op in revision.ops[:3] if n == 0 else []:
                echo(f"   {op.op.upper():11s} {op.value[:60]!r} on {op.content[:50]!r}")

        t = _step("5. Retrieval index: MedQuAD knowledge layer + MiniLM embeddings + vector index")
        from dkg.retrieval.index import build_index
        from dkg.retrieval.knowledge import load_knowledge
        from dkg.retrieval.settings import load_retrieval_settings

        retrieval_settings = load_retrieval_settings()
        knowledge = load_knowledge(graph, retrieval_settings.medquad_dir)
        echo(f"knowledge layer: {knowledge.diseases} diseases, {knowledge.sections} sections")
        report = build_index(graph, home=Path(settings.home), hops=retrieval_settings.hops, on_progress=_dim)
        echo(report.summary())

        t = _step("6. Questions")
        from dkg.answering import hybrid_answer, load_text_to_cypher, sample_retrieval_questions
        from dkg.qa.service import sample_questions
        from dkg.retrieval.grag import Retriever

        retriever = Retriever(graph)
        service, problem = load_text_to_cypher(graph, model_dir=model_dir)
        if problem:
            console.print(f"[yellow]note:[/] {escape(problem)}", highlight=False)
        questions = [(q, False) for q in sample_questions()]
        questions += [(q, False) for q in sample_retrieval_questions()[:3]]
        questions += [(sample_questions()[0], True)]
        for question, explain in questions:
            console.print(f"\n[bold cyan]Q:[/] {escape(question)}"
                          + ("  [dim](--explain: both routes)[/]" if explain else ""), highlight=False)
            start = time.perf_counter()
            result = hybrid_answer(graph, question, explain=explain, retriever=retriever, service=service)
            print_answer(console, result.answer, elapsed_ms=(time.perf_counter() - start) * 1000,
                         evidence_limit=3, show_paths=False, show_disclaimer=False)
        # the trained model does not know an onboarded guideline's keys: its questions go to the rule layer
        _onboarded_guidelines(graph)
    console.rule()
    console.print(f"demo finished in {time.perf_counter() - begin:.0f} s")
    console.print(f"[bold yellow]{MEDICAL_DISCLAIMER}[/]")
