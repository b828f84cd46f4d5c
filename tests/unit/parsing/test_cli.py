from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from dkg.cli.main import app

runner = CliRunner()


def test_parse_writes_csv_and_sidecar(fixtures: Path, tmp_path: Path) -> None:
    out = tmp_path / "edges.csv"
    result = runner.invoke(app, ["parse", str(fixtures / "footnotes_links.pdf"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    with out.open(newline="") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == ["head", "tail", "label", "page", "head_box_id", "tail_box_id",
                                     "head_original", "tail_original"]
        data = list(reader)
    assert len(data) == 4
    sidecar = json.loads(out.with_suffix(".json").read_text())
    assert sidecar["pages"][0]["code"] == "FIX-4"
    assert sidecar["pages"][0]["boxes"][0]["bbox"][2] > sidecar["pages"][0]["boxes"][0]["bbox"][0]


def test_parse_bad_file_is_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pdf"
    bad.write_text("not a pdf")
    result = runner.invoke(app, ["parse", str(bad), "-o", str(tmp_path / "x.csv")])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert not (tmp_path / "x.csv").exists()


def test_eval_parse_scores(fixtures: Path, tmp_path: Path) -> None:
    out = tmp_path / "edges.csv"
    runner.invoke(app, ["parse", str(fixtures / "basic_rect_arrows.pdf"), "-o", str(out)])
    scores = tmp_path / "scores.json"
    result = runner.invoke(app, ["eval", "parse", "--gold", str(fixtures / "basic_rect_arrows-edges.csv"),
                                 str(out), "--json", str(scores)])
    assert result.exit_code == 0, result.output
    assert json.loads(scores.read_text())["edges.csv"]["all"]["f1"] == 1.0
