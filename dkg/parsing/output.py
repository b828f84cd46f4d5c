"""Writers: the head–tail CSV (shared columns + provenance) and the JSON sidecar."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from dkg.parsing.models import ParseResult
from dkg.types import HEAD_TAIL_COLUMNS

CSV_COLUMNS: tuple[str, ...] = (*HEAD_TAIL_COLUMNS, "head_original", "tail_original")


def write_csv(result: ParseResult, path: str | Path) -> int:
    """Write one row per edge; return the number of rows."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = 0
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(CSV_COLUMNS))
        writer.writeheader()
        for page in result.pages:
            for edge, (head_original, tail_original) in zip(page.edges, page.originals, strict=True):
                writer.writerow({**edge.model_dump(), "head_original": head_original,
                                 "tail_original": tail_original})
                rows += 1
    return rows


def sidecar(result: ParseResult) -> dict[str, Any]:
    """Boxes, connectors, footnotes, warnings and provenance of every parsed page, as plain JSON data."""
    pages = []
    for page in result.pages:
        pages.append({
            "page": page.number,
            "code": page.code,
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
                "dashed": any(s.dashed for s in c.segments),
            } for c in page.connectors],
            "footnotes": page.footnotes,
            "edges": [{**e.model_dump(), "head_original": o[0], "tail_original": o[1]}
                      for e, o in zip(page.edges, page.originals, strict=True)],
            "warnings": [i.message for i in page.issues],
        })
    return {"source": result.path, "page_count": result.page_count, "coordinates": "PDF points, origin top-left",
            "pages": pages}


def write_sidecar(result: ParseResult, path: str | Path) -> None:
    """Write :func:`sidecar` as indented JSON."""
    Path(path).write_text(json.dumps(sidecar(result), indent=1, ensure_ascii=False), encoding="utf-8")
