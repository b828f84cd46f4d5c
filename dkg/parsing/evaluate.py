"""Edge-level evaluation of parsed head–tail CSVs against gold files (pure functions, no I/O but CSV reading)."""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein  # noqa: F401  (import check: rapidfuzz present)

from dkg.errors import ParseError
from dkg.parsing.geometry import BBox

FUZZY_THRESHOLD = 90.0
# a parsed box stands for a gold box when they overlap by at least this intersection over union
BOX_MATCH_IOU = 0.3
Edge = tuple[str, str]


def normalise(text: str) -> str:
    """Lower-case, unify dashes/quotes and collapse whitespace."""
    text = text.replace("\u2013", "-").replace("\u2014", "-").replace("\u2212", "-").replace("\u00ad", "")
    text = text.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", text).strip().lower()


def read_edges(path: str | Path) -> list[dict[str, str]]:
    """Rows of a head–tail CSV (needs at least ``head`` and ``tail`` columns)."""
    path = Path(path)
    if not path.is_file():
        raise ParseError(f"edge file {path} does not exist")
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {"head", "tail"} - set(reader.fieldnames or [])
        if missing:
            raise ParseError(f"{path} lacks column(s) {', '.join(sorted(missing))}; expected head,tail,...")
        return [dict(row) for row in reader]


def _pairs(rows: Iterable[dict[str, str]]) -> list[Edge]:
    return sorted({(normalise(r["head"]), normalise(r["tail"])) for r in rows})


def _match_count(pred: Sequence[Edge], gold: Sequence[Edge], fuzzy: bool) -> int:
    if not fuzzy:
        return len(set(pred) & set(gold))
    remaining = list(gold)
    hits = 0
    for head, tail in pred:
        best, best_score = -1, 0.0
        for index, (g_head, g_tail) in enumerate(remaining):
            score = min(fuzz.ratio(head, g_head), fuzz.ratio(tail, g_tail))
            if score >= FUZZY_THRESHOLD and score > best_score:
                best, best_score = index, score
        if best >= 0:
            hits += 1
            remaining.pop(best)
    return hits


def prf(pred_rows: Iterable[dict[str, str]], gold_rows: Iterable[dict[str, str]],
        fuzzy: bool = False) -> dict[str, float]:
    """Edge precision/recall/F1 over distinct normalised (head, tail) pairs.

    >>> prf([{"head": "A", "tail": "B "}], [{"head": "a", "tail": "b"}])["f1"]
    1.0
    """
    pred, gold = _pairs(pred_rows), _pairs(gold_rows)
    return _scores(_match_count(pred, gold, fuzzy), len(pred), len(gold))


def _scores(matched: float, pred: float, gold: float) -> dict[str, float]:
    """Precision, recall and F1 of ``matched`` hits among ``pred`` predicted and ``gold`` gold items (nothing
    predicted and nothing to find scores 1)."""
    precision = matched / pred if pred else (1.0 if not gold else 0.0)
    recall = matched / gold if gold else (1.0 if not pred else 0.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "pred": float(pred), "gold": float(gold),
            "matched": float(matched)}


def evaluate(pred_rows: list[dict[str, str]], gold_rows: list[dict[str, str]]) -> dict[str, dict[str, float]]:
    """Exact and fuzzy scores overall and per page (``page`` column; gold pages decide the grouping)."""
    out = {"all": prf(pred_rows, gold_rows), "all_fuzzy": prf(pred_rows, gold_rows, fuzzy=True)}
    by_page_gold: dict[str, list[dict[str, str]]] = defaultdict(list)
    by_page_pred: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in gold_rows:
        by_page_gold[row.get("page", "")].append(row)
    for row in pred_rows:
        by_page_pred[row.get("page", "")].append(row)
    for page in sorted(set(by_page_gold) | set(by_page_pred)):
        out[f"page:{page}"] = prf(by_page_pred.get(page, []), by_page_gold.get(page, []))
    return out


def misses(pred_rows: list[dict[str, str]], gold_rows: list[dict[str, str]]) -> tuple[list[Edge], list[Edge]]:
    """``(false_positives, false_negatives)`` under exact normalised matching."""
    pred, gold = set(_pairs(pred_rows)), set(_pairs(gold_rows))
    return sorted(pred - gold), sorted(gold - pred)


def box_iou(a: BBox, b: BBox) -> float:
    """Intersection over union of two boxes (0 when they do not overlap).

    >>> box_iou(BBox(0, 0, 2, 2), BBox(1, 0, 3, 2))
    0.3333333333333333
    """
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.bottom, b.bottom) - max(a.top, b.top)
    if width <= 0 or height <= 0:
        return 0.0
    inter = width * height
    return inter / (a.area + b.area - inter)


def match_boxes(gold: Mapping[str, BBox], found: Mapping[str, BBox], min_iou: float = BOX_MATCH_IOU
                ) -> dict[str, str]:
    """Gold box id → parsed box id, one to one, pairing the boxes so that the summed overlap is largest
    (scipy's assignment solver); a pair overlapping by less than ``min_iou`` is no match. A parsed box that
    merges two gold boxes stands for one of them only."""
    from scipy.optimize import linear_sum_assignment

    gold_ids, found_ids = list(gold), list(found)
    if not gold_ids or not found_ids:
        return {}
    overlap = [[box_iou(gold[g], found[f]) for f in found_ids] for g in gold_ids]
    rows, cols = linear_sum_assignment(overlap, maximize=True)
    return {gold_ids[r]: found_ids[c] for r, c in zip(rows, cols, strict=True) if overlap[r][c] >= min_iou}


def box_edge_prf(pred_rows: Iterable[dict[str, str]], found_boxes: Mapping[str, BBox],
                 gold_rows: Iterable[dict[str, str]], gold_boxes: Mapping[str, BBox],
                 min_iou: float = BOX_MATCH_IOU) -> dict[str, float]:
    """Edge precision/recall/F1 over distinct (head box, tail box) pairs of one page, the parsed boxes matched to
    the gold boxes by position (:func:`match_boxes`; rows need ``head_box_id`` and ``tail_box_id``).

    Unlike :func:`prf`, boxes of the same text are told apart (a page with three "Rhythm Shockable?" boxes has three
    different edges to "CPR 2 min"), and box texts are not compared, so this scores the structure alone. Also
    counted: ``labelled``, the matched edges whose label agrees with the gold's (normalised), and ``label_accuracy``
    (``labelled`` over the matched edges).

    >>> boxes = {"a": BBox(0, 0, 10, 10), "b": BBox(0, 20, 10, 30), "c": BBox(20, 20, 30, 30)}
    >>> found = {"p1-b1": BBox(0, 0, 10, 11), "p1-b2": BBox(0, 20, 10, 30), "p1-b3": BBox(20, 21, 30, 30)}
    >>> gold = [{"head_box_id": "a", "tail_box_id": "b", "label": "YES"},
    ...         {"head_box_id": "a", "tail_box_id": "c", "label": "NO"}]
    >>> pred = [{"head_box_id": "p1-b1", "tail_box_id": "p1-b2", "label": "YES"},
    ...         {"head_box_id": "p1-b3", "tail_box_id": "p1-b1", "label": ""}]
    >>> s = box_edge_prf(pred, found, gold, boxes)
    >>> s["precision"], s["recall"], s["labelled"]
    (0.5, 0.5, 1.0)
    """
    match = match_boxes(gold_boxes, found_boxes, min_iou)
    predicted: dict[tuple[str, str], str] = {}
    for row in pred_rows:
        pair = (row["head_box_id"], row["tail_box_id"])
        if pair[0] != pair[1]:
            predicted.setdefault(pair, normalise(row.get("label", "")))
    wanted: dict[tuple[str, str], str] = {}
    for row in gold_rows:
        wanted.setdefault((row["head_box_id"], row["tail_box_id"]), normalise(row.get("label", "")))
    hits = labelled = 0
    for (head, tail), label in wanted.items():
        pair = (match.get(head, ""), match.get(tail, ""))
        if pair in predicted:
            hits += 1
            labelled += predicted[pair] == label
    return {**_scores(hits, len(predicted), len(wanted)), "labelled": float(labelled),
            "label_accuracy": labelled / hits if hits else 0.0}


def read_gold_boxes(path: str | Path) -> dict[str, BBox]:
    """Box id → bbox of a gold ``<page>-nodes.csv`` (columns ``id, x0, top, x1, bottom``)."""
    path = Path(path)
    if not path.is_file():
        raise ParseError(f"gold box file {path} does not exist")
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {"id", "x0", "top", "x1", "bottom"} - set(reader.fieldnames or [])
        if missing:
            raise ParseError(f"{path} lacks column(s) {', '.join(sorted(missing))}; expected id,x0,top,x1,bottom")
        return {row["id"]: BBox(float(row["x0"]), float(row["top"]), float(row["x1"]), float(row["bottom"]))
                for row in reader}


def pooled_box_prf(pages: Iterable[dict[str, float]]) -> dict[str, float]:
    """:func:`box_edge_prf` scores of several pages pooled (micro averages over their edges).

    >>> pooled_box_prf([{"pred": 2, "gold": 2, "matched": 1, "labelled": 1}, {"pred": 0, "gold": 2, "matched": 0,
    ...                 "labelled": 0}])["recall"]
    0.25
    """
    pred = gold = matched = labelled = 0.0
    for page in pages:
        pred, gold = pred + page["pred"], gold + page["gold"]
        matched, labelled = matched + page["matched"], labelled + page["labelled"]
    return {**_scores(matched, pred, gold), "labelled": labelled,
            "label_accuracy": labelled / matched if matched else 0.0}
