"""Writers: the head–tail CSV (shared columns + provenance) and the JSON sidecar."""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from dkg.errors import ParseError
from dkg.parsing.models import ParseResult
from dkg.types import HEAD_TAIL_COLUMNS

CSV_COLUMNS: tuple[str, ...] = (*HEAD_TAIL_COLUMNS, "head_original", "tail_original")


def render_csv(result: ParseResult) -> tuple[str, int]:
    """The head–tail CSV text (one row per edge) and its number of rows."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(CSV_COLUMNS))
    writer.writeheader()
    rows = 0
    for page in result.pages:
        for edge, (head_original, tail_original) in zip(page.edges, page.originals, strict=True):
            writer.writerow({**edge.model_dump(), "head_original": head_original, "tail_original": tail_original})
            rows += 1
    for edge, (head_original, tail_original) in zip(result.links, result.link_originals, strict=True):
        writer.writerow({**edge.model_dump(), "head_original": head_original, "tail_original": tail_original})
        rows += 1
    return buffer.getvalue(), rows


def write_csv(result: ParseResult, path: str | Path) -> int:
    """Write one row per edge (atomically: a temporary file renamed on success); return the number of rows."""
    text, rows = render_csv(result)
    atomic_write(Path(path), text)
    return rows


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it: a failed write leaves no partial file."""
    write_all({path: text})


def write_all(texts: dict[Path, str]) -> None:
    """Write every file to a temporary file beside it, then rename them all; on a failure none is replaced
    (renames are atomic, so only a failure between two renames could leave the first one done) and a
    :class:`ParseError` names the file."""
    temporary: dict[Path, str] = {}
    try:
        for path, text in texts.items():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                handle, tmp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".part", dir=path.parent)
                temporary[path] = tmp
                with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
                    out.write(text)
            except OSError as exc:
                raise ParseError(f"cannot write {path}: {exc.strerror or exc}; nothing was written") from None
        for path in temporary:
            if path.is_dir():
                raise ParseError(f"cannot write {path}: it is a folder; give a file name; nothing was written")
        for path, tmp in temporary.items():
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise ParseError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        for tmp in temporary.values():
            Path(tmp).unlink(missing_ok=True)


def write_outputs(result: ParseResult, csv_path: Path, sidecar_path: Path) -> int:
    """Write the CSV and its sidecar together (:func:`write_all`); return the CSV's rows."""
    text, rows = render_csv(result)
    write_all({csv_path: text, sidecar_path: json.dumps(sidecar(result), indent=1, ensure_ascii=False)})
    return rows


def page_spans(pages: list[int]) -> str:
    """``[1, 2, 3, 7]`` → ``'1–3, 7'``.

    >>> page_spans([4, 1, 2, 3, 9])
    '1–4, 9'
    """
    spans = []
    for _, run in itertools.groupby(enumerate(sorted(set(pages))), key=lambda item: item[1] - item[0]):
        numbers = [number for _, number in run]
        spans.append(str(numbers[0]) if len(numbers) == 1 else f"{numbers[0]}–{numbers[-1]}")
    return ", ".join(spans)


def issue_summary(result: ParseResult) -> list[str]:
    """The parse warnings with identical messages merged: ``'pages 2–300 (299 pages): blank page …'``."""
    pages_by_message: dict[str, list[int]] = {}
    for issue in result.issues:
        pages_by_message.setdefault(issue.message, []).append(issue.page)
    lines = []
    for message, pages in pages_by_message.items():
        where = f"page {pages[0]}" if len(set(pages)) == 1 else f"pages {page_spans(pages)} ({len(set(pages))} pages)"
        lines.append(f"{where}: {message}")
    return lines


def sidecar(result: ParseResult) -> dict[str, Any]:
    """Boxes, connectors, footnotes, warnings and provenance of every parsed page, as plain JSON data."""
    pages = []
    for page in result.pages:
        pages.append({
            "page": page.number,
            "code": page.code,
            "title": page.title,
            "route": page.source,
            "seconds": round(page.seconds, 4),
            "boxes": [{
                "id": b.id, "bbox": b.bbox.as_list(), "shape": b.shape, "text": b.text, "original": b.original,
                "footnote_markers": b.markers, "link_code": b.link_code,
                "link_page": None if b.link_page is None else b.link_page + 1,
                "dropped": b.id in page.dropped_boxes,
            } for b in page.boxes],
            "connectors": [{
                "id": c.id, "kind": c.kind, "sources": c.sources, "targets": c.targets, "labels": c.labels,
                "segments": [[round(v, 2) for v in (*s.a, *s.b)] for s in c.segments],
                "dashed": any(s.dashed for s in c.segments), "direction": c.direction,
            } for c in page.connectors],
            "notes": [{"kind": n.kind, "bbox": n.bbox.as_list(), "text": n.text, "box_id": n.box_id}
                      for n in page.notes],
            "pixel_regions": [{"bbox": r.bbox.as_list(), "dpi": r.dpi, "boxes": list(r.box_ids),
                               "connectors": r.connectors} for r in page.pixel_regions],
            "footnotes": page.footnotes,
            "edges": [{**e.model_dump(), "head_original": o[0], "tail_original": o[1]}
                      for e, o in zip(page.edges, page.originals, strict=True)],
            "warnings": [i.message for i in page.issues],
        })
    links = [{**e.model_dump(), "head_original": o[0], "tail_original": o[1]}
             for e, o in zip(result.links, result.link_originals, strict=True)]
    return {"source": result.path, "page_count": result.page_count, "coordinates": "PDF points, origin top-left",
            "pages": pages, "links": links}


def write_sidecar(result: ParseResult, path: str | Path) -> None:
    """Write :func:`sidecar` as indented JSON (atomically)."""
    atomic_write(Path(path), json.dumps(sidecar(result), indent=1, ensure_ascii=False))
