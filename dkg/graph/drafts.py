"""Draft guideline versions: loaded for review, invisible to clinicians, published atomically.

A draft is one ``:DraftVersion`` with one ``:DraftItem`` per box (``n1``…), arrow (``e1``…) and proposed
vocabulary key (``k:<name>``). Those labels are matched only by ``cypher/onboard.cypher``: every clinician read
path matches ``:Node`` / ``:GuidelineVersion``, so a draft is never part of an answer. Every review action
(accept / edit / reject) is a ``:ReviewAction`` audit record (who, when, why, before and after), like curation's
``:Change``. :func:`publish` refuses while any item is pending; otherwise it writes the accepted keys into the
guideline's vocabulary file and, in ONE transaction, builds the version through the builder's write path,
deletes the draft and records the action. :func:`unpublish` turns a published version back into a draft
(all items accepted) in one transaction.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from neo4j import ManagedTransaction

from dkg.errors import ConstraintError, CurationError
from dkg.graph.build_input import BuildInput
from dkg.graph.builder import write_versions
from dkg.graph.db import Graph, named_queries
from dkg.graph.model import node_key
from dkg.types import Constraint, EffectivePeriod, constraint_key
from dkg.vocabulary import (
    GUIDELINE_FILE,
    GUIDELINES_ROOT,
    VOCABULARY,
    NumericEntry,
    VocabularyError,
    base_units,
    check_unit,
    onboarded_guidelines,
    parse_file,
    reload_vocabulary,
)

PENDING, ACCEPTED, EDITED, REJECTED = "pending", "accepted", "edited", "rejected"
Action = Literal["accept", "edit", "reject"]
_STATUS_OF: dict[str, str] = {"accept": ACCEPTED, "edit": EDITED, "reject": REJECTED}
_CONSTRAINT_TEXT = re.compile(r"^(?P<key>[a-z][a-z0-9_]*)\s*(?:<=|>=|!=|<|>|=|\s+in\s+)\s*(?P<value>.+)$")


class OnboardingError(CurationError):
    """A draft cannot be created, reviewed, published or unpublished as asked (nothing was written)."""


class UnknownDraftError(OnboardingError):
    """No draft of that version, or no such item in the draft."""


class StaleReviewError(OnboardingError):
    """The item changed after the reviewer read it; the review was not applied."""


class PendingItemsError(OnboardingError):
    """Publishing was refused: some items are not reviewed yet."""


@dataclass
class DraftItem:
    """One reviewable part of a draft: a box (``node``), an arrow (``edge``) or a proposed key (``key``)."""

    item: str
    kind: Literal["node", "edge", "key"]
    content: str
    constraints: list[str] = field(default_factory=list)
    head: str = ""
    tail: str = ""
    page: str = ""
    entry: str = ""
    status: str = PENDING
    order: int = 0
    rev: int = 0

    def row(self) -> dict[str, Any]:
        """The item as stored (``text`` / ``conditions``: names no published node uses)."""
        return {"item": self.item, "kind": self.kind, "text": self.content, "conditions": self.constraints,
                "head": self.head, "tail": self.tail, "page": self.page, "entry": self.entry,
                "status": self.status, "order": self.order}

    @property
    def key_entry(self) -> dict[str, Any]:
        return dict(json.loads(self.entry)) if self.entry else {}


def _action(action: str, who: str | None, reason: str, before: Any = "", after: Any = "") -> dict[str, Any]:
    return {"id": uuid.uuid4().hex, "at": datetime.now(UTC).isoformat(), "action": action, "reason": reason,
            "who": who or os.environ.get("DKG_CURATOR") or getpass.getuser(),
            "before": before if isinstance(before, str) else json.dumps(before, sort_keys=True),
            "after": after if isinstance(after, str) else json.dumps(after, sort_keys=True)}


def _uid(guideline: str, version: str) -> str:
    return f"{guideline}|{version}"


def version_state(graph: Graph, guideline: str, version: str) -> tuple[bool, bool]:
    """(published, draft exists) of one guideline version."""
    row = graph.read(named_queries("onboard")["version_state"], {"uid": _uid(guideline, version)})[0]
    return bool(row["published"]), bool(row["draft"])


def refuse_existing(graph: Graph, guideline: str, version: str) -> None:
    """An :class:`OnboardingError` when the version is published or has a draft."""
    published, draft = version_state(graph, guideline, version)
    if published:
        raise OnboardingError(f"{guideline} {version} is already published; onboard it under a new version, or "
                              "`dkg unpublish` it first; nothing was written")
    if draft:
        raise OnboardingError(f"a draft of {guideline} {version} exists already; review it (`dkg review list`), "
                              "discard it (`dkg review discard`) or onboard under a new version; nothing was written")


def period_of(row: dict[str, Any]) -> EffectivePeriod | None:
    """The effective period of a draft or version row (``effective_start`` / ``effective_end``; None: undated)."""
    return EffectivePeriod.of_row(row.get("effective_start"), row.get("effective_end"))


def _create(tx: ManagedTransaction, guideline: str, version: str, title: str, source: str,
            items: Sequence[DraftItem], action: dict[str, Any], effective: EffectivePeriod | None = None,
            domains: Sequence[str] = (), page_titles: Mapping[str, str] | None = None) -> None:
    draft = {"draft_uid": _uid(guideline, version), "of_guideline": guideline, "of_version": version,
             "draft_title": title, "pdf_source": source, "key_domains": list(domains),
             "page_titles": json.dumps(dict(page_titles), sort_keys=True) if page_titles else None,
             "effective_start": effective.start if effective else None,
             "effective_end": effective.end if effective else None}
    rows = [{**it.row(), "order": i} for i, it in enumerate(items)]
    tx.run(named_queries("onboard")["create_draft"], draft=draft, items=rows, action=action).consume()


def create_draft(graph: Graph, guideline: str, version: str, items: Sequence[DraftItem], *, title: str = "",
                 source: str = "", who: str | None = None, effective: EffectivePeriod | None = None,
                 domains: Sequence[str] = (), page_titles: Mapping[str, str] | None = None) -> int:
    """Load a draft in one transaction (all items or nothing). Refuses a name/version that exists.

    ``domains``: the base key domains it was read in; written to the guideline's vocabulary file on publish.
    ``page_titles``: page → the flowchart title printed on it; published nodes keep their pages' titles."""
    BuildInput(guideline, version)  # checks the names
    graph.ensure_schema()
    refuse_existing(graph, guideline, version)
    action = _action("onboard", who, f"onboarded from {source}" if source else "onboarded",
                     after={"items": len(items)})
    graph.execute_write(lambda tx: _create(tx, guideline, version, title, source, items, action, effective,
                                           domains, page_titles))
    return len(items)


def draft_items(graph: Graph, guideline: str, version: str) -> list[DraftItem]:
    """The items of a draft in their order, or an :class:`OnboardingError` naming what exists."""
    rows = graph.read(named_queries("onboard")["draft_items"], {"uid": _uid(guideline, version)})
    if not rows:
        published, draft = version_state(graph, guideline, version)
        if not draft:
            drafts = ", ".join(f"{r['guideline']} {r['version']}" for r in list_drafts(graph)) or "none"
            raise UnknownDraftError(f"no draft of {guideline} {version}"
                                  + (f" (it is published: `dkg unpublish {guideline} {version}` makes it a draft "
                                     "again)" if published else "") + f"; drafts: {drafts}")
    return [DraftItem(item=r["item"], kind=r["kind"], content=r["content"] or "",
                      constraints=list(r["constraints"] or []), head=r["head"] or "", tail=r["tail"] or "",
                      page=r["page"] or "", entry=r["entry"] or "", status=r["status"], order=r["order"] or 0,
                      rev=r["rev"] or 0) for r in rows]


def list_drafts(graph: Graph) -> list[dict[str, Any]]:
    """Every draft: guideline, version, items, pending."""
    return [dict(r) for r in graph.read(named_queries("onboard")["drafts"])]


def review_history(graph: Graph, guideline: str, version: str) -> list[dict[str, Any]]:
    """The audit records of a version's onboarding and review, oldest first."""
    return [dict(r) for r in graph.read(named_queries("onboard")["review_history"],
                                        {"uid": _uid(guideline, version)})]


def check_constraint(text: str, proposed: Iterable[str]) -> str:
    """Canonical text of a draft constraint: a vocabulary key's is validated, a proposed key's only read."""
    match = _CONSTRAINT_TEXT.match(text.strip())
    if not match:
        raise OnboardingError(f"cannot read constraint {text!r}; write e.g. 'blood_glucose<70' or 'pulse_present=yes'")
    key = match["key"]
    if key in VOCABULARY:
        try:
            return str(Constraint.parse(text))
        except ConstraintError as exc:
            raise OnboardingError(str(exc)) from exc
    proposed = set(proposed)
    if key not in proposed:
        raise OnboardingError(f"unknown key {key!r} in {text!r}; use a vocabulary key "
                              f"({', '.join(sorted(VOCABULARY))}) or one proposed in this draft "
                              f"({', '.join(sorted(proposed)) or 'none'})")
    return re.sub(r"\s+", "", text) if " in " not in text else text.strip()


def _check_entry(name: str, entry: dict[str, Any], guideline: str) -> str:
    where = f"proposed key {name!r}"
    try:
        parsed = parse_file({"keys": {name: entry}}, where).keys[name]
        if isinstance(parsed, NumericEntry):
            check_unit(parsed.unit, name, where, base_units())
    except VocabularyError as exc:
        raise OnboardingError(str(exc)) from exc
    if name in VOCABULARY and VOCABULARY[name].source != guideline:
        owner = VOCABULARY[name].source
        raise OnboardingError(f"proposed key {name!r} clashes with the "
                              f"{'base' if owner == 'base' else repr(owner)} vocabulary; reject it and use that "
                              "key, or edit the constraints to another name")
    return json.dumps(entry, sort_keys=True)


def review(graph: Graph, guideline: str, version: str, item: str, action: Action, *, content: str | None = None,
           constraints: Sequence[str] | None = None, entry: dict[str, Any] | None = None, who: str | None = None,
           reason: str = "", expected_rev: int | None = None) -> DraftItem:
    """Accept, edit or reject one item; audited. An edit names what changes (content, constraints, entry).

    ``expected_rev``: the item revision the reviewer read; another one gets :class:`StaleReviewError`."""
    if action not in _STATUS_OF:
        raise OnboardingError(f"unknown review action {action!r}; use accept, edit or reject")
    items = draft_items(graph, guideline, version)
    by_id = {it.item: it for it in items}
    current = by_id.get(item)
    if current is None:
        raise UnknownDraftError(f"{guideline} {version} has no item {item!r}; items: "
                              f"{', '.join(list(by_id)[:12])}{' …' if len(by_id) > 12 else ''}")
    if expected_rev is not None and expected_rev != current.rev:
        raise StaleReviewError(f"{item} changed since you read it (revision {expected_rev}, now {current.rev}); "
                               "list the items again and retry; nothing was changed")
    if action == "edit" and content is None and constraints is None and entry is None:
        raise OnboardingError("an edit changes something: give the new text, constraints or key entry")
    proposed = [it.content for it in items if it.kind == "key" and it.status != REJECTED]
    new_constraints = current.constraints if constraints is None else [
        check_constraint(c, proposed) for c in constraints if c.strip()]
    new_entry = current.entry
    if entry is not None:
        if current.kind != "key":
            raise OnboardingError(f"{item} is a {current.kind}; only a proposed key (k:…) has a vocabulary entry")
        new_entry = _check_entry(current.content, entry, guideline)
    if current.kind == "key" and action != "reject":
        _check_entry(current.content, json.loads(new_entry), guideline)
    new_content = current.content if content is None or current.kind == "key" else " ".join(content.split())
    if current.kind == "node" and not new_content:
        raise OnboardingError(f"{item}: a box needs text")
    before = {"status": current.status, "content": current.content, "constraints": current.constraints,
              "entry": current.entry}
    after = {"status": _STATUS_OF[action], "content": new_content, "constraints": new_constraints,
             "entry": new_entry}
    record = _action(action, who, reason, before, after)
    rows = graph.write(named_queries("onboard")["review_item"], {
        "uid": _uid(guideline, version), "item": item, "expected_rev": current.rev, "status": _STATUS_OF[action],
        "content": new_content, "constraints": new_constraints, "entry": new_entry, "action": record})
    if not rows:
        raise StaleReviewError(f"{item} changed while you reviewed it; list the items again and retry")
    return DraftItem(**{**current.__dict__, "status": _STATUS_OF[action], "content": new_content,
                        "constraints": new_constraints, "entry": new_entry, "rev": int(rows[0]["rev"])})


def draft_page_titles(graph: Graph, guideline: str, version: str) -> tuple[dict[str, str], list[str]]:
    """(page → the flowchart title read on it, every page of the draft's boxes) of a draft."""
    _, titles, pages = _stored_page_titles(graph, guideline, version)
    return titles, pages


def _stored_page_titles(graph: Graph, guideline: str, version: str) -> tuple[str, dict[str, str], list[str]]:
    """The titles as stored (the JSON text a change must still find), parsed, and the pages of the draft's boxes."""
    rows = graph.read(named_queries("onboard")["draft_info"], {"uid": _uid(guideline, version)})
    if not rows:
        raise UnknownDraftError(f"no draft of {guideline} {version}; `dkg review drafts` lists the drafts")
    stored = rows[0]["page_titles"] or "{}"
    # a box printed on two pages (after unpublishing) names both: "3,4"
    pages = sorted({p for it in draft_items(graph, guideline, version) if it.kind == "node"
                    for p in it.page.split(",") if p}, key=_page_order)
    return stored, json.loads(stored), pages


def _page_order(page: str) -> tuple[int, str]:
    return (int(page), page) if page.isdigit() else (1 << 30, page)


def set_page_title(graph: Graph, guideline: str, version: str, page: str, title: str, *, who: str | None = None,
                   reason: str = "") -> dict[str, str]:
    """Set (or, with an empty ``title``, remove) the flowchart title of one page of a draft; audited. The title
    names the page's algorithm in answers and evidence and tells adult from paediatric pages apart, so a title the
    parser misread or missed is corrected here before publishing. Returns the draft's titles afterwards."""
    stored, titles, pages = _stored_page_titles(graph, guideline, version)
    page = page.strip()
    if page not in pages:
        raise OnboardingError(f"{guideline} {version} has no page {page!r}; its boxes are on pages "
                              f"{', '.join(pages) or 'none'}")
    new = " ".join(title.split())
    after = {**titles, page: new} if new else {p: t for p, t in titles.items() if p != page}
    if after == titles:
        return titles
    record = _action("title", who, reason, before={"page": page, "title": titles.get(page, "")},
                     after={"page": page, "title": new})
    rows = graph.write(named_queries("onboard")["review_page_title"], {
        "uid": _uid(guideline, version), "page": page, "action": record,
        "expected": stored, "titles": json.dumps(after, sort_keys=True) if after else None})
    if not rows:
        raise StaleReviewError(f"the page titles of {guideline} {version} changed while you reviewed them; list "
                               "them again and retry; nothing was changed")
    return after


def add_item(graph: Graph, guideline: str, version: str, kind: Literal["node", "edge", "key"], *, head: str = "",
             tail: str = "", label: str = "", constraints: Sequence[str] = (), name: str = "",
             entry: dict[str, Any] | None = None, text: str = "", page: str = "", who: str | None = None,
             reason: str = "") -> DraftItem:
    """Add what the parser or the proposer missed: a box (``text`` on a ``page`` of the draft, with its
    constraints), an arrow between two boxes of the draft (``head``/``tail`` item ids, a label, constraints) or a
    vocabulary key (``name`` and its entry). Audited as ``add``; the item is reviewed (status ``edited``) as it
    is added. A reason is required."""
    if not reason.strip():
        raise OnboardingError("say why the item is added (--reason): it is kept in the audit trail")
    items = draft_items(graph, guideline, version)
    by_id = {it.item: it for it in items}
    proposed = [it.content for it in items if it.kind == "key" and it.status != REJECTED]
    if kind == "node":
        content = " ".join(text.split())
        if not content:
            raise OnboardingError("a box needs its text (--text), as printed on the page")
        pages = sorted({it.page for it in items if it.kind == "node" and it.page}, key=_page_order)
        if pages and page not in pages:
            raise OnboardingError(f"page {page!r} is not a page of the draft of {guideline} {version} (its pages: "
                                  f"{', '.join(pages)}); say which page the box is on (--page)")
        number = 1 + max((int(it.item[1:]) for it in items if it.kind == "node" and it.item[1:].isdigit()),
                         default=0)
        new = DraftItem(f"n{number}", "node", content,
                        [check_constraint(c, proposed) for c in constraints if c.strip()], page=page, status=EDITED)
    elif kind == "edge":
        for end in (head, tail):
            if by_id.get(end) is None or by_id[end].kind != "node":
                raise UnknownDraftError(f"{guideline} {version} has no box {end!r}; an arrow joins two boxes (n…)")
        if head == tail:
            raise OnboardingError(f"an arrow joins two different boxes, not {head} to itself")
        number = 1 + max((int(it.item[1:]) for it in items if it.kind == "edge" and it.item[1:].isdigit()),
                         default=0)
        new = DraftItem(f"e{number}", "edge", " ".join(label.split()),
                        [check_constraint(c, proposed) for c in constraints if c.strip()], head=head, tail=tail,
                        status=EDITED)
    elif kind == "key":
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            raise OnboardingError(f"key name {name!r}: write lower_case letters, digits and _ (e.g. heart_rate)")
        if f"k:{name}" in by_id or name in VOCABULARY and VOCABULARY[name].source != guideline:
            raise OnboardingError(f"key {name!r} exists already (in this draft or a vocabulary); use it")
        new = DraftItem(f"k:{name}", "key", name, entry=_check_entry(name, dict(entry or {}), guideline),
                        status=EDITED)
    else:
        raise OnboardingError(f"can add a box (node), an arrow (edge) or a key, not {kind!r}")
    new.order = 1 + max((it.order for it in items), default=0)
    record = _action("add", who, reason, after={"item": new.item, "content": new.content, "head": new.head,
                                                "tail": new.tail, "page": new.page, "constraints": new.constraints,
                                                "entry": new.entry})
    rows = graph.write(named_queries("onboard")["add_item"], {"uid": _uid(guideline, version), "row": new.row(),
                                                              "action": record})
    if not rows:
        raise StaleReviewError(f"{new.item} was added by someone else meanwhile; list the items again and retry")
    new.rev = int(rows[0]["rev"])
    return new


def pending(items: Iterable[DraftItem]) -> list[DraftItem]:
    return [it for it in items if it.status == PENDING]


def build_input_of(guideline: str, version: str, title: str, items: Sequence[DraftItem],
                   effective: EffectivePeriod | None = None, page_titles: Mapping[str, str] | None = None
                   ) -> BuildInput:
    """The build input of a fully reviewed draft: rejected items left out, with their constraints and edges."""
    rejected_keys = {it.content for it in items if it.kind == "key" and it.status == REJECTED}

    def parsed(texts: Iterable[str], where: str) -> list[Constraint]:
        out = []
        for text in texts:
            match = _CONSTRAINT_TEXT.match(text)
            if match and match["key"] in rejected_keys:
                continue
            try:
                out.append(Constraint.parse(text))
            except ConstraintError as exc:
                raise OnboardingError(f"{where}: {exc}; edit or reject it") from exc
        return out

    build = BuildInput(guideline, version, title, effective, page_titles=dict(page_titles or {}))
    keys: dict[str, str] = {}
    kept = [it for it in items if it.kind == "node" and it.status != REJECTED]
    # a draft box is a step: boxes of one text on one page (three "Rhythm Shockable?" questions, each with its own
    # arrows) stay apart, as the parser and the review kept them; across pages one text is one step, which is how a
    # box continued on another page (a resolved "See page N" link) joins the page it points to
    texts = Counter((it.page, node_key(it.content)) for it in kept)
    for it in kept:
        twin = it.item if texts[(it.page, node_key(it.content))] > 1 else ""
        keys[it.item] = build.add_node(it.content, parsed(it.constraints, it.item), it.item, it.page, it.item, twin)
    for it in items:
        if it.kind == "edge" and it.status != REJECTED and it.head in keys and it.tail in keys:
            if keys[it.head] != keys[it.tail]:
                build.add_edge(keys[it.head], keys[it.tail], it.content, parsed(it.constraints, it.item))
    if not build.edges:
        raise OnboardingError(f"{guideline} {version}: no arrow is left after review; nothing to publish")
    return build


def _write_vocabulary(guideline: str, items: Sequence[DraftItem], root: Path, domains: Sequence[str] = ()
                      ) -> str | None:
    """Add the accepted keys (and the domains the draft was read in) to the guideline's vocabulary file, and the
    other guidelines' keys its accepted boxes and arrows use (``uses_keys``: a second bradycardia algorithm
    testing the cardiac charts' ``heart_rate``, so questions about it are read with that key), and reload;
    returns the old text (None: no file)."""
    accepted = {it.content: it.key_entry for it in items if it.kind == "key" and it.status != REJECTED}
    path = root / guideline / GUIDELINE_FILE
    old = path.read_text(encoding="utf-8") if path.is_file() else None
    data = (yaml.safe_load(old) if old else {}) or {}
    declared = list(dict.fromkeys([*data.get("uses_domains", []), *domains]))
    constrained = {constraint_key(c) for it in items if it.kind in ("node", "edge") and it.status != REJECTED
                   for c in it.constraints}
    borrowed = sorted(k for k in constrained - set(accepted)
                      if k in VOCABULARY and VOCABULARY[k].source not in ("base", guideline))
    used = list(dict.fromkeys([*data.get("uses_keys", []), *borrowed]))
    if not accepted and declared == data.get("uses_domains", []) and used == data.get("uses_keys", []):
        return old
    keys = data.pop("keys", None) or {}
    data.pop("uses_domains", None)
    data.pop("uses_keys", None)
    if declared:
        data["uses_domains"] = declared
    if used:
        data["uses_keys"] = used
    data["keys"] = {**keys, **{k: v for k, v in accepted.items() if k not in keys}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# Constraint keys of this guideline, accepted in onboarding review (dkg publish).\n"
                    + yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    try:
        reload_vocabulary(root=root)
    except VocabularyError:
        _restore_vocabulary(path, old, root)
        raise
    return old


def _restore_vocabulary(path: Path, old: str | None, root: Path) -> None:
    if old is None:
        path.unlink(missing_ok=True)
        if path.parent.is_dir() and not any(path.parent.iterdir()):
            path.parent.rmdir()
    else:
        path.write_text(old, encoding="utf-8")
    reload_vocabulary(root=root)


def _write_topic(guideline: str, title: str, root: Path, page_titles: Iterable[str] = ()) -> Path | None:
    """Write ``<root>/<guideline>/topic.yaml`` from the title and the guideline's keys when the folder of a
    guideline without YAML sources has none; returns the path written (None: nothing written)."""
    from dkg.corpus.model import VERSION_FILE
    from dkg.lexicon.topics import (
        ONBOARDED_TOPIC_FILE,
        guideline_topics,
        propose_onboarded_topic,
        reload_topics,
        write_onboarded_topic,
    )

    folder = root / guideline
    path = folder / ONBOARDED_TOPIC_FILE
    if path.is_file() or any(VERSION_FILE.match(p.name) for p in folder.glob("*.yaml")):
        return None
    own = [s for s in VOCABULARY.values() if s.source == guideline]
    wordings = [w for s in own for w in (*s.synonyms, *(w for v, ws in s.values.items() if v != "no" for w in ws))]
    taken = {w.lower() for s in VOCABULARY.values() if s.source != guideline
             for w in (*s.synonyms, *(w for ws in s.values.values() for w in ws))}
    taken |= {h for t in guideline_topics() for h in t.hints} | {n.alias.lower() for t in guideline_topics()
                                                                 for n in t.names}
    # a name another onboarded guideline's topic uses is this one's too: questions naming it are answered from
    # both, side by side (dkg/qa/side_by_side.py); one of a shipped guideline stays that guideline's
    onboarded = onboarded_guidelines(root)
    shared = frozenset(n.alias.lower() for t in guideline_topics() if t.guideline in onboarded and
                       t.guideline != guideline for n in t.names)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        write_onboarded_topic(path, propose_onboarded_topic(guideline, title, wordings, taken, list(page_titles),
                                                            shared))
        reload_topics()
    except BaseException:  # the caller cannot remove a file it was never told of
        path.unlink(missing_ok=True)
        reload_topics()
        raise
    return path


def publish(graph: Graph, guideline: str, version: str, *, who: str | None = None, reason: str = "",
            vocabulary_root: Path = GUIDELINES_ROOT) -> BuildInput:
    """Make a reviewed draft visible in one transaction; refused while any item is pending."""
    items = draft_items(graph, guideline, version)
    waiting = pending(items)
    if waiting:
        raise PendingItemsError(
            f"{guideline} {version} has {len(waiting)} unresolved review item(s) "
            f"({', '.join(it.item for it in waiting[:8])}{' …' if len(waiting) > 8 else ''}); accept, edit or "
            "reject each (`dkg review list` shows them) before publishing; nothing was published")
    info = graph.read(named_queries("onboard")["draft_info"], {"uid": _uid(guideline, version)})[0]
    path = vocabulary_root / guideline / GUIDELINE_FILE
    old = _write_vocabulary(guideline, items, vocabulary_root, info["domains"] or ())
    topic: Path | None = None
    try:
        titles: dict[str, str] = json.loads(info["page_titles"] or "{}")
        topic = _write_topic(guideline, info["title"] or "", vocabulary_root, titles.values())
        build = build_input_of(guideline, version, info["title"] or "", items, period_of(info), titles)
        record = _action("publish", who, reason, after=build.counts())
        q = named_queries("onboard")

        def work(tx: ManagedTransaction) -> None:
            write_versions(tx, [build], {build.uid: build.source_sha()}, fresh=frozenset({build.uid}))
            tx.run(q["mark_published"], uid=build.uid, source=info["source"] or "", at=record["at"],
                   who=record["who"]).consume()
            tx.run(q["delete_draft"], uid=build.uid).consume()
            tx.run(q["record_action"], uid=build.uid, action=record).consume()

        graph.execute_write(work)
    except BaseException:
        if topic is not None:
            topic.unlink(missing_ok=True)
            from dkg.lexicon.topics import reload_topics
            reload_topics()
        _restore_vocabulary(path, old, vocabulary_root)
        raise
    return build


def discard(graph: Graph, guideline: str, version: str, *, who: str | None = None, reason: str = "") -> int:
    """Delete a draft and all its items in one transaction, audited (the audit trail stays): a draft of the wrong
    pages, or one a curator gives up, so that the version can be onboarded again. Returns the items deleted; an
    :class:`UnknownDraftError` when there is no such draft (a published version has none until it is
    unpublished)."""
    items = draft_items(graph, guideline, version)
    record = _action("discard", who, reason, before={"items": len(items), "pending": len(pending(items))})
    q = named_queries("onboard")
    uid = _uid(guideline, version)

    def work(tx: ManagedTransaction) -> int:
        rows = tx.run(q["discard_draft"], uid=uid).data()
        if not rows:  # published or discarded since the items were read: the audit record is rolled back too
            raise UnknownDraftError(f"no draft of {guideline} {version} any more (published or discarded meanwhile); "
                                    "nothing was deleted")
        tx.run(q["record_action"], uid=uid, action=record).consume()
        return int(rows[0]["items"])

    return graph.execute_write(work)


def unpublish(graph: Graph, guideline: str, version: str, *, who: str | None = None, reason: str = "") -> int:
    """Take a published version out of clinicians' view, back into a draft (items accepted), in one transaction."""
    published, draft = version_state(graph, guideline, version)
    if not published:
        raise OnboardingError(f"{guideline} {version} is not published; nothing to unpublish")
    if draft:
        raise OnboardingError(f"a draft of {guideline} {version} exists already; publish it or discard it "
                              "(`dkg review discard`) first")
    q = named_queries("onboard")
    uid = _uid(guideline, version)
    info = graph.read(q["published_info"], {"uid": uid})[0]
    items: list[DraftItem] = []
    node_item: dict[str, str] = {}
    page_titles: dict[str, str] = {}
    for row in graph.read(q["published_nodes"], {"uid": uid}):
        page_titles.update((p, t) for p, t in zip(row["pages"] or [], row["page_titles"] or [], strict=False) if t)
        node_item[row["key"]] = f"n{len(node_item) + 1}"
        items.append(DraftItem(node_item[row["key"]], "node", row["content"], list(row["constraints"] or []),
                               page=",".join(row["pages"] or []), status=ACCEPTED))
    for n, row in enumerate(graph.read(q["published_edges"], {"uid": uid}), start=1):
        items.append(DraftItem(f"e{n}", "edge", row["label"] or "", list(row["constraints"] or []),
                               head=node_item[row["head"]], tail=node_item[row["tail"]], status=ACCEPTED))
    record = _action("unpublish", who, reason, before={"items": len(items)})

    def work(tx: ManagedTransaction) -> None:
        tx.run(q["delete_published"], uid=uid).consume()
        tx.run(q["delete_orphan_treatments"]).consume()
        _create(tx, guideline, version, info["title"] or "", info["source"] or "", items, record, period_of(info),
                page_titles=page_titles)

    graph.execute_write(work)
    return len(items)
