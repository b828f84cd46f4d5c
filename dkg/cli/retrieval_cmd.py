"""`dkg index`, `dkg retrieve` and `dkg eval retrieval`: the GRAG retriever's commands."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from dkg.cli.common import app, cell, console, echo, eval_app, friendly_errors
from dkg.cli.render import print_evidence


@app.command("index")
@friendly_errors
def index_cmd(
    model: str = typer.Option("minilm", "--model", help="Embeddings to build: minilm, lsa, fasttext or all."),
    full: bool = typer.Option(False, "--full",
                              help="Re-embed every node (retraining LSA / fastText), not only the changed ones."),
    hops: int = typer.Option(None, "--hops", min=1, max=3, help="Neighbourhood radius h for g_s (default 2)."),
    knowledge: bool = typer.Option(True, "--knowledge/--no-knowledge",
                                   help="Load/refresh the MedQuAD knowledge layer first."),
    medquad_dir: Path = typer.Option(None, "--medquad-dir", help="Folder of qa.jsonl (DKG_RETRIEVAL_MEDQUAD_DIR)."),
) -> None:
    """Build or refresh the retrieval index: knowledge layer, serialisations, embeddings, vector index.

    Incremental: only nodes whose serialisation changed are re-embedded.
    """
    from dkg.graph.db import open_graph
    from dkg.retrieval.index import MODELS, build_index
    from dkg.retrieval.knowledge import load_knowledge
    from dkg.retrieval.settings import load_retrieval_settings

    overrides: dict[str, object] = {}
    if medquad_dir is not None:
        overrides["medquad_dir"] = medquad_dir
    settings = load_retrieval_settings(**overrides)
    models = MODELS if model == "all" else (model,)
    if any(m not in MODELS for m in models):
        raise typer.BadParameter(f"--model must be {', '.join(MODELS)} or all, not {model!r}")
    with open_graph() as graph:
        if knowledge:
            k = load_knowledge(graph, settings.medquad_dir)
            state = "unchanged" if k.skipped else "loaded"
            echo(f"knowledge layer {state}: {k.diseases} diseases, {k.sections} sections, "
                 f"{k.covers} guideline–disease links, {k.described_in} treatment–section links")
        report = build_index(graph, home=Path(graph.settings.home), models=models, hops=hops or settings.hops,
                             full=full, on_progress=lambda m: console.print(m, style="dim", markup=False))
    echo(report.summary())


@app.command("retrieve")
@friendly_errors
def retrieve_cmd(
    question: str = typer.Argument(..., help="The question or keywords."),
    k: int = typer.Option(10, "-k", "--top-k", min=1, max=100, help="How many results."),
    method: str = typer.Option("grag", "--method",
                               help="grag (with the query-intent term), grag_nointent, vector, vector_exact, bm25 "
                                    "or hybrid."),
    model: str = typer.Option(None, "--model", help="Embedding: minilm (default), lsa or fasttext."),
    alpha: float = typer.Option(None, "--alpha", min=0.0, max=1.0, help="GRAG α (default 0.6)."),
    lam: float = typer.Option(None, "--lambda", min=0.01, max=1.0, help="GRAG λ per hop (default 0.75)."),
    hops: int = typer.Option(None, "--hops", min=0, max=3, help="Hops expanded around each seed (default 2)."),
    intent_weight: float = typer.Option(None, "--intent-weight", min=0.0, max=1.0,
                                        help="β of the query-intent term (default 0.2; 0 = off)."),
    as_json: bool = typer.Option(False, "--json", help="Print the Answer as JSON."),
) -> None:
    """Retrieve graph nodes and knowledge sections for a question, with provenance and evidence."""
    from dkg.graph.db import open_graph
    from dkg.retrieval.grag import Retriever
    from dkg.retrieval.settings import load_retrieval_settings

    overrides = {k_: v for k_, v in {"alpha": alpha, "lam": lam, "hops": hops, "model": model,
                                         "intent_weight": intent_weight}.items() if v is not None}
    with open_graph() as graph:
        retriever = Retriever(graph, load_retrieval_settings(**overrides))
        answer = retriever.answer(question, k, method)  # type: ignore[arg-type]
    if as_json:
        console.print_json(answer.model_dump_json())
        return
    print_evidence(console, answer.evidence)


@eval_app.command("retrieval")
@friendly_errors
def eval_retrieval_cmd(
    sets: str = typer.Option("medquad,paraphrase,heldout,role_traps,dkg", "--sets",
                             help="Question sets, comma-separated."),
    methods: str = typer.Option("bm25,vector,grag_nointent,grag,hybrid", "--methods",
                                help="Methods, comma-separated (grag_nointent: GRAG without the intent term)."),
    k: int = typer.Option(10, "-k", min=1, max=100, help="Ranking depth."),
    model: str = typer.Option(None, "--model", help="Embedding: minilm (default), lsa or fasttext "
                                                      "(DKG_RETRIEVAL_MODEL)."),
    write_questions: bool = typer.Option(False, "--write-questions",
                                         help="Regenerate datasets/retrieval/*.jsonl from the sources first."),
    out: Path = typer.Option(None, "--out", help="Also write the flat summary as JSON here."),
) -> None:
    """Retrieval benchmark: NDCG/P/R@1,5,10, MAP, MRR with 95% bootstrap CIs and BH-corrected Wilcoxon tests.

    Needs a graph with the guideline versions built and `dkg index` run.
    """
    from dkg.evaluation.retrieval_eval import evaluate
    from dkg.graph.db import open_graph
    from dkg.retrieval.grag import Retriever
    from dkg.retrieval.knowledge import load_sections
    from dkg.retrieval.questions import (
        dkg_questions,
        heldout_questions,
        load_set,
        medquad_questions,
        paraphrase_questions,
        role_trap_questions,
        write_sets,
    )
    from dkg.retrieval.settings import load_retrieval_settings

    settings = load_retrieval_settings(**({} if model is None else {"model": model}))
    if write_questions:
        sections = load_sections(settings.medquad_dir)
        counts = write_sets(medquad_questions(sections) + paraphrase_questions(sections) + heldout_questions(sections)
                            + role_trap_questions(sections) + dkg_questions())
        echo(f"wrote question sets: {counts}")
    chosen = {name: load_set(name) for name in sets.split(",") if name}
    method_list = [m for m in methods.split(",") if m]
    with open_graph() as graph:
        result = evaluate(Retriever(graph, settings), chosen, method_list, k,
                          on_progress=lambda m: console.print(m, style="dim", markup=False))
    table = Table(title=f"retrieval benchmark (mean [95% CI], {result.seconds:.0f} s)")
    table.add_column("set")
    table.add_column("method")
    for metric in ("ndcg@1", "ndcg@10", "p@5", "r@10", "map", "mrr"):
        table.add_column(metric)
    s = result.summary
    for name in chosen:
        for m in method_list:
            keys = [f"{name}.{m}.{x}" for x in ("ndcg@1", "ndcg@10", "p@5", "r@10", "map", "mrr")]
            cells = [f"{s[key]:.3f} [{s[key + '.ci_low']:.2f},{s[key + '.ci_high']:.2f}]" for key in keys]
            table.add_row(cell(f"{name} ({s[f'{name}.questions']})"), cell(m), *cells)
    console.print(table)
    tests = Table(title="paired Wilcoxon on NDCG@10, Benjamini–Hochberg corrected")
    for col in ("set", "a", "b", "mean diff (a−b)", "p", "p (BH)"):
        tests.add_column(col)
    for t in result.tests:
        tests.add_row(cell(t["set"]), cell(t["a"]), cell(t["b"]), f"{t['mean_diff']:+.3f}", f"{t['p_value']:.3g}",
                      f"{t['p_bh']:.3g}")
    console.print(tests)
    if out is not None:
        flat = {**s, **{f"{t['set']}.{t['a']}_vs_{t['b']}.p_bh": t["p_bh"] for t in result.tests}}
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(flat, indent=1, sort_keys=True))
        echo(f"wrote {out}")
