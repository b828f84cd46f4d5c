"""Failure classes of scanned real pages: which gold boxes and edges a parse misses, and why.

Run ``dkg parse SCAN.pdf -o DIR/<page_id>.csv --overlay DIR`` for each page first (the CSV and its JSON sidecar
are read here; the overlay PNG is the picture to look at), then::

    .venv/bin/python bench/real_scan_classes.py DIR smog-41 smog-43 ... [-v]

Development pages only (``datasets/realpdfs/split.json``). Each gold box is matched to the parsed box it
overlaps most (IoU >= 0.3). Boxes: ``box_missed`` (no parsed box), ``box_is_note`` (found but kept as a page
note: no connector reached it), ``text_wrong`` / ``text_fuzzy_ok`` (text differs, fuzzy ratio below / at least
90). Gold edges: ``ok`` (found, both texts exact), ``text_only`` (the right boxes joined, a text differs),
``box_missed`` (an end box not found), ``reversed``, ``connector_missed`` (both boxes found, not joined),
``label_wrong``; ``extra`` counts parsed edges joining boxes no gold edge joins.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rapidfuzz import fuzz  # noqa: E402

from dkg.parsing.evaluate import box_iou, normalise  # noqa: E402
from dkg.parsing.geometry import BBox  # noqa: E402

GOLD = ROOT / "datasets" / "realpdfs" / "gold"
Rect = tuple[float, float, float, float]


def _iou(a: Rect, b: Rect) -> float:
    return box_iou(BBox(*a), BBox(*b))


def page_classes(out: Path, page_id: str, verbose: bool = False) -> tuple[Counter[str], Counter[str]]:
    """Box classes and edge classes of one parsed page against its gold."""
    with (GOLD / f"{page_id}-nodes.csv").open(encoding="utf-8") as fh:
        nodes = {row["id"]: row for row in csv.DictReader(fh)}
    with (GOLD / f"{page_id}-edges.csv").open(encoding="utf-8") as fh:
        gold_edges = list(csv.DictReader(fh))
    side = json.loads((out / f"{page_id}.json").read_text(encoding="utf-8"))["pages"][0]
    with (out / f"{page_id}.csv").open(encoding="utf-8") as fh:
        pred = list(csv.DictReader(fh))
    noted = {note.get("box_id") for note in side.get("notes", [])}
    boxes: Counter[str] = Counter()
    match: dict[str, str | None] = {}
    for node_id, node in nodes.items():
        rect: Rect = (float(node["x0"]), float(node["top"]), float(node["x1"]), float(node["bottom"]))
        best = max(side["boxes"], key=lambda b: _iou(rect, tuple(b["bbox"])), default=None)
        if best is None or _iou(rect, tuple(best["bbox"])) < 0.3:
            match[node_id] = None
            boxes["box_missed"] += 1
            if verbose:
                print(f"  box missed {node_id}: {node['text'][:70]}")
            continue
        match[node_id] = best["id"]
        if best["dropped"] or best["id"] in noted:
            boxes["box_is_note"] += 1
        if normalise(best["text"]) != normalise(node["text"]):
            ratio = fuzz.ratio(normalise(best["text"]), normalise(node["text"]))
            boxes["text_fuzzy_ok" if ratio >= 90 else "text_wrong"] += 1
            if verbose:
                print(f"  text {node_id} ({ratio:.0f}): {node['text'][:70]!r} read {best['text'][:70]!r}")
    pairs = {(e["head_box_id"], e["tail_box_id"]): e for e in pred}
    edges: Counter[str] = Counter()
    used: set[tuple[str, str]] = set()
    for edge in gold_edges:
        head, tail = match.get(edge["head_box_id"]), match.get(edge["tail_box_id"])
        if head is None or tail is None:
            edges["box_missed"] += 1
        elif (head, tail) in pairs:
            used.add((head, tail))
            found = pairs[(head, tail)]
            same = all(normalise(found[k]) == normalise(edge[k]) for k in ("head", "tail"))
            edges["ok" if same else "text_only"] += 1
            edges["label_wrong"] += normalise(found["label"]) != normalise(edge["label"])
        elif (tail, head) in pairs:
            used.add((tail, head))
            edges["reversed"] += 1
        else:
            edges["connector_missed"] += 1
            if verbose:
                print(f"  connector missed {edge['head_box_id']} -> {edge['tail_box_id']} ({head} -> {tail})")
    edges["extra"] = sum(1 for key in pairs if key not in used)
    edges["gold"] = len(gold_edges)
    return boxes, edges


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="folder with <page_id>.csv and .json of each parsed page")
    parser.add_argument("pages", nargs="+", help="page ids (development pages)")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    total_boxes: Counter[str] = Counter()
    total_edges: Counter[str] = Counter()
    for page_id in args.pages:
        boxes, edges = page_classes(args.out, page_id, args.verbose)
        print(f"{page_id:8} boxes {dict(boxes)} edges {dict(edges)}")
        total_boxes += boxes
        total_edges += edges
    print(f"total    boxes {dict(total_boxes)} edges {dict(total_edges)}")


if __name__ == "__main__":
    main()
