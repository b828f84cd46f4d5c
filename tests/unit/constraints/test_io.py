"""Reading the head–tail CSV and writing outputs: bad input is named, files are all-or-nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dkg.constraints.extractor import ConstraintExtractor
from dkg.constraints.io import MAX_CELL_CHARS, read_edges
from dkg.constraints.run import extract_file
from dkg.errors import ConstraintError


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_extract_file_writes_csv_and_json(tmp_path: Path) -> None:
    source = _write(tmp_path / "edges.csv", 'head,tail,label\n"Ph-negative ALL, age ≥ 65 y",Observation,\n'
                    "Age under 40 years?,Pediatric regimen,NO\n")
    rows = extract_file(ConstraintExtractor(rules_only=True), source, tmp_path / "out.csv", tmp_path / "out.json")
    assert len(rows) == 2
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[0] == "head,head_constraints,tail,tail_constraints"
    assert lines[1] == '"Ph-negative ALL, age ≥ 65 y","age>=65,ph=-",Observation,NULL'
    data = json.loads((tmp_path / "out.json").read_text())
    assert {"key": "age", "op": ">=", "value": 65.0, "text": "age>=65"} in data[0]["head_constraints"]
    assert [c["text"] for c in data[1]["label_constraints"]] == ["age>=40"]


def test_missing_columns_named(tmp_path: Path) -> None:
    source = _write(tmp_path / "e.csv", "head,label\nx,y\n")
    with pytest.raises(ConstraintError, match="lacks column\\(s\\) tail"):
        read_edges(source)


def test_bad_encoding_named(tmp_path: Path) -> None:
    source = _write(tmp_path / "e.csv", b"head,tail\nok,fine\n\xff\xfe bad,row\n")
    with pytest.raises(ConstraintError, match="not UTF-8.*line 3"):
        read_edges(source)


def test_bad_row_named_and_nothing_written(tmp_path: Path) -> None:
    source = _write(tmp_path / "e.csv", "head,tail\nok,fine\na,b,c,d\n")
    out = tmp_path / "out.csv"
    with pytest.raises(ConstraintError, match="line 3 has 4 field\\(s\\) where the header has 2"):
        extract_file(ConstraintExtractor(rules_only=True), source, out)
    assert not out.exists()


def test_existing_output_untouched_on_failure(tmp_path: Path) -> None:
    out = _write(tmp_path / "out.csv", "previous\n")
    source = _write(tmp_path / "e.csv", "head\nx\n")
    with pytest.raises(ConstraintError):
        extract_file(ConstraintExtractor(rules_only=True), source, out)
    assert out.read_text() == "previous\n"


def test_empty_and_odd_rows_give_null(tmp_path: Path) -> None:
    long_text = "chemotherapy " * 3000
    source = _write(tmp_path / "e.csv", f'head,tail\n"",Observation\n"{long_text}",Лечение пациентов\n')
    extract_file(ConstraintExtractor(rules_only=True), source, tmp_path / "o.csv")
    lines = (tmp_path / "o.csv").read_text().splitlines()
    assert lines[1] == ",NULL,Observation,NULL"
    assert lines[2].endswith(",NULL,Лечение пациентов,NULL")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConstraintError, match="does not exist"):
        read_edges(tmp_path / "nope.csv")


def test_tree_mode_needs_parser() -> None:
    with pytest.raises(ConstraintError, match="needs a parser"):
        ConstraintExtractor()


def test_megabyte_cell_is_read(tmp_path: Path) -> None:
    big = "chemotherapy " * 80_000  # about 1 MB, beyond the csv module's default 128 KiB field limit
    edges, _ = read_edges(_write(tmp_path / "e.csv", f'head,tail\n"{big}",Observation\n'))
    assert edges[0].head == big and edges[0].tail == "Observation"


def test_cell_beyond_the_bound_is_named_not_a_traceback(tmp_path: Path) -> None:
    huge = "x" * (MAX_CELL_CHARS + 1)
    with pytest.raises(ConstraintError, match=f"line 3: a cell is longer than {MAX_CELL_CHARS:,} characters"):
        read_edges(_write(tmp_path / "e.csv", f"head,tail\nok,fine\n{huge},y\n"))


def test_unterminated_quote_names_the_line_it_opens_on(tmp_path: Path) -> None:
    source = _write(tmp_path / "e.csv", 'head,tail\nok,fine\n"Age under 40?,Pediatric regimen\nx,y\n')
    with pytest.raises(ConstraintError, match="line 3: a quoted cell .* never closed .*unterminated") as info:
        read_edges(source)
    assert "fields where the header" not in str(info.value)


def test_stray_quote_inside_a_cell_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConstraintError, match="line 2: malformed CSV"):
        read_edges(_write(tmp_path / "e.csv", 'head,tail\n"a"b,c\n'))


def test_line_numbers_count_multi_line_cells(tmp_path: Path) -> None:
    source = _write(tmp_path / "e.csv", 'head,tail\n"two\nlines",x\na,b,c\n')
    with pytest.raises(ConstraintError, match="line 4 has 3 field\\(s\\) where the header has 2"):
        read_edges(source)
    edges, _ = read_edges(_write(tmp_path / "ok.csv", 'head,tail\n"two\nlines",x\n'))
    assert edges[0].head == "two\nlines"


def test_too_few_fields_named(tmp_path: Path) -> None:
    with pytest.raises(ConstraintError, match="line 2 has 1 field\\(s\\) .*needs a head and a tail"):
        read_edges(_write(tmp_path / "e.csv", "head,tail,label\nonly\n"))
    edges, has_label = read_edges(_write(tmp_path / "ok.csv", "head,tail,label\na,b\n"))
    assert has_label and edges[0].label == ""
