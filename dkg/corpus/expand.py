"""Expanded texts, link resolution, counts and gold files, exactly as FORMAT.md defines them."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dkg.corpus.model import MARKER, Box, BoxKind, Guideline, entry_box
from dkg.errors import CorpusError
from dkg.types import HEAD_TAIL_COLUMNS, Constraint, HeadTailEdge, format_constraints

CONSTRAINT_COLUMNS: tuple[str, ...] = ("box_id", "text", "constraints")


def collapse(text: str) -> str:
    """Collapse runs of whitespace to single spaces and undo hyphenation at line breaks."""
    text = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", text)
    return re.sub(r"\s+", " ", text).strip()


def plain_text(text: str) -> str:
    """The text without footnote markers (what a reader sees, minus superscripts)."""
    return collapse(MARKER.sub("", text))


def expand_footnotes(text: str, footnotes: dict[str, str]) -> str:
    """Replace footnote markers by their texts in parentheses, several joined by ``; ``."""

    def replace(match: re.Match[str]) -> str:
        group = match["many"] if match["many"] is not None else match["one"]
        keys = [k.strip() for k in group.split(",") if k.strip()]
        return " (" + "; ".join(collapse(footnotes[k]) for k in keys) + ")"

    return collapse(MARKER.sub(replace, text))


def resolve(guideline: Guideline, box_id: str) -> Box:
    """The box an arrow into ``box_id`` really reaches: link boxes lead to their target's entry box."""
    index = guideline.box_index()
    seen: list[str] = []
    box = index[box_id][1]
    while box.kind is BoxKind.LINK:
        if box.id in seen:
            raise CorpusError(f"link boxes form a loop: {' -> '.join(seen + [box.id])}")
        seen.append(box.id)
        page = guideline.page(box.target or "")
        if page is None:
            raise CorpusError(f"box {box.id}: unknown link target {box.target!r}")
        box = entry_box(page)
    return box


def expanded_text(guideline: Guideline, box_id: str) -> str:
    """A box's expanded text (footnotes inlined; link boxes replaced by their target's entry box)."""
    return expand_footnotes(resolve(guideline, box_id).text, guideline.footnotes)


@dataclass(frozen=True)
class GoldArrow:
    page: str
    head: Box
    tail: Box
    label: str
    label_constraints: tuple[str, ...]


def gold_arrows(guideline: Guideline) -> list[GoldArrow]:
    """Every arrow after link resolution, in source order, without duplicate head–tail pairs."""
    arrows: list[GoldArrow] = []
    seen: set[tuple[str, str]] = set()
    for page in guideline.pages:
        for arrow in page.arrows:
            head, tail = resolve(guideline, arrow.from_), resolve(guideline, arrow.to)
            if (head.id, tail.id) in seen:
                continue
            seen.add((head.id, tail.id))
            arrows.append(GoldArrow(page.code, head, tail, arrow.label, tuple(arrow.label_constraints)))
    return arrows


def gold_nodes(guideline: Guideline) -> list[Box]:
    """Distinct boxes that take part in at least one arrow after link resolution, in source order."""
    used: set[str] = set()
    for arrow in gold_arrows(guideline):
        used.update((arrow.head.id, arrow.tail.id))
    return [box for _, box in guideline.boxes() if box.id in used]


@dataclass(frozen=True)
class Counts:
    nodes: int
    decision: int
    relations: int


def counts(guideline: Guideline) -> Counts:
    """Nodes, decision nodes and relations as FORMAT.md defines them."""
    nodes = gold_nodes(guideline)
    return Counts(
        nodes=len(nodes),
        decision=sum(1 for b in nodes if b.kind is BoxKind.DECISION),
        relations=len(gold_arrows(guideline)),
    )


def gold_edges(guideline: Guideline) -> list[HeadTailEdge]:
    """The head–tail rows of the gold edges file."""
    return [
        HeadTailEdge(
            head=expand_footnotes(a.head.text, guideline.footnotes),
            tail=expand_footnotes(a.tail.text, guideline.footnotes),
            label=collapse(a.label),
            page=a.page,
            head_box_id=a.head.id,
            tail_box_id=a.tail.id,
        )
        for a in gold_arrows(guideline)
    ]


def _canonical(texts: list[str] | tuple[str, ...]) -> str:
    return format_constraints([Constraint.parse(t) for t in texts])


def gold_constraint_rows(guideline: Guideline) -> list[tuple[str, str, str]]:
    """``(box_id, text, constraints)`` per node, then ``(arrow:<from>-><to>, label, constraints)``."""
    rows = [
        (box.id, expand_footnotes(box.text, guideline.footnotes), _canonical(box.constraints))
        for box in gold_nodes(guideline)
    ]
    rows += [
        (f"arrow:{a.head.id}->{a.tail.id}", collapse(a.label), _canonical(a.label_constraints))
        for a in gold_arrows(guideline)
        if a.label
    ]
    return rows


def _csv(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def gold_files(guideline: Guideline) -> dict[str, str]:
    """File name → CSV text of the two gold files of one guideline version."""
    stem = f"{guideline.guideline}-{guideline.version}"
    edges = [tuple(getattr(e, c) for c in HEAD_TAIL_COLUMNS) for e in gold_edges(guideline)]
    return {
        f"{stem}-edges.csv": _csv(HEAD_TAIL_COLUMNS, edges),
        f"{stem}-constraints.csv": _csv(CONSTRAINT_COLUMNS, gold_constraint_rows(guideline)),
    }


def write_gold(guideline: Guideline, gold_dir: Path) -> list[Path]:
    """Write the gold files into ``gold_dir``; return the paths whose content changed."""
    gold_dir.mkdir(parents=True, exist_ok=True)
    changed: list[Path] = []
    for name, text in gold_files(guideline).items():
        path = gold_dir / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed
