"""No flowchart in the input: one summary line, a non-zero exit and no output file, unless --allow-empty."""

from __future__ import annotations

from pathlib import Path

import pypdf
from typer.testing import CliRunner

from dkg.cli.main import app


def _blank_pdf(path: Path, pages: int) -> Path:
    writer = pypdf.PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(612, 792)
    writer.write(path)
    return path


def _run(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "100"})
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, [line for line in result.output.splitlines() if line.strip()]


def test_blank_pdf_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    pdf = _blank_pdf(tmp_path / "blank.pdf", 300)
    out = tmp_path / "edges.csv"
    code, lines = _run("parse", str(pdf), "-o", str(out))
    assert code == 1
    assert len(lines) == 1, lines
    assert "no flowchart found" in lines[0] and "300 of 300 page(s)" in lines[0] and "300 blank" in lines[0]
    assert not out.exists() and not out.with_suffix(".json").exists()
    assert list(tmp_path.iterdir()) == [pdf]


def test_blank_pdf_with_allow_empty_writes_the_header_and_one_warning(tmp_path: Path) -> None:
    pdf = _blank_pdf(tmp_path / "blank.pdf", 40)
    out = tmp_path / "edges.csv"
    code, lines = _run("parse", str(pdf), "-o", str(out), "--allow-empty")
    assert code == 0, lines
    warnings = [line for line in lines if line.startswith("warning")]
    assert warnings == ["warning pages 1–40 (40 pages): blank page (no text layer, no ink); nothing to parse"]
    assert out.read_text().splitlines() == ["head,tail,label,page,head_box_id,tail_box_id,head_original,tail_original"]


def test_header_only_csv_is_refused_without_output(tmp_path: Path) -> None:
    source = tmp_path / "edges.csv"
    source.write_text("head,tail,label\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    code, lines = _run("extract", str(source), "-o", str(out), "--rules-only")
    assert code == 1
    assert len(lines) == 1 and "no edge rows" in lines[0]
    assert not out.exists()
    code, lines = _run("extract", str(source), "-o", str(out), "--rules-only", "--allow-empty")
    assert code == 0, lines
    assert out.read_text().splitlines() == ["head,head_constraints,tail,tail_constraints"]
