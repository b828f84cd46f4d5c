"""Curators' constraint changes: validated, audited, versioned, reversible.

Every change is one write transaction that updates the node's typed constraint properties,
increments its ``rev`` and creates a ``(:Change)-[:CHANGED]->(node)`` audit record holding who,
when, why, and the constraints (and wording) before and after. A change is based on the revision
the curator read (``expected_rev``); if the node changed in between, the change is refused and
nothing is written (optimistic concurrency). The transaction takes the node's write lock before it
compares revisions, so of several changes based on one revision exactly one commits. A change that
would leave the node as it is writes nothing and is returned with ``op`` :data:`UNCHANGED`.
"""

from __future__ import annotations

import getpass
import os
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from neo4j import ManagedTransaction

from dkg.errors import ConstraintError, CurationError
from dkg.graph.db import Graph, named_queries
from dkg.graph.model import (
    canonical_constraints,
    constraint_property_names,
    constraints_to_properties,
    option_details,
    refuse_two_bounds_on_one_side,
    treatment_options,
)
from dkg.types import Constraint, parse_constraints

UNCHANGED = "unchanged"
"""The ``op`` of the record returned for a change that would leave the node as it is: nothing was written."""


class UnknownNodeError(CurationError):
    """No node has the given id, or a match is ambiguous."""


class UnknownChangeError(CurationError):
    """No audit record has the given change id."""


class StaleChangeError(CurationError):
    """The node changed after the curator read it; the change was not applied."""


@dataclass(frozen=True)
class NodeSnapshot:
    uid: str
    content: str
    constraints: list[str]
    rev: int
    guideline: str
    version: str
    pages: list[str]
    labels: list[str]


@dataclass(frozen=True)
class ChangeRecord:
    id: str
    node_uid: str
    op: str
    before: list[str]
    after: list[str]
    rev_before: int
    rev_after: int
    who: str = ""
    at: str = ""
    reason: str = ""
    before_content: str | None = None
    after_content: str | None = None
    rolls_back: str | None = None


@dataclass
class PlannedChange:
    """A change to apply: the node, the revision it is based on, the new constraints (and wording)."""

    uid: str
    expected_rev: int
    constraints: list[Constraint]
    op: str
    reason: str
    content: str | None = None
    rolls_back: str | None = None
    before: list[str] = field(default_factory=list)
    before_content: str = ""

    @property
    def is_noop(self) -> bool:
        """True when applying the change would leave the node as it is."""
        same_wording = self.content is None or self.content == self.before_content
        return same_wording and canonical_constraints(self.constraints) == canonical_constraints(
            _constraint_list(self.before))


def current_user() -> str:
    return os.environ.get("DKG_USER") or getpass.getuser()


def _constraint_list(items: Iterable[str | Constraint]) -> list[Constraint]:
    out: list[Constraint] = []
    for item in items:
        out.extend([item] if isinstance(item, Constraint) else parse_constraints(item))
    return out


class Curator:
    """Constraint curation on one graph, on behalf of one person."""

    def __init__(self, graph: Graph, who: str | None = None) -> None:
        self.graph = graph
        self.who = who or current_user()
        self.q = named_queries("curation")

    # ---- reading ----------------------------------------------------------------------------
    def get(self, uid: str, tx: ManagedTransaction | None = None) -> NodeSnapshot:
        """The node as it is now (read in ``tx`` when given, else in a read transaction of its own)."""
        params = {"uid": uid}
        rows = tx.run(self.q["node_by_uid"], params).data() if tx else self.graph.read(self.q["node_by_uid"], params)
        if not rows:
            raise UnknownNodeError(f"no node with id {uid!r}; find ids with `dkg constraint find TEXT`")
        return NodeSnapshot(**rows[0])

    def find(self, text: str, guideline: str | None = None, version: str | None = None,
             page: str | None = None) -> list[NodeSnapshot]:
        rows = self.graph.read(self.q["find_nodes"], {"text": text, "guideline": guideline, "version": version,
                                                      "page": page})
        return [NodeSnapshot(**row) for row in rows]

    def resolve(self, node: str, guideline: str | None = None, version: str | None = None,
                page: str | None = None) -> NodeSnapshot:
        """A node by uid, or by a unique case-insensitive match on its content (and page)."""
        if node.count("|") == 2:
            return self.get(node)
        matches = self.find(node, guideline, version, page)
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise UnknownNodeError(f"no node's content contains {node!r}"
                                   + (f" on page {page}" if page else ""))
        listing = "\n".join(f"  {m.uid}  {m.content[:70]}" for m in matches[:10])
        raise UnknownNodeError(f"{len(matches)} nodes match {node!r}; give the id or narrow with --page/"
                               f"--guideline/--version:\n{listing}")

    def history(self, uid: str) -> list[ChangeRecord]:
        self.get(uid)
        return [ChangeRecord(node_uid=uid, **row) for row in self.graph.read(self.q["history"], {"uid": uid})]

    # ---- planning ---------------------------------------------------------------------------
    def _base(self, uid: str, expected_rev: int | None) -> NodeSnapshot:
        node = self.get(uid)
        if expected_rev is not None and expected_rev != node.rev:
            self._raise_stale(node, expected_rev)
        return node

    def plan_set(self, uid: str, constraints: Sequence[str | Constraint], reason: str,
                 expected_rev: int | None = None, content: str | None = None) -> PlannedChange:
        """Add constraints; an added constraint replaces the node's constraints on the same key."""
        return self._planned_set(self._base(uid, expected_rev), constraints, reason, content)

    def _planned_set(self, node: NodeSnapshot, constraints: Sequence[str | Constraint], reason: str,
                     content: str | None) -> PlannedChange:
        new = _constraint_list(constraints)
        if not new:
            raise CurationError("nothing to set: give at least one constraint such as 'age<65'")
        keys = {c.key for c in new}
        kept = [c for c in _constraint_list(node.constraints) if c.key not in keys]
        return self._plan(node, kept + new, "set", reason, content)

    def plan_remove(self, uid: str, targets: Sequence[str], reason: str, expected_rev: int | None = None,
                    content: str | None = None) -> PlannedChange:
        """Remove constraints: a bare key removes all its constraints, a constraint text removes that one."""
        return self._planned_remove(self._base(uid, expected_rev), targets, reason, content)

    def _planned_remove(self, node: NodeSnapshot, targets: Sequence[str], reason: str,
                        content: str | None) -> PlannedChange:
        current = _constraint_list(node.constraints)
        remaining = list(current)
        for target in targets:
            target = target.strip()
            if any(op in target for op in "<>=!≥≤≠") or " in " in target:
                wanted = canonical_constraints(_constraint_list([target]))
                before = len(remaining)
                remaining = [c for c in remaining if canonical_constraints([c]) != wanted]
                if len(remaining) == before:
                    raise CurationError(f"{node.uid} has no constraint {target!r}; it has: "
                                        f"{', '.join(node.constraints) or 'none'}")
            else:
                if not any(c.key == target for c in remaining):
                    raise CurationError(f"{node.uid} has no constraint on {target!r}; it has: "
                                        f"{', '.join(node.constraints) or 'none'}")
                remaining = [c for c in remaining if c.key != target]
        return self._plan(node, remaining, "remove", reason, content)

    def plan_update(self, uid: str, old: str, new: str, reason: str, expected_rev: int | None = None,
                    content: str | None = None) -> PlannedChange:
        """Replace one existing constraint by another."""
        return self._planned_update(self._base(uid, expected_rev), old, new, reason, content)

    def _planned_update(self, node: NodeSnapshot, old: str, new: str, reason: str,
                        content: str | None) -> PlannedChange:
        wanted = canonical_constraints(_constraint_list([old]))
        current = _constraint_list(node.constraints)
        remaining = [c for c in current if canonical_constraints([c]) != wanted]
        if len(remaining) == len(current):
            raise CurationError(f"{node.uid} has no constraint {old!r} to update; it has: "
                                f"{', '.join(node.constraints) or 'none'}")
        return self._plan(node, remaining + _constraint_list([new]), "update", reason, content)

    def plan_replace(self, uid: str, constraints: Sequence[str | Constraint], reason: str,
                     expected_rev: int | None = None, content: str | None = None, op: str = "replace",
                     rolls_back: str | None = None) -> PlannedChange:
        node = self._base(uid, expected_rev)
        return self._plan(node, _constraint_list(constraints), op, reason, content, rolls_back)

    def _plan(self, node: NodeSnapshot, constraints: list[Constraint], op: str, reason: str,
              content: str | None, rolls_back: str | None = None) -> PlannedChange:
        if not reason or not reason.strip():
            raise CurationError("every change needs a reason (--reason \"...\"), it goes into the audit trail")
        try:
            refuse_two_bounds_on_one_side(constraints)
            constraints_to_properties(constraints)
        except ConstraintError as exc:
            raise CurationError(f"{node.uid}: {exc}") from exc
        if content is not None and not content.strip():
            raise CurationError("the new wording (--content) is empty")
        return PlannedChange(node.uid, node.rev, constraints, op, reason.strip(), content, rolls_back,
                             before=list(node.constraints), before_content=node.content)

    # ---- applying ---------------------------------------------------------------------------
    def _params(self, change: PlannedChange) -> dict[str, Any]:
        canonical = canonical_constraints(change.constraints)
        props: dict[str, Any] = {
            **dict.fromkeys(constraint_property_names()),
            **constraints_to_properties(change.constraints),
            "constraints": canonical,
        }
        if change.content is not None:
            props["content"] = change.content
            props["options"] = [] if canonical else treatment_options(change.content)
            props["option_details"] = [] if canonical else option_details(change.content)
        return {
            "uid": change.uid,
            "expected_rev": change.expected_rev,
            "props": props,
            "change": {
                "id": str(uuid.uuid4()),
                "at": datetime.now(UTC).isoformat(),
                "who": self.who,
                "reason": change.reason,
                "op": change.op,
                "before": change.before,
                "after": canonical,
                "before_content": change.before_content,
                "after_content": change.content if change.content is not None else change.before_content,
                "rolls_back": change.rolls_back,
            },
        }

    def _raise_stale(self, node: NodeSnapshot, expected_rev: int) -> None:
        latest = self.graph.read(self.q["latest_change"], {"uid": node.uid})
        by = f" by {latest[0]['who']} at {latest[0]['at']}" if latest else ""
        raise StaleChangeError(
            f"{node.uid} changed since you read it (you based your change on revision {expected_rev}, it is now "
            f"revision {node.rev}{by}); nothing was written. Check `dkg history {node.uid}` and retry."
        )

    def _lock(self, tx: ManagedTransaction, uid: str) -> None:
        """Take the node's write lock for the rest of ``tx``: revisions read after it cannot go stale."""
        tx.run(self.q["lock_node"], {"uid": uid}).consume()

    def _write_locked(self, tx: ManagedTransaction, change: PlannedChange) -> _Written:
        """Write ``change`` (the node's lock is held); a change that would leave the node as it is writes
        nothing (no audit record, no new revision)."""
        if change.is_noop:
            return _Written(change.expected_rev, "", datetime.now(UTC).isoformat().replace("+00:00", "Z"))
        p = self._params(change)
        row = tx.run(self.q["apply_change"], p).single()
        if row is None:
            raise _Stale(p["uid"], p["expected_rev"])
        return _Written(row["rev"], row["id"], row["at"])

    def _write(self, tx: ManagedTransaction, change: PlannedChange) -> _Written:
        """Lock the node, then compare its revision and write, so two changes based on one revision
        cannot both commit."""
        self._lock(tx, change.uid)
        if change.is_noop and self.get(change.uid, tx).rev != change.expected_rev:
            raise _Stale(change.uid, change.expected_rev)
        return self._write_locked(tx, change)

    def apply(self, changes: Sequence[PlannedChange]) -> list[ChangeRecord]:
        """Apply planned changes in ONE transaction: all are written, or (stale node) none is."""
        try:
            done = self.graph.execute_write(lambda tx: [self._write(tx, c) for c in changes])
        except _Stale as stale:
            self._raise_stale(self.get(stale.uid), stale.expected_rev)
            raise  # pragma: no cover  (_raise_stale always raises)
        return self._records(changes, done)

    def _records(self, changes: Sequence[PlannedChange], done: Sequence[_Written]) -> list[ChangeRecord]:
        return [
            ChangeRecord(id=w.id, node_uid=c.uid, op=UNCHANGED if c.is_noop else c.op, before=c.before,
                         after=canonical_constraints(c.constraints), rev_before=c.expected_rev, rev_after=w.rev,
                         who=self.who, at=w.at, reason=c.reason, before_content=c.before_content,
                         after_content=c.content or c.before_content, rolls_back=c.rolls_back)
            for c, w in zip(changes, done, strict=True)
        ]

    def _read_plan_write(self, uid: str, expected_rev: int | None,
                         plan: Callable[[NodeSnapshot], PlannedChange]) -> ChangeRecord:
        """Lock the node, read it, plan and write the change in ONE write transaction: the revision
        compared with ``expected_rev`` is the one the change is written on."""

        def work(tx: ManagedTransaction) -> tuple[PlannedChange, _Written]:
            self._lock(tx, uid)
            node = self.get(uid, tx)
            if expected_rev is not None and expected_rev != node.rev:
                raise _Stale(uid, expected_rev)
            change = plan(node)
            return change, self._write_locked(tx, change)

        try:
            change, done = self.graph.execute_write(work)
        except _Stale as stale:
            self._raise_stale(self.get(stale.uid), stale.expected_rev)
            raise  # pragma: no cover  (_raise_stale always raises)
        return self._records([change], [done])[0]

    def set(self, uid: str, constraints: Sequence[str | Constraint], reason: str, expected_rev: int | None = None,
            content: str | None = None) -> ChangeRecord:
        return self._read_plan_write(uid, expected_rev,
                                     lambda node: self._planned_set(node, constraints, reason, content))

    def remove(self, uid: str, targets: Sequence[str], reason: str, expected_rev: int | None = None,
               content: str | None = None) -> ChangeRecord:
        return self._read_plan_write(uid, expected_rev,
                                     lambda node: self._planned_remove(node, targets, reason, content))

    def update(self, uid: str, old: str, new: str, reason: str, expected_rev: int | None = None,
               content: str | None = None) -> ChangeRecord:
        return self._read_plan_write(uid, expected_rev,
                                     lambda node: self._planned_update(node, old, new, reason, content))

    def rollback(self, change_id: str, reason: str = "") -> ChangeRecord:
        """Restore exactly the constraints (and wording) a change replaced, as a new audited change."""
        rows = self.graph.read(self.q["change_by_id"], {"id": change_id})
        if not rows:
            raise UnknownChangeError(f"no change with id {change_id!r}; see `dkg history NODE` for ids")
        change = rows[0]
        node = self.get(change["node_uid"])
        if node.rev != change["rev_after"]:
            later = [h.id for h in self.history(node.uid) if h.rev_after > change["rev_after"]]
            raise StaleChangeError(
                f"{node.uid} changed after change {change_id} (now revision {node.rev}); roll back the later "
                f"change(s) first, newest first: {', '.join(reversed(later))}"
            )
        content = change["before_content"] if change["before_content"] != node.content else None
        planned = self.plan_replace(node.uid, change["before"], reason or f"rollback of {change_id}",
                                    expected_rev=node.rev, content=content, op="rollback", rolls_back=change_id)
        return self.apply([planned])[0]


class _Written(NamedTuple):
    rev: int
    id: str
    at: str


class _Stale(Exception):
    def __init__(self, uid: str, expected_rev: int) -> None:
        super().__init__(uid)
        self.uid = uid
        self.expected_rev = expected_rev
