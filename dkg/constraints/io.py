"""Read the head–tail CSV and write the constrained CSV and its JSON form (all or nothing)."""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dkg.errors import ConstraintError
from dkg.types import CONSTRAINED_COLUMNS, HEAD_TAIL_COLUMNS, Constraint, HeadTailEdge, format_constraints

REQUIRED_COLUMNS = ("head", "tail")
# The longest cell a head–tail CSV may hold (characters): far above any box text, low enough that a cell
# which swallowed the rest of the file through an unclosed quote is reported instead of parsed.
MAX_CELL_CHARS = 4 * 1024 * 1024


@dataclass(frozen=True)
class ConstrainedEdge:
    """An edge with the constraints of its head, tail and (when present) label."""

    edge: HeadTailEdge
    head_constraints: list[Constraint]
    tail_constraints: list[Constraint]
    label_constraints: list[Constraint] | None = None


def read_edges(path: Path) -> tuple[list[HeadTailEdge], bool]:
    """Edges of a head–tail CSV and whether it has a ``label`` column; bad rows are named in the error.

    Malformed CSV (an unterminated or stray quote, a row with more fields than the header, a cell longer
    than :data:`MAX_CELL_CHARS`) is reported with its line number and what to fix.
    """
    if not path.is_file():
        raise ConstraintError(f"input CSV {path} does not exist")
    try:
        raw = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise ConstraintError(
            f"{path} is not UTF-8: byte {exc.start} (line {line}) cannot be decoded; re-save it as UTF-8"
        ) from exc
    records = _records(path, raw)
    if not records:
        raise ConstraintError(f"{path} is empty; a head–tail CSV starts with the header {','.join(HEAD_TAIL_COLUMNS)}")
    _, columns = records[0]
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise ConstraintError(
            f"{path} lacks column(s) {', '.join(missing)}; a head–tail CSV has columns "
            f"{','.join(HEAD_TAIL_COLUMNS)} (label, page and box ids optional). Found: {','.join(columns) or 'none'}"
        )
    needed = max(columns.index(c) for c in REQUIRED_COLUMNS) + 1
    edges: list[HeadTailEdge] = []
    for line, fields in records[1:]:
        if len(fields) > len(columns) or len(fields) < needed:
            raise ConstraintError(
                f"{path} line {line} has {len(fields)} field(s) where the header has {len(columns)} "
                f"({','.join(columns)}): " + ("quote fields that contain commas" if len(fields) > len(columns)
                                              else "every row needs a head and a tail")
            )
        row = dict(zip(columns, fields, strict=False))
        edges.append(HeadTailEdge(**{c: row.get(c, "") for c in HEAD_TAIL_COLUMNS if c in row}))
    return edges, "label" in columns


def _records(path: Path, raw: str) -> list[tuple[int, list[str]]]:
    """``(first line, fields)`` of every non-blank CSV record, or a :class:`ConstraintError` naming the line."""
    if csv.field_size_limit() < MAX_CELL_CHARS:
        csv.field_size_limit(MAX_CELL_CHARS)
    reader = csv.reader(io.StringIO(raw, newline=""), strict=True)
    records: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for fields in reader:
            if fields:
                records.append((start, fields))
            start = reader.line_num + 1
    except csv.Error as exc:
        problem = str(exc)
        if "field larger than field limit" in problem:
            raise ConstraintError(
                f"{path} line {start}: a cell is longer than {MAX_CELL_CHARS:,} characters, the most a head–tail "
                "cell may hold; usually a quote opened there is never closed, so the rest of the file became "
                "one cell: close the quote (write a quote inside a cell as \"\")"
            ) from None
        if "unexpected end of data" in problem:
            raise ConstraintError(
                f"{path} line {start}: a quoted cell that starts on this line is never closed (unterminated "
                f"quote; the file ends at line {reader.line_num}): add the closing quote, or write a quote "
                "inside a cell as \"\""
            ) from None
        raise ConstraintError(
            f"{path} line {reader.line_num}: malformed CSV ({problem}); a cell with quotes must be quoted as a "
            "whole, with each quote inside it doubled (\"a \"\"b\"\" c\")"
        ) from None
    return records


def _typed(constraint: Constraint) -> dict[str, Any]:
    value: Any = constraint.value
    if isinstance(value, frozenset):
        value = sorted(value)
    elif isinstance(value, tuple):
        value = list(value)
    return {"key": constraint.key, "op": constraint.op.value, "value": value, "text": str(constraint)}


def to_json(rows: list[ConstrainedEdge]) -> list[dict[str, Any]]:
    """The JSON form: one object per edge with typed constraints."""
    out: list[dict[str, Any]] = []
    for row in rows:
        item: dict[str, Any] = {
            "head": row.edge.head,
            "head_constraints": [_typed(c) for c in row.head_constraints],
            "tail": row.edge.tail,
            "tail_constraints": [_typed(c) for c in row.tail_constraints],
            "page": row.edge.page,
            "head_box_id": row.edge.head_box_id,
            "tail_box_id": row.edge.tail_box_id,
        }
        if row.label_constraints is not None:
            item["label"] = row.edge.label
            item["label_constraints"] = [_typed(c) for c in row.label_constraints]
        out.append(item)
    return out


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def render_csv(rows: list[ConstrainedEdge]) -> str:
    """The 4-column constrained CSV (``head,head_constraints,tail,tail_constraints``)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CONSTRAINED_COLUMNS)
    for row in rows:
        writer.writerow([row.edge.head, format_constraints(row.head_constraints), row.edge.tail,
                         format_constraints(row.tail_constraints)])
    return buffer.getvalue()


def write_outputs(rows: list[ConstrainedEdge], csv_path: Path, json_path: Path | None = None) -> None:
    """Write the CSV (and JSON) only after both are fully rendered; each file is replaced atomically."""
    csv_text = render_csv(rows)
    json_text = json.dumps(to_json(rows), indent=2, ensure_ascii=False) + "\n" if json_path else None
    _atomic_write(csv_path, csv_text)
    if json_path is not None and json_text is not None:
        _atomic_write(json_path, json_text)
