"""CLI of the question-answering stage: `dkg dataset build`, `dkg train cypher|baseline`, `dkg eval qa`,
`dkg qa ask`."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from dkg.cli.common import app, console, echo, eval_app, friendly_errors
from dkg.config import PROJECT_ROOT, get_settings

if TYPE_CHECKING:
    from dkg.qa.training_update import UpdateOutcome

dataset_app = typer.Typer(help="Build the CPG-QA question-answering dataset.", no_args_is_help=True)
train_app = typer.Typer(help="Train the question-answering models.", no_args_is_help=True)
qa_app = typer.Typer(help="Text-to-Cypher question answering over the DKG.", no_args_is_help=True)
app.add_typer(dataset_app, name="dataset")
app.add_typer(train_app, name="train")
app.add_typer(qa_app, name="qa")

RESULTS = PROJECT_ROOT / "bench" / "results"


def _say(message: str) -> None:
    console.print(f"[dim]{time.strftime('%H:%M:%S')}[/] {escape(message)}", highlight=False)


@dataset_app.command("build")
@friendly_errors
def dataset_build(
    quick: bool = typer.Option(False, help="Small dataset (tests, smoke runs), kept in the data folder."),
    force: bool = typer.Option(False, help="Regenerate even when the inputs are unchanged."),
) -> None:
    """Generate CPG-QA from the guideline graph: every query is run on Neo4j and kept only if it returns the
    expected node. Writes datasets/qa/cpg-qa.json.gz (+ .meta.json)."""
    from collections import Counter

    from dkg.qa.training import ensure_dataset
    items, data_hash = ensure_dataset(get_settings(), quick=quick, on_progress=_say, force=force)
    splits = Counter(i.split for i in items)
    types = Counter(i.question_type.value for i in items)
    echo(f"{len(items)} items (hash {data_hash[:12]}); splits {dict(splits)}; types {dict(types)}")


@train_app.command("cypher")
@friendly_errors
def train_cypher(
    quick: bool = typer.Option(False, help="Tiny model on the quick dataset (about a minute)."),
    force: bool = typer.Option(False, help="Retrain even when a model for the same training data exists."),
    max_minutes: float = typer.Option(12.0, help="Training time budget (early stop when reached)."),
    architecture: str = typer.Option("bart-scratch", help="bart-scratch (default) or minilm-warmstart (encoder "
                                                          "from the shipped all-MiniLM-L6-v2 weights)."),
) -> None:
    """Train the text-to-Cypher seq2seq model (progress, early stopping, best checkpoint in models/)."""
    from dkg.qa.training import ARCHITECTURES, ensure_model
    chosen = next((a for a in ARCHITECTURES if a == architecture), None)
    if chosen is None:
        raise typer.BadParameter(f"unknown architecture {architecture!r}; choose one of {', '.join(ARCHITECTURES)}",
                                 param_hint="--architecture")
    folder = ensure_model(get_settings(), quick=quick, on_progress=_say, force=force, max_minutes=max_minutes,
                          architecture=chosen)
    meta = json.loads((folder / "meta.json").read_text())
    report = meta.get("train_report", {})
    echo(f"model in {folder}: dev exact match {meta.get('dev_exact', 0):.3f}, "
         f"{report.get('seconds', 0) / 60:.1f} min, {report.get('parameters', 0) / 1e6:.1f}M parameters")


@train_app.command("update")
@friendly_errors
def train_update(
    retrain: bool = typer.Option(False, "--retrain", help="Train a new model from scratch instead of fine-tuning."),
    max_minutes: float | None = typer.Option(None, help="Training time budget (default 12 minutes)."),
    out: Path | None = typer.Option(None, help="Candidate model folder (default $DKG_HOME/qa/text2cypher-updated)."),
    install: bool = typer.Option(True, "--install/--no-install",
                                 help="Serve the candidate when it passes the gate (--no-install: only score it)."),
    gate_sample: int = typer.Option(300, min=0, help="CPG-QA dev questions the gate scores (0: all)."),
    who: str | None = typer.Option(None, "--who", help="Recorded in the audit trail (default $DKG_CURATOR or the "
                                                       "user)."),
    candidate: Path | None = typer.Option(None, help="Gate this model folder trained before instead of training "
                                                     "(it is moved when installed)."),
) -> None:
    """Teach the text-to-Cypher model the published guidelines it was not trained on: fine-tune the served model
    on a replayed sample of CPG-QA plus every generated question under $DKG_HOME/qa/generated (written by `dkg
    publish`), then serve it only if CPG-QA dev does not drop and the generated dev improves (audited)."""
    from dkg.qa.model_gate import GateSettings
    from dkg.qa.training_update import update_model
    outcome = update_model(get_settings(), mode="retrain" if retrain else "finetune", max_minutes=max_minutes,
                           folder=out, on_progress=_say, gate=GateSettings(old_dev_sample=gate_sample),
                           install=install, who=who, trained=candidate)
    report_update(outcome)


def report_update(outcome: UpdateOutcome) -> None:
    """What a model update did, for `dkg train update` and `dkg publish --train`."""
    echo(f"model update: trained in {outcome.train_seconds / 60:.1f} min, gated in {outcome.gate_seconds / 60:.1f} "
         f"min; {outcome.reason}")
    if outcome.installed:
        echo(f"the QA service now answers with {outcome.served} (`dkg train rollback` serves the previous one)")
    else:
        echo(f"the QA service still answers with {outcome.served}; the candidate is in {outcome.candidate}")


@train_app.command("served")
@friendly_errors
def train_served() -> None:
    """The text-to-Cypher model the QA service answers with, and the audit trail of model changes."""
    from dkg.qa.served_model import describe, history
    settings = get_settings()
    info = describe(settings)
    echo(f"served: {info['model_dir']} ({info['kind']}; generated questions of: {info['generated_versions']})")
    if info["previous"]:
        echo(f"previous (rollback): {info['previous']}")
    for change in history(settings):
        echo(f"{change.at} {change.who} {change.action}: {change.reason}")


@train_app.command("rollback")
@friendly_errors
def train_rollback(reason: str = typer.Option(..., "--reason", help="Why (kept in the audit trail)."),
                   who: str | None = typer.Option(None, "--who", help="Recorded in the audit trail.")) -> None:
    """Serve the text-to-Cypher model the current one replaced again (audited)."""
    from dkg.qa.served_model import rollback
    change = rollback(get_settings(), reason=reason, who=who)
    echo(f"the QA service now answers with {change.model_dir} (rolled back from {change.candidate})")


@qa_app.command("generate")
@friendly_errors
def qa_generate(guideline: str = typer.Argument(..., help="Guideline name."),
                version: str = typer.Argument(..., help="Published version.")) -> None:
    """Generate verified questions (gold Cypher and answers) from a published version's graph, into
    $DKG_HOME/qa/generated/ (dkg publish does this)."""
    from dkg.graph.db import open_graph
    from dkg.qa.generated import generate_for_version
    settings = get_settings()
    with open_graph(settings) as graph:
        generated = generate_for_version(graph, settings, guideline, version, on_progress=_say)
    echo(f"{len(generated.items)} questions for {guideline} {version} {generated.split_counts()} in "
         f"{generated.seconds} s: {generated.path}")


@train_app.command("baseline")
@friendly_errors
def train_baseline(
    quick: bool = typer.Option(False, help="Tiny model on the quick dataset."),
    force: bool = typer.Option(False, help="Retrain even when cached."),
    max_minutes: float = typer.Option(12.0, help="Training time budget."),
) -> None:
    """Train the no-DKG baseline (same architecture, question → answer text)."""
    from dkg.qa.training import ensure_baseline
    folder = ensure_baseline(get_settings(), quick=quick, on_progress=_say, force=force, max_minutes=max_minutes)
    echo(f"baseline in {folder}")


@eval_app.command("qa")
@friendly_errors
def eval_qa(
    limit: int = typer.Option(0, help="Evaluate only the first N test items (0 = all)."),
    quick: bool = typer.Option(False, help="Quick dataset and tiny models."),
    out: Path = typer.Option(RESULTS / "qa-eval.json", help="Where to write the full evaluation report."),
    plot_path: Path = typer.Option(RESULTS / "qa.png", help="Where to write the plot."),
) -> None:
    """With-DKG vs without-DKG on the test and unseen-template splits: ROUGE-1 P/R/F, BLEU, Jaccard,
    accuracy; table, plot and latency."""
    from dkg.qa.evaluate import evaluate, plot
    from dkg.qa.seq2seq import Seq2Seq
    from dkg.qa.service import TextToCypherService
    from dkg.qa.training import ensure_baseline, ensure_dataset, ensure_model
    settings = get_settings()
    items, _ = ensure_dataset(settings, quick=quick, on_progress=_say)
    model_dir = ensure_model(settings, quick=quick, on_progress=_say)
    baseline = Seq2Seq.load(ensure_baseline(settings, quick=quick, on_progress=_say))
    versions = {i.guideline: i.version for i in items}
    with TextToCypherService(settings, model_dir=model_dir, versions=versions) as service:
        report = evaluate(service, baseline, items, _say, limit or None)
    plot(report["with_dkg"], report["without_dkg"], plot_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    echo(report["table"])
    echo(f"inference p50 {report['infer_p50_ms']:.1f} ms (model + grounding), answer p50 "
         f"{report['answer_p50_ms']:.1f} ms (with Neo4j); beam rescues {report['beam_rescues']}; "
         f"report {out}, plot {plot_path}")


@qa_app.command("ask")
@friendly_errors
def qa_ask(question: str = typer.Argument(..., help="The question, in quotes.")) -> None:
    """Answer one question with the text-to-Cypher route; prints answer, Cypher, matched nodes and time."""
    from dkg.qa.service import TextToCypherService
    from dkg.qa.training import MODEL_DIR
    with TextToCypherService(get_settings(), model_dir=MODEL_DIR) as service:
        answer = service.answer(question)
    if answer.no_answer_reason:
        console.print(f"[yellow]no answer:[/] {escape(answer.no_answer_reason)}", highlight=False)
    else:
        console.print(f"[bold]answer:[/] {escape(answer.answer)}", highlight=False)
        console.print(f"[bold]matched:[/] {escape(', '.join(answer.matched_nodes))}", highlight=False)
    if answer.missing_facts:
        from dkg.qa.pathway import clarification, stated_facts
        console.print(f"[bold]to go further:[/] "
                      f"{escape(clarification(stated_facts(answer.cypher_params), answer.missing_facts))}",
                      highlight=False)
    if answer.cypher:
        console.print(f"[bold]cypher:[/]\n{escape(answer.cypher)}\n[bold]params:[/] "
                      f"{escape(str(answer.cypher_params))}", highlight=False)
    console.print(f"[dim]{answer.timings_ms.get('total', 0):.0f} ms[/]")
