"""Score extracted constraints against gold: micro precision/recall/F1, per key, exact sentences.

Gold comes from the corpus's generated files (``datasets/guidelines/*/gold/*-constraints.csv``,
columns ``box_id,text,constraints``) or, when those are absent, straight from the YAML sources
(box ``text`` with footnote markers expanded, and ``constraints``; arrow labels with
``label_constraints``).
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from dkg.constraints.extractor import ConstraintExtractor
from dkg.errors import ConstraintError
from dkg.types import Constraint, parse_constraints

GOLD_COLUMNS = ("box_id", "text", "constraints")


@dataclass(frozen=True)
class GoldItem:
    """One gold sentence and its canonical constraint strings."""

    item_id: str
    text: str
    constraints: frozenset[str]
    head_text: str = ""  # for an arrow label: the text of the box it leaves (a question the label answers)

    @property
    def is_label(self) -> bool:
        return self.item_id.startswith("arrow:")


def _canonical(cell: str, where: str) -> frozenset[str]:
    try:
        return frozenset(str(c) for c in parse_constraints(cell))
    except ConstraintError as exc:
        raise ConstraintError(f"{where}: {exc}") from exc


def load_gold_csv(path: Path) -> list[GoldItem]:
    """Read a gold constraints CSV (columns ``box_id,text,constraints``)."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in GOLD_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise ConstraintError(f"{path} lacks column(s) {', '.join(missing)}; expected {','.join(GOLD_COLUMNS)}")
            items = [GoldItem(row["box_id"], row["text"], _canonical(row["constraints"], f"{path} row {n}"))
                     for n, row in enumerate(reader, start=2)]
    except UnicodeDecodeError as exc:
        raise ConstraintError(f"{path} is not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    return _with_heads(items)


def _with_heads(items: list[GoldItem]) -> list[GoldItem]:
    texts = {i.item_id: i.text for i in items if not i.is_label}
    result: list[GoldItem] = []
    for item in items:
        if item.is_label:
            source = item.item_id.removeprefix("arrow:").split("->")[0]
            item = GoldItem(item.item_id, item.text, item.constraints, texts.get(source, ""))
        result.append(item)
    return result


_MARKER = re.compile(r"\^\{([a-z,\s]+)\}|\^([a-z]{1,2})\b")


def expand_footnotes(text: str, footnotes: dict[str, str]) -> str:
    """Replace ``^a`` / ``^{a,b}`` markers by ``(text of a; text of b)`` as the corpus format says."""

    def replace(match: re.Match[str]) -> str:
        keys = [k.strip() for k in (match[1] or match[2]).split(",") if k.strip()]
        return " (" + "; ".join(footnotes.get(k, k) for k in keys) + ")"

    return " ".join(_MARKER.sub(replace, text).split())


def load_gold_yaml(path: Path) -> list[GoldItem]:
    """Gold items straight from a guideline YAML source (boxes other than notes and links, labels)."""
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    footnotes = {str(k): str(v) for k, v in (data.get("footnotes") or {}).items()}
    items: list[GoldItem] = []
    for page in data.get("pages", []):
        for box in page.get("boxes", []):
            if box.get("kind") in ("note", "link"):
                continue
            cell = ",".join(box.get("constraints") or [])
            items.append(GoldItem(box["id"], expand_footnotes(box["text"], footnotes),
                                  _canonical(cell, f"{path} box {box['id']}")))
        for arrow in page.get("arrows", []):
            if arrow.get("label"):
                cell = ",".join(arrow.get("label_constraints") or [])
                items.append(GoldItem(f"arrow:{arrow['from']}->{arrow['to']}", arrow["label"],
                                      _canonical(cell, f"{path} arrow {arrow['from']}->{arrow['to']}")))
    return _with_heads(items)


def default_gold(root: Path) -> list[Path]:
    """Per guideline folder under ``root``: its gold CSVs (``gold/*-constraints.csv``), else its YAML versions."""
    paths: list[Path] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        csvs = sorted(folder.glob("gold/*-constraints.csv"))
        paths.extend(csvs or sorted(p for p in folder.glob("*.yaml") if not p.name.startswith("changes-")))
    return paths


def load_gold(paths: list[Path]) -> list[GoldItem]:
    """Gold items from CSV and/or YAML files."""
    items: list[GoldItem] = []
    for path in paths:
        if not path.is_file():
            raise ConstraintError(f"gold file {path} does not exist")
        items.extend(load_gold_yaml(path) if path.suffix in (".yaml", ".yml") else load_gold_csv(path))
    return items


def _key(constraint: str) -> str:
    match = re.match(r"[a-z][a-z0-9_]*", constraint)
    return match.group(0) if match else constraint


def score(predicted: list[frozenset[str]], gold: list[frozenset[str]]) -> dict[str, float]:
    """Micro P/R/F1 over constraints, F1 per key (``f1_key_<key>``), the lowest key F1, exact-match rate.

    >>> score([frozenset({"age<65"})], [frozenset({"age<65", "ph=+"})])["recall"]
    0.5
    """
    if len(predicted) != len(gold):
        raise ConstraintError(f"{len(predicted)} predictions for {len(gold)} gold items")
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    exact = 0
    for pred, ref in zip(predicted, gold, strict=True):
        exact += pred == ref
        for c in pred & ref:
            tp[_key(c)] += 1
        for c in pred - ref:
            fp[_key(c)] += 1
        for c in ref - pred:
            fn[_key(c)] += 1

    def prf(t: int, p: int, n: int) -> tuple[float, float, float]:
        precision = t / (t + p) if t + p else 1.0
        recall = t / (t + n) if t + n else 1.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return precision, recall, f1

    total = prf(sum(tp.values()), sum(fp.values()), sum(fn.values()))
    result: dict[str, float] = {"precision": total[0], "recall": total[1], "f1_micro": total[2],
                                "exact_match": exact / len(gold) if gold else 1.0, "sentences": float(len(gold)),
                                "gold_constraints": float(sum(tp.values()) + sum(fn.values()))}
    keys = sorted(set(tp) | set(fp) | set(fn))
    per_key = {k: prf(tp[k], fp[k], fn[k])[2] for k in keys}
    result.update({f"f1_key_{k}": v for k, v in per_key.items()})
    result["f1_min_key"] = min(per_key.values()) if per_key else 1.0
    return result


def predict(extractor: ConstraintExtractor, items: list[GoldItem]) -> list[frozenset[str]]:
    """Canonical constraint strings the extractor finds for each gold item (labels read with their head)."""
    boxes = [i for i in items if not i.is_label]
    labels = [i for i in items if i.is_label]
    found: dict[int, list[Constraint]] = {}
    for item, constraints in zip(boxes, extractor.extract_many([i.text for i in boxes]), strict=True):
        found[id(item)] = constraints
    label_constraints = extractor.extract_labels([i.text for i in labels], [i.head_text for i in labels])
    for item, constraints in zip(labels, label_constraints, strict=True):
        found[id(item)] = constraints
    return [frozenset(str(c) for c in found[id(i)]) for i in items]


def errors(items: list[GoldItem], predicted: list[frozenset[str]]) -> list[tuple[GoldItem, set[str], set[str]]]:
    """``(item, missed, spurious)`` for every item whose prediction differs from gold."""
    return [(item, set(item.constraints - pred), set(pred - item.constraints))
            for item, pred in zip(items, predicted, strict=True) if pred != item.constraints]
