"""``dkg parse`` (guideline PDF → head–tail CSV + JSON sidecar) and ``dkg eval parse``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from dkg.cli.common import app, cell, console, echo, err_console, eval_app, friendly_errors
from dkg.errors import ParseError
from dkg.parsing.models import ParseResult


@app.command("parse")
@friendly_errors
def parse_command(
    pdf: Path = typer.Argument(..., help="Guideline PDF (born-digital or scanned)."),
    output: Path = typer.Option(..., "-o", "--output", help="Edge CSV to write; a JSON sidecar goes next to it."),
    pages: str = typer.Option(None, "--pages", help="Pages to parse, 1-based: '3-9' or '1,4,6-7' (default all)."),
    ocr: str = typer.Option("auto", "--ocr", help="auto: OCR pages without a text layer; always; never."),
    dpi: int = typer.Option(300, "--dpi", min=72, max=600, help="Rasterisation resolution for OCR pages."),
    sidecar_path: Path = typer.Option(None, "--json", help="Sidecar path (default: OUTPUT with .json)."),
    allow_empty: bool = typer.Option(False, "--allow-empty", help="Write the (header-only) CSV and exit 0 even "
                                                                  "when no page has a flowchart."),
    overlay: Path = typer.Option(None, "--overlay", help="Also write one review PNG per page into this folder: "
                                 "boxes with ids, edges with labels, and what was left out."),
) -> None:
    """Parse flowchart pages into one CSV row per arrow (head box text → tail box text).

    Nothing is written when the PDF cannot be read, or when no page holds a flowchart (unless --allow-empty);
    the CSV and its sidecar are written to temporary files and renamed once both are complete.
    """
    from dkg.parsing import OCRMode, parse_pdf
    from dkg.parsing.output import issue_summary, write_outputs

    side = sidecar_path or output.with_suffix(".json")
    if side.resolve() == output.resolve():
        raise ParseError(f"the CSV and its sidecar would both be {output}; give the CSV a .csv name or the sidecar "
                         "another path with --json")
    if overlay is not None and overlay.exists() and not overlay.is_dir():
        raise ParseError(f"--overlay {overlay} is a file; give a folder for the page pictures; nothing written")
    try:
        mode = OCRMode(ocr)
    except ValueError:
        raise ParseError(f"--ocr must be auto, always or never; got {ocr!r}") from None
    with Progress(TextColumn("[bold]parsing[/] {task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err_console, transient=True) as bar:
        task = bar.add_task(escape(pdf.name), total=None)

        def step(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        result = parse_pdf(pdf, pages=pages, ocr=mode, progress=step, dpi=dpi)
    if not result.edges and not allow_empty:
        raise ParseError(f"no flowchart found in {pdf}: {_why_empty(result)}; nothing written "
                         "(--allow-empty writes the empty CSV anyway)")
    rows = write_outputs(result, output, side)
    if overlay is not None:
        from dkg.parsing.overlay import write_overlays

        pictures = write_overlays(result, overlay)
        echo(f"{len(pictures)} review picture(s) → {overlay}")
    for line in issue_summary(result):
        err_console.print(f"[yellow]warning[/] {escape(line)}", highlight=False, soft_wrap=True)
    routes = {p.source for p in result.pages}
    echo(f"{rows} edges from {len(result.pages)} page(s) ({', '.join(sorted(routes))}) → {output}; sidecar {side}")


def _why_empty(result: ParseResult) -> str:
    """'300 of 300 page(s) parsed, none with boxes joined by arrows (300 blank)'."""
    reasons = Counter("blank" if p.source == "blank" else "unreadable" if p.source == "error"
                      else "no boxes" if not p.boxes else "boxes but no arrows" for p in result.pages)
    detail = ", ".join(f"{count} {reason}" for reason, count in reasons.most_common())
    return (f"{len(result.pages)} of {result.page_count} page(s) parsed, none with boxes joined by arrows "
            f"({detail})")


@eval_app.command("parse")
@friendly_errors
def eval_parse_command(
    pred: list[Path] = typer.Argument(None, help="Predicted edge CSV(s) (one per gold file, same order)."),
    gold: list[Path] = typer.Option(None, "--gold", help="Gold edge CSV(s)."),
    corpus: Path = typer.Option(None, "--corpus", help="Parse and score every corpus PDF under this folder "
                                "(datasets/guidelines): digital and -scanned variants against gold/."),
    pages_limit: str = typer.Option(None, "--pages", help="Only these pages of each PDF (corpus mode)."),
    json_out: Path = typer.Option(None, "--json", help="Also write the scores as JSON here."),
) -> None:
    """Edge precision/recall/F1 (exact after whitespace/case normalisation, and fuzzy ratio ≥ 90)."""
    from dkg.parsing.evaluate import evaluate, read_edges

    results: dict[str, dict[str, dict[str, float]]] = {}
    if corpus is not None:
        from dkg.parsing.corpus_eval import evaluate_corpus

        results = evaluate_corpus(corpus, pages=pages_limit, progress_console=err_console)
    else:
        if not gold or not pred:
            raise ParseError("give --gold GOLD.csv and PRED.csv (or --corpus DIR)")
        if len(gold) != len(pred):
            raise ParseError(f"{len(gold)} gold file(s) but {len(pred)} prediction file(s); pair them one to one")
        for g, p in zip(gold, pred, strict=True):
            results[p.name] = evaluate(read_edges(p), read_edges(g))
    table = Table(title="Edge scores")
    for column in ("run", "scope", "P", "R", "F1", "fuzzy F1", "pred", "gold"):
        table.add_column(column)
    for run, scores in results.items():
        fuzzy = scores.get("all_fuzzy", {}).get("f1")
        for scope, s in scores.items():
            if scope in ("all_fuzzy", "timing"):
                continue
            table.add_row(cell(run), scope, f"{s['precision']:.3f}", f"{s['recall']:.3f}", f"{s['f1']:.3f}",
                          f"{fuzzy:.3f}" if scope == "all" and fuzzy is not None else "",
                          str(int(s["pred"])), str(int(s["gold"])))
    console.print(table)
    if json_out is not None:
        json_out.write_text(json.dumps(results, indent=1), encoding="utf-8")
