"""`dkg parse` output paths: the CSV and its sidecar never overwrite each other."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from dkg.cli.main import app

FIXTURE_PDF = Path(__file__).resolve().parents[2] / "fixtures" / "pdfs" / "footnotes_links.pdf"


def test_csv_named_like_its_sidecar_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "edges.json"
    result = CliRunner().invoke(app, ["parse", str(FIXTURE_PDF), "-o", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 1, result.output
    assert "would both be" in result.output
    assert not out.exists()
