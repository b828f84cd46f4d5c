"""Guideline revision: compare two versions and express the difference as constraint operations.

Two versions are aligned node by node: first by identical content, then, for boxes whose wording
changed, by their position in the flow (the same already-aligned predecessors and successors on the
same pages). The difference of aligned nodes becomes the minimal list of constraint ``set`` /
``remove`` operations (plus the new wording of a decision box whose constraints changed); anything
else (boxes or arrows added or removed, wording changes without a constraint change) is reported
separately as structural and is never applied.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from rapidfuzz import fuzz

from dkg.errors import CurationError
from dkg.graph.build_input import BuildInput
from dkg.graph.curation import ChangeRecord, Curator, PlannedChange
from dkg.graph.db import Graph, named_queries
from dkg.graph.model import canonical_constraints, node_uid
from dkg.types import Constraint


@dataclass(frozen=True)
class SnapshotNode:
    key: str
    content: str
    constraints: tuple[str, ...]
    pages: tuple[str, ...] = ()


@dataclass
class Snapshot:
    """A guideline version as plain data: comparable whatever it was read from."""

    guideline: str
    version: str
    nodes: dict[str, SnapshotNode] = field(default_factory=dict)
    relations: set[tuple[str, str, str, tuple[str, ...]]] = field(default_factory=set)

    @classmethod
    def from_input(cls, build: BuildInput) -> Snapshot:
        snap = cls(build.guideline, build.version)
        for n in build.nodes.values():
            snap.nodes[n.key] = SnapshotNode(n.key, n.content, tuple(canonical_constraints(n.constraints)),
                                             tuple(sorted(n.pages)))
        for e in build.edges.values():
            snap.relations.add((e.head, e.tail, e.label, tuple(canonical_constraints(e.constraints))))
        return snap

    @classmethod
    def from_graph(cls, graph: Graph, guideline: str, version: str) -> Snapshot:
        q = named_queries("revision")
        params = {"guideline": guideline, "version": version}
        snap = cls(guideline, version)
        for row in graph.read(q["snapshot_nodes"], params):
            snap.nodes[row["key"]] = SnapshotNode(row["key"], row["content"], tuple(row["constraints"] or ()),
                                                  tuple(sorted(row["pages"] or ())))
        if not snap.nodes:
            raise CurationError(f"the graph holds no guideline {guideline!r} version {version!r}; build it first")
        for row in graph.read(q["snapshot_relations"], params):
            snap.relations.add((row["head"], row["tail"], row["label"] or "", tuple(row["constraints"] or ())))
        return snap

    def content_view(self) -> tuple[frozenset[tuple[str, tuple[str, ...]]], frozenset[tuple[str, ...]]]:
        """Key-free view (content + constraints, relations by content) for comparing two graphs exactly."""
        nodes = frozenset((n.content, n.constraints) for n in self.nodes.values())
        rels = frozenset(
            (self.nodes[h].content, self.nodes[t].content, label, *constraints)
            for h, t, label, constraints in self.relations
        )
        return nodes, rels


@dataclass(frozen=True)
class ConstraintOp:
    op: Literal["set", "remove", "set_content"]
    node: str  # uid in the OLD version
    value: str  # a canonical constraint, or the new wording for set_content
    content: str = ""  # the node's old wording, for people reading the list


@dataclass
class Revision:
    guideline: str
    old_version: str
    new_version: str
    ops: list[ConstraintOp] = field(default_factory=list)
    structural: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps({"guideline": self.guideline, "from_version": self.old_version,
                           "to_version": self.new_version, "ops": [asdict(o) for o in self.ops],
                           "structural": self.structural}, indent=2, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str, where: str = "<ops>") -> Revision:
        try:
            data = json.loads(text)
            rev = cls(data["guideline"], data["from_version"], data["to_version"])
            for item in data["ops"]:
                if item["op"] not in ("set", "remove", "set_content"):
                    raise CurationError(f"{where}: unknown op {item['op']!r}; allowed: set, remove, set_content")
                rev.ops.append(ConstraintOp(item["op"], item["node"], item["value"], item.get("content", "")))
            rev.structural = list(data.get("structural", []))
        except (ValueError, KeyError, TypeError) as exc:
            raise CurationError(f"{where}: not a revision file written by `dkg diff --json` ({exc})") from exc
        return rev


def _neighbours(snap: Snapshot) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    preds: dict[str, set[str]] = {k: set() for k in snap.nodes}
    succs: dict[str, set[str]] = {k: set() for k in snap.nodes}
    for head, tail, _, _ in snap.relations:
        succs[head].add(tail)
        preds[tail].add(head)
    return preds, succs


def align(old: Snapshot, new: Snapshot) -> dict[str, str]:
    """Map old node keys to new node keys.

    Identical content first; then, repeatedly, a box whose already-aligned predecessors and successors
    (and pages) match exactly one new box; boxes that share such a position (siblings leading to the same
    steps) are paired by the similarity of their wording.
    """
    mapping = {k: k for k in old.nodes if k in new.nodes}
    old_preds, old_succs = _neighbours(old)
    new_preds, new_succs = _neighbours(new)
    Signature = tuple[frozenset[str], frozenset[str], tuple[str, ...]]

    def signature(key: str, snap: Snapshot, preds: dict[str, set[str]], succs: dict[str, set[str]],
                  translate: dict[str, str] | None) -> Signature:
        tr = (lambda k: translate.get(k, "?")) if translate is not None else (lambda k: k)
        return (frozenset(tr(p) for p in preds[key]), frozenset(tr(s) for s in succs[key]), snap.nodes[key].pages)

    progress = True
    while progress:
        progress = False
        reverse = {v: k for k, v in mapping.items()}
        new_groups: dict[Signature, list[str]] = {}
        for k in new.nodes:
            if k not in reverse:
                new_groups.setdefault(signature(k, new, new_preds, new_succs, None), []).append(k)
        old_groups: dict[Signature, list[str]] = {}
        for k in old.nodes:
            if k not in mapping:
                old_groups.setdefault(signature(k, old, old_preds, old_succs, mapping), []).append(k)
        for sig, olds in old_groups.items():
            news = list(new_groups.get(sig, []))
            known = sig[0] | sig[1]
            if not news or not known or "?" in known:
                continue
            pairs = sorted(((fuzz.ratio(old.nodes[o].content, new.nodes[n].content), o, n)
                            for o in olds for n in news), reverse=True)
            for score, o, n in pairs:
                if o in mapping or n in news and n in {mapping.get(x) for x in olds}:
                    continue
                if len(olds) == 1 and len(news) == 1 or score >= 60:
                    mapping[o] = n
                    progress = True
        if not progress:
            progress = _pair_by_wording(old, new, mapping, old_preds, old_succs, new_preds, new_succs)
    return mapping


def _pair_by_wording(old: Snapshot, new: Snapshot, mapping: dict[str, str], old_preds: dict[str, set[str]],
                     old_succs: dict[str, set[str]], new_preds: dict[str, set[str]],
                     new_succs: dict[str, set[str]]) -> bool:
    """Last resort for chains of reworded boxes: the most similar free pair on the same pages whose
    already-aligned neighbours agree. Returns True when it paired something."""
    taken = set(mapping.values())
    best: tuple[float, str, str] | None = None
    for o in old.nodes:
        if o in mapping:
            continue
        for n in new.nodes:
            if n in taken or old.nodes[o].pages != new.nodes[n].pages:
                continue
            known_preds = {mapping[p] for p in old_preds[o] if p in mapping}
            known_succs = {mapping[x] for x in old_succs[o] if x in mapping}
            if not known_preds <= new_preds[n] or not known_succs <= new_succs[n]:
                continue
            score = fuzz.ratio(old.nodes[o].content, new.nodes[n].content)
            if score >= 60 and (best is None or score > best[0]):
                best = (score, o, n)
    if best is None:
        return False
    mapping[best[1]] = best[2]
    return True


def diff(old: Snapshot, new: Snapshot) -> Revision:
    """The minimal constraint operations turning ``old`` into ``new``, plus structural differences."""
    if old.guideline != new.guideline:
        raise CurationError(f"cannot diff two different guidelines ({old.guideline} vs {new.guideline})")
    revision = Revision(old.guideline, old.version, new.version)
    mapping = align(old, new)
    for old_key, new_key in sorted(mapping.items(), key=lambda kv: old.nodes[kv[0]].content):
        a, b = old.nodes[old_key], new.nodes[new_key]
        uid = node_uid(old.guideline, old.version, old_key)
        if a.constraints == b.constraints:
            if a.content != b.content:
                revision.structural.append(f"wording changed without a constraint change: {a.content!r} -> "
                                           f"{b.content!r}")
            continue
        removed = [c for c in a.constraints if c not in b.constraints]
        added = [c for c in b.constraints if c not in a.constraints]
        revision.ops += [ConstraintOp("remove", uid, c, a.content) for c in removed]
        revision.ops += [ConstraintOp("set", uid, c, a.content) for c in added]
        if a.content != b.content:
            revision.ops.append(ConstraintOp("set_content", uid, b.content, a.content))
    unmatched_old = [k for k in old.nodes if k not in mapping]
    unmatched_new = set(new.nodes) - set(mapping.values())
    revision.structural += [f"box removed: {old.nodes[k].content!r}" for k in unmatched_old]
    revision.structural += [f"box added: {new.nodes[k].content!r}" for k in sorted(unmatched_new)]
    translated = {(mapping.get(h), mapping.get(t), label, c) for h, t, label, c in old.relations}
    for h, t, label, _c in sorted(new.relations - translated):
        if h in mapping.values() and t in mapping.values():
            revision.structural.append(f"arrow added or changed: {new.nodes[h].content[:50]!r} -> "
                                       f"{new.nodes[t].content[:50]!r} [{label}]")
    for old_h, old_t, label, _c in sorted(translated - new.relations, key=str):
        if old_h is not None and old_t is not None:
            revision.structural.append(f"arrow removed or changed: {new.nodes[old_h].content[:50]!r} -> "
                                       f"{new.nodes[old_t].content[:50]!r} [{label}]")
    return revision


def plan(curator: Curator, revision: Revision, reason: str) -> list[PlannedChange]:
    """Turn a revision's operations into one planned change per node (validated against the graph)."""
    by_node: dict[str, list[ConstraintOp]] = {}
    for op in revision.ops:
        by_node.setdefault(op.node, []).append(op)
    planned = []
    for uid, ops in by_node.items():
        node = curator.get(uid)
        current = list(node.constraints)
        for op in ops:
            if op.op == "remove":
                if op.value not in current:
                    raise CurationError(f"{uid} has no constraint {op.value!r} to remove (it has "
                                        f"{', '.join(current) or 'none'}); was the revision made for this graph?")
                current.remove(op.value)
        additions = [Constraint.parse(op.value) for op in ops if op.op == "set"]
        content = next((op.value for op in ops if op.op == "set_content"), None)
        constraints = [Constraint.parse(c) for c in current] + additions
        planned.append(curator.plan_replace(uid, constraints, reason, expected_rev=node.rev, content=content,
                                            op="revision"))
    return planned


def apply_revision(curator: Curator, revision: Revision, reason: str | None = None,
                   allow_structural: bool = False) -> list[ChangeRecord]:
    """Apply all operations of a revision in ONE transaction (each node change audited)."""
    if revision.structural and not allow_structural:
        raise CurationError(
            f"the revision has {len(revision.structural)} structural difference(s) that constraint updates "
            "cannot express (first: " + revision.structural[0] + "); rebuild the guideline instead, or pass "
            "--ignore-structural to apply only the constraint operations"
        )
    why = reason or f"revision {revision.old_version} -> {revision.new_version}"
    records = curator.apply(plan(curator, revision, why))
    curator.graph.write(named_queries("curation")["mark_revision"],
                        {"gv_uid": f"{revision.guideline}|{revision.old_version}", "to_version": revision.new_version})
    return records


def load_revision(path: Path) -> Revision:
    try:
        return Revision.from_json(path.read_text(encoding="utf-8"), str(path))
    except OSError as exc:
        raise CurationError(f"cannot read {path}: {exc}") from exc


def snapshots_equal(a: Snapshot, b: Snapshot) -> bool:
    return a.content_view() == b.content_view()


__all__: Sequence[str] = ["Snapshot", "Revision", "ConstraintOp", "align", "diff", "apply_revision", "plan",
                          "load_revision", "snapshots_equal"]
