"""CLI: ``dkg extract`` (constraints of a head–tail CSV) and ``dkg eval constraints``."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from dkg.cli.common import app, console, echo, eval_app, friendly_errors
from dkg.config import PROJECT_ROOT, get_settings


@app.command("extract")
@friendly_errors
def extract(
    edges_csv: Path = typer.Argument(
        ..., help="Head–tail CSV (columns head,tail[,label,page,head_box_id,tail_box_id])."
    ),
    output: Path = typer.Option(..., "-o", "--output", help="Constrained CSV to write "
                                "(head,head_constraints,tail,tail_constraints)."),
    json_out: Path | None = typer.Option(None, "--json-out", help="Also write typed constraints as JSON here."),
    rules_only: bool = typer.Option(False, "--rules-only", help="Apply the rules to the flat words, no parse tree."),
    allow_empty: bool = typer.Option(False, "--allow-empty", help="Write header-only outputs and exit 0 when the "
                                                                  "CSV has no rows."),
) -> None:
    """Extract patient constraints for every head and tail sentence (CoreNLP constituency parse + rules).

    The output is written only when every row succeeded (temporary file, then rename). A CSV without rows
    is refused (nothing written) unless --allow-empty.
    """
    from dkg.constraints.io import read_edges
    from dkg.constraints.run import extract_file, open_extractor
    from dkg.errors import ConstraintError

    edges, _ = read_edges(edges_csv)
    if not edges and not allow_empty:
        raise ConstraintError(f"{edges_csv} has a header but no edge rows, so there is nothing to extract; nothing "
                              "written (--allow-empty writes the header-only outputs anyway)")
    total = len({e.head for e in edges} | {e.tail for e in edges})
    settings = get_settings()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as progress:
        task = progress.add_task("starting CoreNLP" if not rules_only else "extracting", total=max(total, 1))
        with open_extractor(settings, rules_only=rules_only) as extractor:
            progress.update(task, description="parsing sentences")
            rows = extract_file(extractor, edges_csv, output, json_out,
                                progress=lambda n: progress.advance(task, n))
    with_constraints = sum(1 for r in rows for c in (r.head_constraints, r.tail_constraints) if c)
    echo(f"wrote {output} ({len(rows)} edges, {with_constraints} head/tail cells with constraints)"
         + (f" and {json_out}" if json_out else ""))


@eval_app.command("constraints")
@friendly_errors
def eval_constraints(
    gold: list[Path] = typer.Option(None, "--gold", help="Gold constraints CSV(s) (box_id,text,constraints) or "
                                    "guideline YAML(s); default: datasets/guidelines/*/gold/*-constraints.csv, "
                                    "else the YAML sources."),
    json_out: Path | None = typer.Option(None, "--json-out", help="Write the figures as flat JSON here."),
    show_errors: int = typer.Option(0, "--show-errors", help="List up to N sentences that differ from gold."),
) -> None:
    """Precision/recall/F1 of extracted constraints against gold, per key, and for the rules alone."""
    from dkg.constraints.evaluate import default_gold, errors, load_gold, predict, score
    from dkg.constraints.run import open_extractor
    from dkg.errors import ConstraintError

    paths = list(gold) if gold else default_gold(PROJECT_ROOT / "datasets" / "guidelines")
    if not paths:
        raise ConstraintError("no gold files found under datasets/guidelines; pass --gold")
    items = load_gold(paths)
    reference = [i.constraints for i in items]
    settings = get_settings()
    with open_extractor(settings) as extractor:
        predicted = predict(extractor, items)
    with open_extractor(settings, rules_only=True) as flat:
        flat_predicted = predict(flat, items)
    figures = score(predicted, reference)
    flat_figures = score(flat_predicted, reference)
    figures["f1_rules_only"] = flat_figures["f1_micro"]
    figures["exact_match_rules_only"] = flat_figures["exact_match"]
    table = Table(title=f"Constraint extraction vs gold ({len(items)} sentences, {len(paths)} file(s))")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for name, value in figures.items():
        table.add_row(name, f"{value:.3f}" if not float(value).is_integer() else f"{value:.0f}")
    console.print(table)
    if show_errors:
        for item, missed, spurious in errors(items, predicted)[:show_errors]:
            console.print(f"[bold]{escape(item.item_id)}[/]: {escape(item.text[:120])}\n"
                          f"  missed {escape(str(sorted(missed)))} spurious {escape(str(sorted(spurious)))}",
                          highlight=False)
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
