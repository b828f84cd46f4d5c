"""Onboarding: a guideline PDF → parsed edges → constraints (with proposed keys) → a draft for review.

Nothing is written to the graph until parsing and extraction have succeeded, and the draft is then created in
one transaction, so a failed onboarding leaves no draft fragments. Intermediate files (edge CSV, sidecar,
constrained CSV/JSON, review pictures) are kept in ``$DKG_HOME/onboard/<guideline>-<version>/``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dkg.config import Settings, get_settings
from dkg.constraints.io import ConstrainedEdge
from dkg.constraints.proposals import Condition, ProposedKey, branch, branch_condition, condition_of
from dkg.errors import BuildError
from dkg.graph.db import Graph
from dkg.graph.drafts import DraftItem, OnboardingError, create_draft, refuse_existing
from dkg.graph.model import node_key, normalise_content
from dkg.types import EffectivePeriod, InvalidNameError, path_under


@dataclass(frozen=True)
class OnboardReport:
    guideline: str
    version: str
    nodes: int
    edges: int
    constraints: int
    proposed_keys: list[str]
    work_dir: Path
    overlays: list[Path]

    @property
    def items(self) -> int:
        return self.nodes + self.edges + len(self.proposed_keys)


def draft_items_of(rows: Sequence[ConstrainedEdge]) -> list[DraftItem]:
    """Review items of extracted edges: one per box, one per arrow, one per proposed key.

    A box whose arrows are labelled YES / NO is a question: its condition (:func:`condition_of`, with a ``?``
    added when the box has none) goes onto those arrows, replacing what the extractor read in the box or the
    labels — a YES/NO answer is about the question it leaves. Any other box keeps the extractor's
    constraints or, when it has none, a numeric condition it states.
    """
    nodes: dict[str, DraftItem] = {}
    proposals: dict[str, ProposedKey] = {}
    key_of: dict[str, str] = {}

    def node(text: str, constraints: Sequence[object], page: str, box_id: str) -> DraftItem:
        content = normalise_content(text)
        # two boxes of the same text on a page ("CPR 2 min") are different steps: a box is known by its id
        key = f"{page}|{box_id}" if box_id else node_key(content)
        if key not in nodes:
            nodes[key] = DraftItem(f"n{len(nodes) + 1}", "node", content, [str(c) for c in constraints], page=page)
            key_of[nodes[key].item] = key
        return nodes[key]

    edges: list[tuple[str, str, str, list[str]]] = []
    for row in rows:
        head = node(row.edge.head, row.head_constraints, row.edge.page, row.edge.head_box_id)
        tail = node(row.edge.tail, row.tail_constraints, row.edge.page, row.edge.tail_box_id)
        if head.item == tail.item:
            continue
        label = normalise_content(row.edge.label)
        edges.append((key_of[head.item], key_of[tail.item], label,
                      [str(c) for c in row.label_constraints or []]))
    branched = {h for h, _, label, _ in edges if branch(label) is not None}
    questions: dict[str, Condition] = {}
    for key, item in nodes.items():
        if key in branched:
            text = item.content if item.content.endswith("?") else f"{item.content}?"
            condition = condition_of(item.content) or condition_of(text)
            if condition is not None:
                questions[key] = condition
                item.constraints = []
        elif not item.constraints:
            condition = condition_of(item.content)
            if condition is not None and condition.op != "=":  # an unanswered yes/no question constrains nobody
                item.constraints = [condition.text]
                if condition.proposal is not None:
                    proposals.setdefault(condition.proposal.name, condition.proposal)
    items: list[DraftItem] = list(nodes.values())
    seen: set[tuple[str, str, str]] = set()
    for head_key, tail_key, label, constraints in edges:
        if (head_key, tail_key, label.casefold()) in seen:
            continue
        seen.add((head_key, tail_key, label.casefold()))
        if head_key in questions and branch(label) is not None:
            on_branch = branch_condition(questions[head_key], label)
            constraints = [on_branch.text] if on_branch is not None else []
            if on_branch is not None and on_branch.proposal is not None:
                proposals.setdefault(on_branch.proposal.name, on_branch.proposal)
        items.append(DraftItem(f"e{len(items) - len(nodes) + 1}", "edge", label, constraints,
                               head=nodes[head_key].item, tail=nodes[tail_key].item))
    items += [DraftItem(f"k:{name}", "key", name, entry=json.dumps(p.entry(), sort_keys=True))
              for name, p in proposals.items()]
    return items


def onboard(graph: Graph, pdf: Path, guideline: str, version: str, *, pages: str | None = None,
            title: str = "", ocr: str = "auto", overlays: bool = True, settings: Settings | None = None,
            who: str | None = None, echo: Callable[[str], None] = print,
            effective: EffectivePeriod | None = None) -> OnboardReport:
    """Parse, extract and load ``pdf`` as a draft of ``guideline`` ``version`` (refused when it exists)."""
    from dkg.constraints.run import extract_file, open_extractor
    from dkg.graph.build_input import BuildInput
    from dkg.parsing import OCRMode, parse_pdf
    from dkg.parsing.output import write_csv, write_sidecar

    settings = settings or get_settings()
    BuildInput(guideline, version)  # names checked before any work
    graph.ensure_schema()
    refuse_existing(graph, guideline, version)
    if not pdf.is_file():
        raise OnboardingError(f"no PDF at {pdf}; give the path of the guideline PDF to onboard")
    try:
        work = path_under(settings.home / "onboard", f"{guideline}-{version}")
    except InvalidNameError as exc:
        raise BuildError(f"{guideline} {version}: {exc}") from exc
    work.mkdir(parents=True, exist_ok=True)
    echo(f"[{guideline} {version}] parsing {pdf.name}" + (f" pages {pages}" if pages else ""))
    result = parse_pdf(pdf, pages=pages, ocr=OCRMode(ocr))
    edges_csv = work / "edges.csv"
    rows = write_csv(result, edges_csv)
    write_sidecar(result, edges_csv.with_suffix(".json"))
    if rows == 0:
        raise OnboardingError(f"the parser found no arrows in {pdf}" + (f" pages {pages}" if pages else "")
                              + "; check the pages (--pages) hold a flowchart; nothing was written")
    pictures: list[Path] = []
    if overlays:
        from dkg.parsing.overlay import write_overlays

        pictures = write_overlays(result, work / "overlay")
    echo(f"  {rows} edges from {len(result.pages)} page(s); review pictures in {work / 'overlay'}")
    echo("extracting constraints (Stanford CoreNLP)")
    with open_extractor(settings) as extractor:
        extracted = extract_file(extractor, edges_csv, work / "constrained.csv", work / "constrained.json")
    items = draft_items_of(extracted)
    create_draft(graph, guideline, version, items, title=title or f"{guideline} (onboarded from {pdf.name})",
                 source=f"{pdf.name}" + (f" pages {pages}" if pages else ""), who=who, effective=effective)
    node_items = [i for i in items if i.kind == "node"]
    edge_items = [i for i in items if i.kind == "edge"]
    return OnboardReport(guideline, version, len(node_items), len(edge_items),
                         sum(len(i.constraints) for i in items),
                         [i.content for i in items if i.kind == "key"], work, pictures)
