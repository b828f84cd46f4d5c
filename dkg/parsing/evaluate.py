"""Edge-level evaluation of parsed head–tail CSVs against gold files (pure functions, no I/O but CSV reading)."""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein  # noqa: F401  (import check: rapidfuzz present)

from dkg.errors import ParseError

FUZZY_THRESHOLD = 90.0
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
    hits = _match_count(pred, gold, fuzzy)
    precision = hits / len(pred) if pred else (1.0 if not gold else 0.0)
    recall = hits / len(gold) if gold else (1.0 if not pred else 0.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "pred": float(len(pred)),
            "gold": float(len(gold)), "matched": float(hits)}


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
