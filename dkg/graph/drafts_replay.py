"""Review decisions kept as data (``datasets/guidelines/<name>/review-<version>.yaml``) and replayed on a draft.

A review file records what a curator decided about a draft: keys and arrows to add, then per item an edit
(text, constraints, a key's entry) or a rejection, each with its reason, and what to do with every item no
decision names (``rest: accept``). Each decision names the item and the start of the text it had when it was
reviewed (``expect``): a replay on a draft that a changed parser produced stops at the first item that no longer
matches, naming it, instead of reviewing the wrong box. Every replayed action is audited like a hand review.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dkg.config import PROJECT_ROOT, Settings
from dkg.graph.db import Graph, named_queries
from dkg.graph.drafts import PENDING, OnboardingError, add_item, draft_items, publish, review, version_state
from dkg.graph.onboard import onboard
from dkg.vocabulary import GUIDELINE_FILE, GUIDELINES_ROOT, reload_vocabulary

REVIEW_FILE = "review-{version}.yaml"


class AddedEdge(BaseModel):
    model_config = ConfigDict(extra="forbid")

    head: str
    tail: str
    label: str = ""
    constraints: list[str] = Field(default_factory=list)
    reason: str = Field(min_length=1)


class Additions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    keys: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """New vocabulary keys by name (entries as in a vocabulary file)."""
    keys_reason: str = "added in review"
    edges: list[AddedEdge] = Field(default_factory=list)


class Decision(BaseModel):
    model_config = ConfigDict(extra="forbid")

    item: str
    expect: str
    action: Literal["edit", "reject", "accept"] = "edit"
    text: str | None = None
    constraints: list[str] | None = None
    entry: dict[str, Any] | None = None
    reason: str = Field(min_length=1)


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


def replay(graph: Graph, recorded: ReviewFile, *, echo: Callable[[str], None] = print) -> int:
    """Apply a recorded review to its draft (keys and arrows added, decisions, then the rest); returns the
    number of actions. Refused before any change when an item is missing or its text is not the expected one."""
    g, v, who = recorded.guideline, recorded.version, recorded.who
    items = {it.item: it for it in draft_items(graph, g, v)}
    for decision in recorded.decisions:
        current = items.get(decision.item)
        if current is None:
            raise OnboardingError(f"review file of {g} {v}: the draft has no item {decision.item!r}; the parser "
                                  "output changed since the review was recorded: review the draft again")
        if not current.content.startswith(decision.expect):
            raise OnboardingError(
                f"review file of {g} {v}: {decision.item} reads {current.content[:60]!r}, not "
                f"{decision.expect!r}…; the parser output changed since the review was recorded: review the draft "
                "again; nothing was replayed")
    for end in [e.head for e in recorded.add.edges] + [e.tail for e in recorded.add.edges]:
        if end not in items or items[end].kind != "node":
            raise OnboardingError(f"review file of {g} {v}: an added arrow ends at {end!r}, which is not a box of "
                                  "the draft; review the draft again")
    actions = 0
    for name, entry in recorded.add.keys.items():
        if f"k:{name}" not in items:
            add_item(graph, g, v, "key", name=name, entry=entry, who=who, reason=recorded.add.keys_reason)
            actions += 1
    for edge in recorded.add.edges:
        add_item(graph, g, v, "edge", head=edge.head, tail=edge.tail, label=edge.label,
                 constraints=edge.constraints, who=who, reason=edge.reason)
        actions += 1
    for decision in recorded.decisions:
        review(graph, g, v, decision.item, decision.action, content=decision.text, constraints=decision.constraints,
               entry=decision.entry, who=who, reason=decision.reason)
        actions += 1
    if recorded.rest == "accept":
        for item in draft_items(graph, g, v):
            if item.status == PENDING:
                review(graph, g, v, item.item, "accept", who=who, reason="accepted as read (review file)")
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
