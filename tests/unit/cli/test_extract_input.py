"""`dkg extract` on malformed CSV: one line naming the line and the fix, exit code 1, no traceback, no output."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from dkg.cli.main import app


def _extract(tmp_path: Path, text: str, *extra: str) -> tuple[int, str, Path]:
    source = tmp_path / "edges.csv"
    source.write_text(text, encoding="utf-8")
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(app, ["extract", str(source), "-o", str(out), "--rules-only", *extra],
                                env={"COLUMNS": "400"})
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output, out


def test_unterminated_quote_is_one_line_with_its_line_number(tmp_path: Path) -> None:
    code, output, out = _extract(tmp_path, 'head,tail\nok,fine\n"Age under 40?,Pediatric regimen\nx,y\n')
    assert code == 1
    assert "line 3: a quoted cell" in output and "Traceback" not in output
    assert not out.exists()


def test_megabyte_cell_is_extracted(tmp_path: Path) -> None:
    big = "chemotherapy " * 12_000  # 156 kB: beyond the csv module's default 128 KiB field limit
    code, output, out = _extract(tmp_path, f'head,tail\n"age 65 or older, {big}",Observation\n')
    assert code == 0, output
    assert "age>=65" in out.read_text()
