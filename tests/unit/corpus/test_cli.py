"""The ``dkg corpus`` commands on a copy of the fixture guideline folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from dkg.cli.main import app

from .conftest import FIXTURES

runner = CliRunner()


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "guidelines"
    shutil.copytree(FIXTURES, root)
    return root


def test_gold_then_stats_writes_flat_figures(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    result = runner.invoke(app, ["corpus", "gold", "--root", str(root)])
    assert result.exit_code == 0, result.output
    assert (root / "FIX" / "2.2026.yaml").read_text(encoding="utf-8").startswith("# GENERATED")
    assert (root / "FIX" / "gold" / "FIX-2.2026-edges.csv").is_file()
    out = tmp_path / "corpus.json"
    result = runner.invoke(app, ["corpus", "stats", "--root", str(root), "--json-out", str(out)])
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert figures == {"FIX_decision": 13, "FIX_nodes": 27, "FIX_pages": 5, "FIX_relations": 29,
                       "changes_v2_FIX": 3}


def test_validate_reports_a_broken_file_and_exits_1(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    source = root / "FIX" / "1.2026.yaml"
    source.write_text(source.read_text(encoding="utf-8").replace("to: fix2_hct", "to: fix2_gone"),
                      encoding="utf-8")
    result = runner.invoke(app, ["corpus", "validate", str(source)])
    assert result.exit_code == 1
    assert "unknown box id 'fix2_gone'" in result.output


def test_render_skips_up_to_date_outputs(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    args = ["corpus", "render", "--root", str(root), "--no-scanned"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert (root / "FIX" / "pdf" / "FIX-1.2026.pdf").is_file()
    second = runner.invoke(app, args)
    assert second.exit_code == 0 and "up to date" in second.output


def test_render_unknown_guideline_is_a_one_line_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["corpus", "render", "--root", str(_copy(tmp_path)), "-g", "lung"])
    assert result.exit_code == 1
    assert "no guideline 'lung'" in result.output
