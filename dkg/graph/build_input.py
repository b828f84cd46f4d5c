"""Typed input of the builder, read from the pipeline's CSV files (validated before anything is written)."""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dkg.errors import BuildError, ConstraintError
from dkg.graph.loops import loop_arrows
from dkg.graph.model import (
    canonical_constraints,
    constraints_to_properties,
    node_key,
    node_uid,
    normalise_content,
    option_details,
    treatment_options,
)
from dkg.types import (
    CONSTRAINED_COLUMNS,
    Constraint,
    EffectivePeriod,
    InvalidNameError,
    check_guideline_name,
    check_version_name,
    parse_constraints,
)


@dataclass
class BuildNode:
    key: str
    content: str
    constraints: list[Constraint] = field(default_factory=list)
    pages: set[str] = field(default_factory=set)
    box_ids: set[str] = field(default_factory=set)

    @property
    def is_decision(self) -> bool:
        return bool(self.constraints)


@dataclass(frozen=True)
class BuildEdge:
    head: str
    tail: str
    label: str = ""
    constraints: tuple[Constraint, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.head}>{self.tail}|{normalise_content(self.label).casefold()}"


@dataclass
class BuildInput:
    """One guideline version, ready to be written."""

    guideline: str
    version: str
    title: str = ""
    effective: EffectivePeriod | None = None
    nodes: dict[str, BuildNode] = field(default_factory=dict)
    edges: dict[str, BuildEdge] = field(default_factory=dict)
    page_titles: dict[str, str] = field(default_factory=dict)
    """Page → the flowchart's title printed on it (onboarded PDFs); each node keeps its pages' titles."""

    def __post_init__(self) -> None:
        try:
            check_guideline_name(self.guideline)
            check_version_name(self.version)
        except InvalidNameError as exc:
            raise BuildError(f"{exc}; nothing was built") from exc

    @property
    def uid(self) -> str:
        return f"{self.guideline}|{self.version}"

    def counts(self) -> dict[str, int]:
        return {
            "nodes": len(self.nodes),
            "decision": sum(n.is_decision for n in self.nodes.values()),
            "relations": len({(e.head, e.tail) for e in self.edges.values()}),
        }

    def add_node(self, content: str, constraints: Iterable[Constraint], where: str, page: str = "",
                 box_id: str = "", twin: str = "") -> str:
        """The key of the node of ``content``: boxes of one text are one node, unless ``twin`` (a box id) says
        this box is a step of its own ("CPR 2 min" after each of three questions)."""
        text = normalise_content(content)
        if not text:
            raise BuildError(f"{where}: empty box text")
        key = node_key(text, twin)
        new = list(constraints)
        node = self.nodes.get(key)
        if node is None:
            node = self.nodes[key] = BuildNode(key, text, new)
        elif canonical_constraints(node.constraints) != canonical_constraints(new):
            raise BuildError(
                f"{where}: the box {text[:60]!r} appears with different constraints "
                f"({', '.join(map(str, node.constraints)) or 'NULL'} vs {', '.join(map(str, new)) or 'NULL'}); "
                "one box must have one set of constraints"
            )
        if page:
            node.pages.add(page)
        if box_id:
            node.box_ids.add(box_id)
        return key

    def add_edge(self, head: str, tail: str, label: str = "", constraints: Iterable[Constraint] = ()) -> None:
        if head == tail:
            raise BuildError(f"an arrow from a box to itself: {self.nodes[head].content[:60]!r}")
        edge = BuildEdge(head, tail, normalise_content(label), tuple(constraints))
        self.edges.setdefault(edge.key, edge)

    def source_sha(self) -> str:
        """Hash of everything the graph is built from: equal hashes mean an identical graph."""
        content: dict[str, Any] = {
            "title": self.title,
            "nodes": sorted(
                (n.key, n.content, canonical_constraints(n.constraints), sorted(n.pages), sorted(n.box_ids))
                for n in self.nodes.values()
            ),
            "edges": sorted((e.key, canonical_constraints(e.constraints)) for e in self.edges.values()),
        }
        if self.effective is not None:  # absent from the payload when unset: older hashes stay valid
            content["effective"] = self.effective.model_dump(mode="json")
        if self.page_titles:  # likewise absent without titles
            content["page_titles"] = sorted(self.page_titles.items())
        loops = self.loop_arrows()
        if loops:  # likewise absent for an acyclic flowchart
            content["loops"] = sorted(loops)
        contrast = self.contrast_keys()
        if contrast:  # and for a flowchart without question boxes side by side
            content["contrast_keys"] = contrast
        details = sorted((n.key, option_details(n.content)) for n in self.nodes.values()
                         if not n.is_decision and option_details(n.content))
        if details:  # and for one whose footnotes list no options
            content["option_details"] = details
        payload = json.dumps(content, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()

    # ---- rows for the Cypher templates -------------------------------------------------------------
    def contrast_keys(self) -> dict[str, list[str]]:
        """Question box key → the keys of its own condition that a question box beside it (same box before)
        also tests and its own arrows do not branch on ("History of Ewing sarcoma: recurrence confirmed?" beside
        "History of chondrosarcoma: …" → histology). The QA walks check a stated fact against these only: a
        single question box's own condition restates who reaches it."""
        branched: dict[str, set[str]] = {}
        children: dict[str, list[str]] = {}
        for e in self.edges.values():
            branched.setdefault(e.head, set()).update(c.key for c in e.constraints)
            children.setdefault(e.head, []).append(e.tail)

        def own(key: str) -> set[str]:
            node = self.nodes[key]
            if not node.content.rstrip().endswith("?"):
                return set()
            return {c.key for c in node.constraints} - branched.get(key, set())

        out: dict[str, set[str]] = {}
        for kids in children.values():
            boxes = sorted({k for k in kids if own(k)})
            for box in boxes:
                shared = own(box) & set().union(*(own(other) for other in boxes if other != box))
                if shared:
                    out.setdefault(box, set()).update(shared)
        return {k: sorted(v) for k, v in out.items()}

    def node_rows(self, clear_properties: Mapping[str, None]) -> list[dict[str, Any]]:
        rows = []
        contrast = self.contrast_keys()
        for node in self.nodes.values():
            typed = constraints_to_properties(node.constraints)
            props: dict[str, object] = {
                **clear_properties,
                **typed,
                "contrast_keys": contrast.get(node.key),  # unset on a box without such keys
                "guideline": self.guideline,
                "version": self.version,
                "key": node.key,
                "content": node.content,
                "constraints": canonical_constraints(node.constraints),
                "pages": sorted(node.pages),
                "page_titles": self.titles_of(node),  # unset without titles
                "box_ids": sorted(node.box_ids),
                "options": [] if node.is_decision else treatment_options(node.content),
                "option_details": [] if node.is_decision else option_details(node.content),
            }
            rows.append({"uid": node_uid(self.guideline, self.version, node.key), "props": props,
                         "decision": node.is_decision})
        return rows

    def titles_of(self, node: BuildNode) -> list[str] | None:
        """The titles of a node's pages, in the order of its ``pages`` ("" for a page without one); None when
        none of its pages has a title."""
        titles = [self.page_titles.get(page, "") for page in sorted(node.pages)]
        return titles if any(titles) else None

    def version_row(self, source_sha: str) -> dict[str, Any]:
        """Properties of the version's ``:GuidelineVersion`` node."""
        counts = self.counts()
        period = self.effective
        return {"uid": self.uid, "guideline": self.guideline, "version": self.version, "title": self.title,
                "effective_start": period.start if period else None, "effective_end": period.end if period else None,
                "source_sha": source_sha, "node_count": counts["nodes"], "relation_count": counts["relations"],
                "decision_count": counts["decision"]}

    def loop_arrows(self) -> frozenset[tuple[str, str]]:
        """The (head, tail) node keys of the arrows closing a loop (:func:`dkg.graph.loops.loop_arrows`)."""
        return loop_arrows(list(self.nodes), [(e.head, e.tail) for e in self.edges.values()])

    def relation_rows(self, clear_properties: Mapping[str, None]) -> list[dict[str, Any]]:
        rows = []
        loops = self.loop_arrows()
        for edge in self.edges.values():
            props = {
                **clear_properties,
                **constraints_to_properties(edge.constraints),
                "closes_loop": True if (edge.head, edge.tail) in loops else None,  # unset on other arrows
                "label": edge.label,
                "constraints": canonical_constraints(edge.constraints),
                "guideline": self.guideline,
                "version": self.version,
            }
            rows.append({
                "head": node_uid(self.guideline, self.version, edge.head),
                "tail": node_uid(self.guideline, self.version, edge.tail),
                "key": f"{self.uid}|{edge.key}",
                "props": props,
            })
        return rows


def _read_csv(path: Path, required: tuple[str, ...]) -> list[dict[str, str]]:
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in required if c not in (reader.fieldnames or [])]
            if missing:
                raise BuildError(f"{path}: missing column(s) {', '.join(missing)}; found {reader.fieldnames}")
            rows = []
            for line_no, row in enumerate(reader, start=2):
                if None in row or any(row.get(c) is None for c in required):
                    raise BuildError(f"{path}, line {line_no}: wrong number of fields")
                rows.append(row)
            return rows
    except UnicodeDecodeError as exc:
        raise BuildError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except csv.Error as exc:
        raise BuildError(f"{path}: malformed CSV: {exc}") from exc
    except OSError as exc:
        raise BuildError(f"cannot read {path}: {exc}") from exc


def _constraints(cell: str, where: str) -> list[Constraint]:
    try:
        return parse_constraints(cell)
    except ConstraintError as exc:
        raise BuildError(f"{where}: {exc}") from exc


def read_constrained_csv(path: Path, guideline: str, version: str, title: str = "",
                         edges_csv: Path | None = None, effective: EffectivePeriod | None = None) -> BuildInput:
    """Read the 4-column CSV (head, head_constraints, tail, tail_constraints).

    ``edges_csv`` (the parser's head–tail CSV, same rows in the same order) adds labels, pages and box ids.
    A ``label_constraints`` column, when present in either file, gives the arrow's own constraints.
    """
    rows = _read_csv(path, CONSTRAINED_COLUMNS)
    extra: list[dict[str, str]] = []
    if edges_csv is not None:
        extra = _read_csv(edges_csv, ("head", "tail"))
        if len(extra) != len(rows):
            raise BuildError(f"{edges_csv} has {len(extra)} rows but {path} has {len(rows)}; they must match")
    if not rows:
        raise BuildError(f"{path} has no rows: nothing to build")
    build = BuildInput(guideline, version, title, effective)
    for index, row in enumerate(rows):
        where = f"{path}, line {index + 2}"
        meta = extra[index] if extra else {}
        if meta and (normalise_content(meta["head"]) != normalise_content(row["head"])
                     or normalise_content(meta["tail"]) != normalise_content(row["tail"])):
            raise BuildError(f"{where}: row does not match line {index + 2} of {edges_csv}")
        page = meta.get("page", "") or row.get("page", "") or ""
        head = build.add_node(row["head"], _constraints(row["head_constraints"], where), where, page,
                              meta.get("head_box_id", "") or "")
        tail = build.add_node(row["tail"], _constraints(row["tail_constraints"], where), where, page,
                              meta.get("tail_box_id", "") or "")
        label = meta.get("label", "") or row.get("label", "") or ""
        label_constraints = row.get("label_constraints") or meta.get("label_constraints") or ""
        build.add_edge(head, tail, label, _constraints(label_constraints, where))
    return build


def read_constrained_json(path: Path, guideline: str, version: str, title: str = "",
                          effective: EffectivePeriod | None = None) -> BuildInput:
    """Read the JSON form written by `dkg extract --json-out` (typed constraints, labels, pages, box ids)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BuildError(f"cannot read {path} as JSON: {exc}") from exc
    if not isinstance(data, list) or not data:
        raise BuildError(f"{path}: expected a non-empty list of edges as written by `dkg extract --json-out`")
    build = BuildInput(guideline, version, title, effective)
    for index, item in enumerate(data):
        where = f"{path}, edge {index + 1}"
        try:
            def typed(field_name: str, item: dict = item, where: str = where) -> list[Constraint]:  # type: ignore[type-arg]
                return _constraints(",".join(c["text"] for c in item.get(field_name) or []), where)

            head = build.add_node(item["head"], typed("head_constraints"), where, item.get("page", ""),
                                  item.get("head_box_id", ""))
            tail = build.add_node(item["tail"], typed("tail_constraints"), where, item.get("page", ""),
                                  item.get("tail_box_id", ""))
            build.add_edge(head, tail, item.get("label", "") or "", typed("label_constraints"))
        except (KeyError, TypeError) as exc:
            raise BuildError(f"{where}: missing or malformed field ({exc})") from exc
    return build


def offer_rows(node_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One ``OFFERS`` row per treatment option of each action node in ``node_rows`` (from :meth:`node_rows`)."""
    return [{"uid": row["uid"], "node_index": i, "name": option.casefold(), "display": option}
            for i, row in enumerate(node_rows) for option in row["props"]["options"]]
