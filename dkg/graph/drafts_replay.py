"""Review decisions kept as data (``datasets/guidelines/<name>/review-<version>.yaml``) and replayed on a draft.

A review file records what a curator decided about a draft: keys, boxes and arrows to add, then per item an edit
(text, constraints, a key's entry) or a rejection, each with its reason, and what to do with every item no
decision names (``rest: accept``). A decision names its item by what it is, never by the draft's running number
(``n12``, ``e5`` change whenever the parser adds or drops an arrow): a box by its text (and, when the draft has
two boxes of that text, its page or a box next to it), an arrow by its two boxes' texts (and its label), a
proposed key by its name. Every reference is resolved before any change: one that matches no item, or more than
one, stops the replay naming it, instead of reviewing the wrong box. Every replayed action is audited like a
hand review.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from dkg.config import PROJECT_ROOT, Settings
from dkg.graph.db import Graph, named_queries
from dkg.graph.drafts import (
    PENDING,
    DraftItem,
    OnboardingError,
    add_item,
    draft_items,
    draft_page_titles,
    publish,
    review,
    set_page_title,
    version_state,
)
from dkg.graph.model import normalise_content
from dkg.graph.onboard import onboard
from dkg.vocabulary import GUIDELINE_FILE, GUIDELINES_ROOT, reload_vocabulary

REVIEW_FILE = "review-{version}.yaml"


def _same_text(a: str, b: str) -> bool:
    return normalise_content(a).casefold() == normalise_content(b).casefold()


class BoxRef(BaseModel):
    """A box named by its text (whitespace and case aside); ``page``, ``after`` (the text of a box with an arrow
    into it), ``before`` (the text of a box it has an arrow to) and ``no_arrow_in`` (no arrow of the draft leads
    into it) tell apart two boxes of one text."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    page: str | None = None
    after: str | None = None
    before: str | None = None
    no_arrow_in: bool | None = None

    @model_validator(mode="before")
    @classmethod
    def _text_alone(cls, value: Any) -> Any:
        return {"text": value} if isinstance(value, str) else value

    def describe(self) -> str:
        where = [f"page {self.page}" if self.page else "", f"after {self.after!r}" if self.after else "",
                 f"before {self.before!r}" if self.before else "",
                 "" if self.no_arrow_in is None else f"{'no' if self.no_arrow_in else 'an'} arrow in"]
        return f"box {self.text!r}" + "".join(f", {w}" for w in where if w)


class EdgeRef(BaseModel):
    """An arrow named by its boxes and, when given (``""``: no label), its label."""

    model_config = ConfigDict(extra="forbid")

    head: BoxRef
    tail: BoxRef
    label: str | None = None

    def describe(self) -> str:
        label = "" if self.label is None else f" labelled {self.label!r}"
        return f"arrow from {self.head.describe()} to {self.tail.describe()}{label}"


class AddedEdge(BaseModel):
    model_config = ConfigDict(extra="forbid")

    head: BoxRef
    tail: BoxRef
    label: str = ""
    constraints: list[str] = Field(default_factory=list)
    reason: str = Field(min_length=1)


class AddedBox(BaseModel):
    """A box the parser missed, as printed on the page; arrows added below may name it by its text."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    page: str
    constraints: list[str] = Field(default_factory=list)
    reason: str = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _page_as_text(cls, value: Any) -> Any:
        if isinstance(value, dict) and isinstance(value.get("page"), int):
            return {**value, "page": str(value["page"])}
        return value


class Additions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    keys: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """New vocabulary keys by name (entries as in a vocabulary file)."""
    keys_reason: str = "added in review"
    boxes: list[AddedBox] = Field(default_factory=list)
    edges: list[AddedEdge] = Field(default_factory=list)


class Decision(BaseModel):
    """One reviewed item, named by exactly one of ``box``, ``edge`` or ``key``."""

    model_config = ConfigDict(extra="forbid")

    box: BoxRef | None = None
    edge: EdgeRef | None = None
    key: str | None = None
    action: Literal["edit", "reject", "accept"] = "edit"
    text: str | None = None
    constraints: list[str] | None = None
    entry: dict[str, Any] | None = None
    reason: str = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _no_draft_numbers(cls, value: Any) -> Any:
        if isinstance(value, dict) and ("item" in value or "expect" in value):
            raise ValueError(f"names its item by the draft's running number ({value.get('item')!r}), which changes "
                             "when the parser adds or drops an arrow; name it by content instead: `box: <text>`, "
                             "`edge: {head: <text>, tail: <text>, label: <label>}` or `key: <name>`")
        return value

    @model_validator(mode="after")
    def _one_reference(self) -> Decision:
        named = [n for n, v in (("box", self.box), ("edge", self.edge), ("key", self.key)) if v is not None]
        if len(named) != 1:
            raise ValueError(f"a decision names exactly one of box, edge or key; this one names "
                             f"{', '.join(named) or 'none'}")
        return self

    def describe(self) -> str:
        if self.box is not None:
            return self.box.describe()
        if self.edge is not None:
            return self.edge.describe()
        return f"proposed key {self.key!r}"


class ReviewFile(BaseModel):
    """One guideline version's recorded review."""

    model_config = ConfigDict(extra="forbid")

    guideline: str
    version: str
    pdf: str
    pages: str | None = None
    title: str = ""
    who: str = "curator-replay"
    rest: Literal["accept", "keep"] = "accept"
    add: Additions = Field(default_factory=Additions)
    decisions: list[Decision] = Field(default_factory=list)
    page_titles: dict[str, str] = Field(default_factory=dict, description="page → the flowchart title the "
                                        "reviewer set ('' removes a title the parser read)")


def load_review(path: Path) -> ReviewFile:
    """A validated review file; :class:`OnboardingError` names the file and the problem."""
    try:
        return ReviewFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise OnboardingError(f"cannot read review file {path}: {exc}") from exc
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise OnboardingError(f"{path} is not valid UTF-8 YAML: {exc}") from exc
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise OnboardingError(f"{path}: {problems}") from exc


def review_files(root: Path) -> list[Path]:
    """Every recorded review under a guidelines folder (``<name>/review-<version>.yaml``), sorted."""
    return sorted(root.glob("*/review-*.yaml"))


class DraftIndex:
    """A draft's items looked up by content: the one box, arrow or key a reference names."""

    def __init__(self, items: list[DraftItem]) -> None:
        self.items = {it.item: it for it in items}
        self.boxes = [it for it in items if it.kind == "node"]
        self.edges = [it for it in items if it.kind == "edge"]

    def _text(self, item_id: str) -> str:
        return self.items[item_id].content if item_id in self.items else ""

    def boxes_of(self, ref: BoxRef) -> list[DraftItem]:
        found = [b for b in self.boxes if _same_text(b.content, ref.text) and (ref.page is None or b.page == ref.page)]
        if ref.after is not None:
            found = [b for b in found if any(e.tail == b.item and _same_text(self._text(e.head), ref.after)
                                             for e in self.edges)]
        if ref.before is not None:
            found = [b for b in found if any(e.head == b.item and _same_text(self._text(e.tail), ref.before)
                                             for e in self.edges)]
        if ref.no_arrow_in is not None:
            found = [b for b in found if ref.no_arrow_in != any(e.tail == b.item for e in self.edges)]
        return found

    def edges_of(self, ref: EdgeRef) -> list[DraftItem]:
        heads = {b.item for b in self.boxes_of(ref.head)}
        tails = {b.item for b in self.boxes_of(ref.tail)}
        return [e for e in self.edges if e.head in heads and e.tail in tails
                and (ref.label is None or _same_text(e.content, ref.label))]

    def matches(self, decision: Decision) -> list[DraftItem]:
        if decision.box is not None:
            return self.boxes_of(decision.box)
        if decision.edge is not None:
            return self.edges_of(decision.edge)
        return [self.items[f"k:{decision.key}"]] if f"k:{decision.key}" in self.items else []


def _one(found: list[DraftItem], what: str, g: str, v: str) -> DraftItem:
    if len(found) == 1:
        return found[0]
    if not found:
        raise OnboardingError(f"review file of {g} {v}: the draft has no {what}; the parser output changed since the "
                              "review was recorded, or the reference is misspelt: review the draft again; nothing "
                              "was replayed")
    ids = ", ".join(f"{it.item} ({it.page or 'no page'})" for it in found)
    raise OnboardingError(f"review file of {g} {v}: {len(found)} items of the draft match the {what}: {ids}; tell them "
                          "apart with the box's `page`, `after` (a box with an arrow into it), `before` (a box it "
                          "points to) or `no_arrow_in: true`, or an arrow's `label`; nothing was replayed")


def resolve(recorded: ReviewFile, items: list[DraftItem]) -> tuple[list[str], list[tuple[str, str]]]:
    """The draft item id of every decision and the box ids of every added arrow, in file order (``+N``: the N-th
    added box, which has no id before it is added); an :class:`OnboardingError` for the first reference that
    matches no item or more than one."""
    g, v = recorded.guideline, recorded.version
    index = DraftIndex(items)
    decided = [_one(index.matches(d), d.describe(), g, v).item for d in recorded.decisions]
    with_added = DraftIndex(items + [DraftItem(f"+{n}", "node", b.text, page=b.page)
                                     for n, b in enumerate(recorded.add.boxes)])
    twice = sorted({i for i in decided if decided.count(i) > 1})
    if twice:
        raise OnboardingError(f"review file of {g} {v}: two decisions name the same draft item ("
                              f"{', '.join(index.items[i].content[:40] or i for i in twice)}); keep one; nothing was "
                              "replayed")
    ends = [(_one(with_added.boxes_of(e.head), "added arrow's head " + e.head.describe(), g, v).item,
             _one(with_added.boxes_of(e.tail), "added arrow's tail " + e.tail.describe(), g, v).item)
            for e in recorded.add.edges]
    return decided, ends


def replay(graph: Graph, recorded: ReviewFile, *, echo: Callable[[str], None] = print) -> int:
    """Apply a recorded review to its draft (keys and arrows added, decisions, then the rest); returns the
    number of actions. Refused before any change when a reference matches no item of the draft or several."""
    g, v, who = recorded.guideline, recorded.version, recorded.who
    items = draft_items(graph, g, v)
    decided, ends = resolve(recorded, items)
    _, pages = draft_page_titles(graph, g, v)
    if unknown := sorted(set(map(str, recorded.page_titles)) - set(pages)):
        raise OnboardingError(f"the review file sets the title of page(s) {', '.join(unknown)}, which the draft of "
                              f"{g} {v} does not have (its pages: {', '.join(pages)}); nothing was changed")
    known = {it.item for it in items}
    actions = 0
    for name, entry in recorded.add.keys.items():
        if f"k:{name}" not in known:
            add_item(graph, g, v, "key", name=name, entry=entry, who=who, reason=recorded.add.keys_reason)
            actions += 1
    added: dict[str, str] = {}
    for n, box in enumerate(recorded.add.boxes):
        added[f"+{n}"] = add_item(graph, g, v, "node", text=box.text, page=box.page, constraints=box.constraints,
                                  who=who, reason=box.reason).item
        actions += 1
    for edge, (head, tail) in zip(recorded.add.edges, ends, strict=True):
        add_item(graph, g, v, "edge", head=added.get(head, head), tail=added.get(tail, tail), label=edge.label,
                 constraints=edge.constraints, who=who, reason=edge.reason)
        actions += 1
    for decision, item in zip(recorded.decisions, decided, strict=True):
        review(graph, g, v, item, decision.action, content=decision.text, constraints=decision.constraints,
               entry=decision.entry, who=who, reason=decision.reason)
        actions += 1
    for page, title in recorded.page_titles.items():
        set_page_title(graph, g, v, str(page), title, who=who, reason="page title set in the review file")
        actions += 1
    if recorded.rest == "accept":
        for it in draft_items(graph, g, v):
            if it.status == PENDING:
                review(graph, g, v, it.item, "accept", who=who, reason="accepted as read (review file)")
                actions += 1
    echo(f"replayed the review of {g} {v}: {actions} action(s) by {who}")
    return actions


def _vocabulary_without(guideline: str, root: Path, into: Path) -> Path:
    """A copy of the guideline vocabularies under ``root`` without ``guideline``'s own file, in ``into``: the
    draft is onboarded as if new, so it proposes the same keys as when it was first reviewed."""
    for path in root.glob(f"*/{GUIDELINE_FILE}"):
        if path.parent.name != guideline:
            (into / path.parent.name).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, into / path.parent.name / GUIDELINE_FILE)
    return into


def onboard_reviewed(graph: Graph, review_path: Path, *, settings: Settings | None = None, work: Path,
                     echo: Callable[[str], None] = print) -> ReplayReport:
    """PDF → draft → recorded review → published version, from a review file (the demo's fourth guideline).

    A version already loaded (published or drafted) is removed first, so the run is repeatable. Onboarding and
    publishing use a copy of the vocabularies without this guideline's own file (``work``/vocabulary), so the
    draft proposes what it proposed when the review was recorded; the published vocabulary is compared with
    the shipped file (``matches_shipped``) and stays loaded for answering in this process."""
    recorded = load_review(review_path)
    g, v = recorded.guideline, recorded.version
    uid = f"{g}|{v}"
    q = named_queries("onboard")
    published, draft = version_state(graph, g, v)
    if published or draft:
        graph.write(q["delete_published"], {"uid": uid})
        graph.write(q["delete_draft"], {"uid": uid})
        graph.write(q["delete_orphan_treatments"])
    vocabulary_root = _vocabulary_without(g, GUIDELINES_ROOT, work / "vocabulary")
    reload_vocabulary(root=vocabulary_root)
    start = time.perf_counter()
    pdf = PROJECT_ROOT / recorded.pdf
    report = onboard(graph, pdf, g, v, pages=recorded.pages, title=recorded.title, overlays=False,
                     settings=settings, who=recorded.who, echo=echo)
    onboarded = time.perf_counter()
    actions = replay(graph, recorded, echo=echo)
    build = publish(graph, g, v, who=recorded.who, reason=f"review replayed from {review_path.name}",
                    vocabulary_root=vocabulary_root)
    done = time.perf_counter()
    written = (vocabulary_root / g / GUIDELINE_FILE).read_text(encoding="utf-8")
    shipped = GUIDELINES_ROOT / g / GUIDELINE_FILE
    same = shipped.is_file() and yaml.safe_load(shipped.read_text(encoding="utf-8")) == yaml.safe_load(written)
    return ReplayReport(g, v, report.nodes, report.edges, actions, build.counts(), onboarded - start,
                        done - onboarded, same)


@dataclass(frozen=True)
class ReplayReport:
    """What :func:`onboard_reviewed` did, with its wall times in seconds."""

    guideline: str
    version: str
    boxes: int
    arrows: int
    actions: int
    counts: dict[str, int]
    onboard_seconds: float
    review_publish_seconds: float
    matches_shipped: bool
