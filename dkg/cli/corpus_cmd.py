"""``dkg corpus``: validate guideline sources, render PDFs, write gold files, print counts."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from dkg.cli.common import app, cell, console, echo, friendly_errors
from dkg.corpus import build
from dkg.corpus.changes import apply_changes, structure
from dkg.corpus.expand import counts
from dkg.corpus.layout import glyph_problems
from dkg.corpus.model import (
    CHANGES_FILE,
    GUIDELINES_DIR,
    CorpusSourceError,
    discover,
    discover_changes,
    load_change_list,
    load_guideline,
)
from dkg.errors import CorpusError

corpus_app = typer.Typer(help="Guideline corpus: validate sources, render PDFs, write gold files, print counts.",
                         no_args_is_help=True)
app.add_typer(corpus_app, name="corpus")

ROOT_OPTION = typer.Option(GUIDELINES_DIR, "--root", help="Folder holding <GUIDELINE>/<VERSION>.yaml files.")


def _validate_one(path: Path) -> str:
    if CHANGES_FILE.match(path.name):
        change_list = load_change_list(path)
        old = load_guideline(path.parent / f"{change_list.from_version}.yaml")
        new = apply_changes(old, change_list, path)
        if structure(old) != structure(new):
            raise CorpusSourceError(path, ["the change list alters structure (pages, boxes or arrows)"])
        return f"{len(change_list.changes)} changes apply cleanly"
    guideline = load_guideline(path)
    problems = glyph_problems(guideline)
    if problems:
        raise CorpusSourceError(path, problems)
    c = counts(guideline)
    return f"{len(guideline.pages)} pages, {c.nodes} nodes, {c.decision} decision, {c.relations} relations"


@corpus_app.command("validate")
@friendly_errors
def validate(
    paths: list[Path] = typer.Argument(None, help="Source or change-list YAML files (default: all shipped)."),
    root: Path = ROOT_OPTION,
) -> None:
    """Check guideline sources and change lists; list every problem with file, page and box."""
    targets = list(paths or [])
    if not targets:
        targets = [p for _, _, p in discover(root)] + [p for *_, p in discover_changes(root)]
    if not targets:
        raise CorpusError(f"no guideline sources under {root}")
    failures = 0
    for path in targets:
        try:
            console.print(f"[green]ok[/]   {escape(str(path))}: {escape(_validate_one(path))}", highlight=False)
        except CorpusError as exc:
            failures += 1
            console.print(f"[red]FAIL[/] {escape(str(exc))}", highlight=False)
    if failures:
        raise CorpusError(f"{failures} of {len(targets)} file(s) invalid")


@corpus_app.command("gold")
@friendly_errors
def gold(root: Path = ROOT_OPTION) -> None:
    """Write <NEW>.yaml from each change list, then the gold edge/constraint CSVs of every version."""
    for path in build.write_next_versions(root):
        echo(f"wrote {path}")
    changed = build.write_all_gold(root)
    for path in changed:
        echo(f"wrote {path}")
    if not changed:
        console.print("gold files are up to date")


@corpus_app.command("render")
@friendly_errors
def render(
    guideline: str = typer.Option(None, "--guideline", "-g", help="Only this guideline (its folder name)."),
    scanned: bool = typer.Option(True, "--scanned/--no-scanned", help="Also write the image-only scanned PDF."),
    force: bool = typer.Option(False, "--force", help="Render even when outputs are newer than inputs."),
    dpi: int = typer.Option(200, "--dpi", help="Resolution of the scanned variant (200–300 is realistic)."),
    root: Path = ROOT_OPTION,
) -> None:
    """Render <G>/pdf/<G>-<V>.pdf (vector, text layer) and <G>-<V>-scanned.pdf (images only)."""
    written = build.render_all(root, guideline, scanned=scanned, force=force, dpi=dpi)
    for path in written:
        echo(f"wrote {path} ({path.stat().st_size // 1024} KB)")
    if not written:
        console.print("PDFs are up to date (use --force to render anyway)")


@corpus_app.command("stats")
@friendly_errors
def stats(
    json_out: Path = typer.Option(None, "--json-out", help="Also write flat figures, e.g. bench/results/corpus.json."),
    root: Path = ROOT_OPTION,
) -> None:
    """Print nodes / decision nodes / relations per guideline version and the constraint changes."""
    rows = build.corpus_stats(root)
    table = Table(title="Guideline corpus")
    for column in ("guideline", "version", "pages", "nodes", "decision", "relations", "constraint changes"):
        table.add_column(column, justify="left" if column in ("guideline", "version") else "right")
    for s in rows:
        table.add_row(cell(s.guideline), cell(s.version), str(s.pages), str(s.counts.nodes), str(s.counts.decision),
                      str(s.counts.relations), "" if s.constraint_changes is None else str(s.constraint_changes))
    console.print(table)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(build.flat_figures(rows), indent=2) + "\n", encoding="utf-8")
        echo(f"wrote {json_out}")
