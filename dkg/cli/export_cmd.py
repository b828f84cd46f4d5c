"""``dkg export fhir``: a guideline version as a FHIR R4 Bundle (CPG pathway PlanDefinition)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import typer

from dkg.cli.common import app, echo, friendly_errors
from dkg.errors import ConfigError

export_app = typer.Typer(help="Export guideline versions to other standards (FHIR R4).", no_args_is_help=True)
app.add_typer(export_app, name="export")


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@export_app.command("fhir")
@friendly_errors
def fhir(
    guideline: str = typer.Argument(..., help="Guideline name as loaded in the graph (see `dkg counts`)."),
    version: str = typer.Argument(..., help="Version of that guideline, e.g. 1.2026."),
    output: Path = typer.Option(..., "-o", "--output", help="Bundle file to write (JSON)."),
    report: Path | None = typer.Option(None, "--report", help="Also write the export report (JSON) here."),
) -> None:
    """Write one guideline version as a validated FHIR R4 Bundle; unmapped constraint keys are listed."""
    from dkg.fhir.export import export_version
    from dkg.graph.db import open_graph
    from dkg.types import check_guideline_name, check_version_name

    try:
        check_guideline_name(guideline)
        check_version_name(version)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    if output.is_dir():
        raise ConfigError(f"--output {output} is a folder; give the bundle's file name, e.g. {output / 'bundle.json'}")
    with open_graph() as graph:
        result = export_version(graph, guideline, version)
    _write_atomically(output, json.dumps(result.bundle, indent=2, ensure_ascii=False) + "\n")
    r = result.report
    if report is not None:
        _write_atomically(report, r.model_dump_json(indent=2) + "\n")
    echo(f"{output}: PlanDefinition {r.plan_url} — {r.actions} actions, {r.transitions} transitions, "
         f"{r.conditions} conditions, {r.treatments} treatments ({r.seconds:.2f} s)")
    if r.unmapped:
        echo("unmapped (conditions written without an expression; add codes to the mapping file): "
             + "; ".join(f"{u.key}{'=' + u.value if u.value else ''} ({len(u.where)}×)" for u in r.unmapped))
    else:
        echo("every constraint key and value has a code")
