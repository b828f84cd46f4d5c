"""Where do scanned-page edge errors come from? Compare a scanned page's parse with the digital twin's.

Run: ``.venv/bin/python bench/scanned_diagnose.py datasets/guidelines/ALL/pdf/ALL-1.2026 --pages 1-2``
(the stem without ``.pdf`` / ``-scanned.pdf``). The digital parse (edge F1 1.000) serves as box-level truth:
scanned boxes are paired with digital boxes by bbox overlap, then every missed gold edge is classified as

- ``graph``: the two boxes are paired but the scanned parse has no arrow between them (or a box is missing),
- ``marker``: box text right except the footnote markers (original text differs only in ``^…``),
- ``footnote``: markers right, but the footnote text substituted for them differs,
- ``link``: a ``See … (XXX-N)`` box that was not resolved to the target page's entry box,
- ``text``: the box's own words are misread.

Diagnostic only; the parser never reads the digital twin or the gold files.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dkg.parsing import parse_pdf  # noqa: E402
from dkg.parsing.evaluate import normalise  # noqa: E402

MARKER = re.compile(r"\^(\{[^}]*\}|\S)")


def _pair_boxes(digital_page, scanned_page) -> dict[str, str]:
    """scanned box id → digital box id, by largest bbox overlap (intersection over the smaller area)."""
    out = {}
    for s in scanned_page.boxes:
        best, best_score = None, 0.3
        for d in digital_page.boxes:
            ix = min(s.bbox.x1, d.bbox.x1) - max(s.bbox.x0, d.bbox.x0)
            iy = min(s.bbox.bottom, d.bbox.bottom) - max(s.bbox.top, d.bbox.top)
            if ix <= 0 or iy <= 0:
                continue
            score = ix * iy / min(s.bbox.width * s.bbox.height, d.bbox.width * d.bbox.height)
            if score > best_score:
                best, best_score = d.id, score
        if best is not None:
            out[s.id] = best
    return out


def _classify_box(s_box, d_box) -> str | None:
    if normalise(s_box.text) == normalise(d_box.text):
        return None
    if d_box.link_code or d_box.link_page is not None:
        return "link"
    s_plain, d_plain = MARKER.sub("", s_box.original), MARKER.sub("", d_box.original)
    if normalise(s_plain) != normalise(d_plain):
        return "text"
    if MARKER.findall(s_box.original) != MARKER.findall(d_box.original):
        return "marker"
    return "footnote"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("stem", help="corpus PDF path without .pdf, e.g. datasets/guidelines/ALL/pdf/ALL-1.2026")
    parser.add_argument("--pages", default="1-2")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    digital = parse_pdf(f"{args.stem}.pdf", pages=args.pages)
    scanned = parse_pdf(f"{args.stem}-scanned.pdf", pages=args.pages)
    classes: Counter[str] = Counter()
    for d_page, s_page in zip(digital.pages, scanned.pages, strict=True):
        pairs = _pair_boxes(d_page, s_page)
        s_by_d = {v: k for k, v in pairs.items()}
        s_by_id = {b.id: b for b in s_page.boxes}
        bad_box: dict[str, str] = {}
        print(f"== page {d_page.number} ({d_page.code}): digital {len(d_page.boxes)} boxes "
              f"{len(d_page.edges)} edges; scanned {len(s_page.boxes)} boxes {len(s_page.edges)} edges, "
              f"{len(pairs)} paired, {s_page.seconds:.1f} s")
        for d_box in d_page.boxes:
            s_id = s_by_d.get(d_box.id)
            if s_id is None:
                bad_box[d_box.id] = "graph"
                print(f"  box {d_box.id} not found in scan: {d_box.original[:70]!r}")
                continue
            kind = _classify_box(s_by_id[s_id], d_box)
            if kind:
                bad_box[d_box.id] = kind
                print(f"  box {d_box.id} [{kind}]\n    digital: {d_box.original[:200]!r}\n"
                      f"    scanned: {s_by_id[s_id].original[:200]!r}")
                if kind == "footnote" or args.verbose:
                    print(f"    d-exp: {d_box.text[:300]!r}\n    s-exp: {s_by_id[s_id].text[:300]!r}")
        s_pairs = {(pairs.get(e.head_box_id), pairs.get(e.tail_box_id)) for e in s_page.edges}
        s_texts = {(normalise(e.head), normalise(e.tail)) for e in s_page.edges}
        for edge in d_page.edges:
            if (normalise(edge.head), normalise(edge.tail)) in s_texts:
                classes["ok"] += 1
                continue
            ids = (edge.head_box_id, edge.tail_box_id)
            if any(not i.startswith(f"p{d_page.number}-") for i in ids):
                kind = "link"  # one end is the entry box of a linked page
            elif ids not in s_pairs:
                kind = "graph"
                print(f"  edge {ids} missing in scanned graph")
            else:
                kinds = sorted({bad_box.get(i, "?") for i in ids} - {"?"}) or ["?"]
                kind = "+".join(kinds)
            classes[kind] += 1
        extra = len(s_texts - {(normalise(e.head), normalise(e.tail)) for e in d_page.edges})
        print(f"  scanned edges not in digital: {extra}")
        if d_page.footnotes != s_page.footnotes:
            for key in sorted(set(d_page.footnotes) | set(s_page.footnotes)):
                if d_page.footnotes.get(key) != s_page.footnotes.get(key):
                    print(f"  footnote {key!r}: digital {d_page.footnotes.get(key, '')[:60]!r} "
                          f"scanned {s_page.footnotes.get(key, '')[:60]!r}")
    print("digital edges by outcome:", dict(classes))


if __name__ == "__main__":
    main()
