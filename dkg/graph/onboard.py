"""Onboarding: a guideline PDF → parsed edges → constraints (with proposed keys) → a draft for review.

Nothing is written to the graph until parsing and extraction have succeeded, and the draft is then created in
one transaction, so a failed onboarding leaves no draft fragments. Constraints are kept only on keys in the
guideline's scope (:func:`dkg.vocabulary.keys_in_scope`): the domains the curator names, else those its
vocabulary file declares, else those whose cue words the document holds (:func:`dkg.vocabulary.detect_domains`).
Intermediate files (edge CSV, sidecar, constrained CSV/JSON, review pictures) are kept in
``$DKG_HOME/onboard/<guideline>-<version>/``.
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from dkg.config import Settings, get_settings
from dkg.constraints.io import ConstrainedEdge, write_outputs
from dkg.constraints.proposals import (
    Condition,
    ProposedKey,
    bare_comparison,
    branch,
    branch_condition,
    condition_of,
    on_question_key,
    question_name,
)
from dkg.errors import BuildError
from dkg.graph.db import Graph
from dkg.graph.drafts import DraftItem, OnboardingError, create_draft, refuse_existing
from dkg.graph.model import node_key, normalise_content
from dkg.types import Constraint, EffectivePeriod, InvalidNameError, path_under
from dkg.vocabulary import VocabularyError, check_domains, declared_domains, detect_domains, keys_in_scope

if TYPE_CHECKING:
    from dkg.parsing.models import ParseResult


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
    domains: tuple[str, ...] = ()
    domains_reason: str = ""
    left_out: list[str] = field(default_factory=list)
    """Constraints read on keys outside the guideline's domains, as ``text: constraint``; not in the draft."""

    @property
    def items(self) -> int:
        return self.nodes + self.edges + len(self.proposed_keys)


_PAGED_BOX_ID = re.compile(r"^p\d+-")


def draft_items_of(rows: Sequence[ConstrainedEdge]) -> list[DraftItem]:
    """Review items of extracted edges: one per box, one per arrow, one per proposed key.

    A box whose arrows are labelled YES / NO is a question: its condition (:func:`condition_of`, with a ``?``
    added when the box has none) goes onto those arrows, replacing what the extractor read in the box or the
    labels — a YES/NO answer is about the question it leaves. Any other box keeps the extractor's
    constraints or, when it has none, a numeric condition it states; when two or more such boxes answer one
    question box through unlabelled arrows ("QRS Width?" → "Narrow QRS? <0.12 Second", "Wide QRS? >0.12 Second"),
    their conditions are on the question's subject (``qrs_width<0.12``, ``qrs_width>0.12``: one key to bind). A box
    that states a comparison without naming what it compares ("<65 years") is read on the subject of the question
    box whose unlabelled arrow reaches it ("Age?" → ``age<65``). An arrow whose label states a comparison the
    extractor read nothing in carries it: named (``SBP <90``) or bare (``<65`` leaving "Age?": ``age<65``).
    """
    nodes: dict[str, DraftItem] = {}
    proposals: dict[str, ProposedKey] = {}
    key_of: dict[str, str] = {}

    def node(text: str, constraints: Sequence[object], page: str, box_id: str) -> DraftItem:
        content = normalise_content(text)
        # two boxes of the same text on a page ("CPR 2 min") are different steps: a box is known by its id, with
        # its page unless the parser's id names it ("p2-b4", the tail of an arrow another page's box links to it)
        key = (box_id if _PAGED_BOX_ID.match(box_id) else f"{page}|{box_id}") if box_id else node_key(content)
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
    stated: dict[str, Condition] = {}
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
                stated[key] = condition
    for head_key, tail_key, label, _ in edges:
        if head_key in branched or label or tail_key in stated:
            continue
        bare = None if nodes[tail_key].constraints else bare_comparison(question_name(nodes[head_key].content),
                                                                          nodes[tail_key].content)
        if bare is not None:
            stated[tail_key] = bare
    for question, tail_keys in _answers_of_questions(edges, nodes, branched, stated):
        for tail_key in tail_keys:
            stated[tail_key] = on_question_key(stated[tail_key], question)
    for key, condition in stated.items():
        nodes[key].constraints = [condition.text]
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
        elif label and not constraints:
            on_label = _label_comparison(nodes[head_key].content, label)
            if on_label is not None:
                constraints = [on_label.text]
                if on_label.proposal is not None:
                    proposals.setdefault(on_label.proposal.name, on_label.proposal)
        items.append(DraftItem(f"e{len(items) - len(nodes) + 1}", "edge", label, constraints,
                               head=nodes[head_key].item, tail=nodes[tail_key].item))
    items += [DraftItem(f"k:{name}", "key", name, entry=json.dumps(p.entry(), sort_keys=True))
              for name, p in proposals.items()]
    return items


def _label_comparison(head_box: str, label: str) -> Condition | None:
    """The comparison an arrow's label states: bare (``<65``) and read on the subject of the question box the
    arrow leaves (``Age?``), or named (``SBP <90``); None otherwise."""
    bare = bare_comparison(question_name(head_box), label)
    if bare is not None:
        return bare
    condition = condition_of(label)
    return condition if condition is not None and condition.op != "=" else None


def _answers_of_questions(edges: Sequence[tuple[str, str, str, list[str]]], nodes: dict[str, DraftItem],
                          branched: set[str], stated: dict[str, Condition]) -> list[tuple[str, list[str]]]:
    """(question subject, the boxes its unlabelled arrows reach that each state a comparison) of each question box
    (no YES/NO arrows) with at least two such answers: those comparisons bound the question's subject."""
    answers: dict[str, list[str]] = {}
    for head_key, tail_key, label, _ in edges:
        if head_key not in branched and not label and tail_key in stated and tail_key not in answers.get(head_key, []):
            answers.setdefault(head_key, []).append(tail_key)
    asked = ((question_name(nodes[head].content), tails) for head, tails in answers.items() if len(tails) >= 2)
    return [(question, tails) for question, tails in asked if question is not None]


def document_texts(result: ParseResult) -> list[str]:
    """Every text of a parsed document: boxes, page notes and footnotes (what domain cues are looked for in)."""
    return [t for page in result.pages for t in (*(b.text for b in page.boxes), *(n.text for n in page.notes),
                                                 *page.footnotes.values())]


def page_titles(result: ParseResult) -> dict[str, str]:
    """Page (as the edges name it: its printed code, else its number) → the flowchart title printed on it."""
    return {page.code or str(page.number): page.title for page in result.pages if page.title}


def choose_domains(guideline: str, texts: Iterable[str], named: Sequence[str] | None = None
                   ) -> tuple[tuple[str, ...], str]:
    """The domains a new draft of ``guideline`` is read in, and why: ``named`` by the curator (``none``: no
    domain), else the ones its vocabulary file declares, else those whose cue words ``texts`` hold."""
    if named is not None:
        names = tuple(n for n in named if n != "none")
        if "none" in named and names:
            raise OnboardingError(f"--domain none cannot be combined with {', '.join(names)}; give either")
        try:
            return check_domains(names), "named by the curator"
        except VocabularyError as exc:
            raise OnboardingError(f"{exc}; nothing was written") from exc
    declared = declared_domains(guideline)
    if declared:
        return declared, f"declared by the {guideline} vocabulary file"
    evidence = detect_domains(texts)
    chosen = tuple(e.domain for e in evidence if e.chosen)
    said = "; ".join(f"{e.domain}: {e.found} cue word(s) of {e.needed} needed"
                     + (f" ({', '.join(f'{c} ×{n}' for c, n in sorted(e.cues.items()))})" if e.cues else "")
                     for e in evidence)
    return chosen, f"from the document's words ({said or 'no domains defined'})"


def within_scope(rows: Sequence[ConstrainedEdge], keys: frozenset[str]
                 ) -> tuple[list[ConstrainedEdge], list[str]]:
    """``rows`` without constraints on keys outside ``keys``, and what was left out (``text: constraint``)."""
    left_out: list[str] = []

    def keep(text: str, found: list[Constraint] | None) -> list[Constraint] | None:
        if found is None:
            return None
        for c in found:
            if c.key not in keys and f"{text}: {c}" not in left_out:
                left_out.append(f"{text}: {c}")
        return [c for c in found if c.key in keys]

    kept = [replace(r, head_constraints=keep(r.edge.head, r.head_constraints) or [],
                    tail_constraints=keep(r.edge.tail, r.tail_constraints) or [],
                    label_constraints=keep(r.edge.label, r.label_constraints)) for r in rows]
    return kept, left_out


def _draft_from(graph: Graph, pdf: Path, guideline: str, version: str, work: Path, *, pages: str | None, title: str,
                ocr: str, overlays: bool, settings: Settings, who: str | None, echo: Callable[[str], None],
                effective: EffectivePeriod | None, domains: Sequence[str] | None) -> OnboardReport:
    """Parse ``pdf`` into ``work``, extract its constraints and load the draft (see :func:`onboard`)."""
    from dkg.constraints.run import extract_file, open_extractor
    from dkg.parsing import OCRMode, parse_pdf
    from dkg.parsing.output import write_csv, write_sidecar

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
    echo(f"  {rows} edges from {len(result.pages)} page(s)"
         + (f"; review pictures in {work / 'overlay'}" if overlays else ""))
    echo("extracting constraints (Stanford CoreNLP)")
    with open_extractor(settings) as extractor:
        extracted = extract_file(extractor, edges_csv, work / "constrained.csv", work / "constrained.json")
    chosen, reason = choose_domains(guideline, document_texts(result), domains)
    extracted, left_out = within_scope(extracted, keys_in_scope(guideline, chosen))
    if left_out:  # the kept intermediate files show what the draft holds
        write_outputs(extracted, work / "constrained.csv", work / "constrained.json")
    echo(f"  key domains: {', '.join(chosen) or 'none (general keys only)'}, {reason}")
    if left_out:
        echo(f"  left out {len(left_out)} constraint(s) on keys of other domains (onboard with --domain to keep "
             f"them): {'; '.join(left_out[:6])}{' …' if len(left_out) > 6 else ''}")
    items = draft_items_of(extracted)
    # the titles of a whole document's pages name it; a long list is cut (the curator can give --title)
    named = textwrap.shorten(" / ".join(dict.fromkeys(page_titles(result).values())), width=120, placeholder=" / …")
    create_draft(graph, guideline, version, items,
                 title=title or f"{named or guideline} (onboarded from {pdf.name})",
                 source=f"{pdf.name}" + (f" pages {pages}" if pages else ""), who=who, effective=effective,
                 domains=chosen, page_titles=page_titles(result))
    node_items = [i for i in items if i.kind == "node"]
    edge_items = [i for i in items if i.kind == "edge"]
    return OnboardReport(guideline, version, len(node_items), len(edge_items),
                         sum(len(i.constraints) for i in items),
                         [i.content for i in items if i.kind == "key"], work, pictures, chosen, reason, left_out)


def onboard(graph: Graph, pdf: Path, guideline: str, version: str, *, pages: str | None = None,
            title: str = "", ocr: str = "auto", overlays: bool = True, settings: Settings | None = None,
            who: str | None = None, echo: Callable[[str], None] = print,
            effective: EffectivePeriod | None = None, domains: Sequence[str] | None = None) -> OnboardReport:
    """Parse, extract and load ``pdf`` as a draft of ``guideline`` ``version`` (refused when it exists).

    ``domains``: the base key domains to read it in (``["none"]``: general keys only); None chooses them
    (:func:`choose_domains`)."""
    from dkg.graph.build_input import BuildInput

    settings = settings or get_settings()
    BuildInput(guideline, version)  # names checked before any work
    if domains is not None:
        choose_domains(guideline, [], domains)  # a bad --domain is refused before any work
    graph.ensure_schema()
    refuse_existing(graph, guideline, version)
    if not pdf.is_file():
        raise OnboardingError(f"no PDF at {pdf}; give the path of the guideline PDF to onboard")
    work = onboarding_folder(settings, guideline, version)
    # the parse, extract and review files of a failed onboarding are removed with it: nothing is left half-made
    fresh = not work.exists()
    work.mkdir(parents=True, exist_ok=True)
    try:
        return _draft_from(graph, pdf, guideline, version, work, pages=pages, title=title, ocr=ocr,
                           overlays=overlays, settings=settings, who=who, echo=echo, effective=effective,
                           domains=domains)
    except BaseException:
        if fresh:
            shutil.rmtree(work, ignore_errors=True)
        raise


def onboarding_folder(settings: Settings, guideline: str, version: str) -> Path:
    """The folder of a version's onboarding files (parse CSV, sidecar, constrained CSV, review pictures)."""
    try:
        return path_under(settings.home / "onboard", f"{guideline}-{version}")
    except InvalidNameError as exc:
        raise BuildError(f"{guideline} {version}: {exc}") from exc


def discard_onboarding(graph: Graph, guideline: str, version: str, *, settings: Settings | None = None,
                       who: str | None = None, reason: str = "") -> int:
    """Discard a draft (:func:`dkg.graph.drafts.discard`, audited) and its onboarding files; the version can then
    be onboarded again. Returns the items deleted."""
    from dkg.graph.drafts import discard

    folder = onboarding_folder(settings or get_settings(), guideline, version)
    items = discard(graph, guideline, version, who=who, reason=reason)
    shutil.rmtree(folder, ignore_errors=True)
    return items


def unpublish_version(graph: Graph, guideline: str, version: str, *, settings: Settings | None = None,
                      who: str | None = None, reason: str = "") -> int:
    """Unpublish a version (:func:`dkg.graph.drafts.unpublish`, atomic and audited) and forget its generated
    questions, so no model update trains on it. Returns the items of the draft it became."""
    from dkg.graph.drafts import unpublish
    from dkg.qa.generated import forget_generated

    items = unpublish(graph, guideline, version, who=who, reason=reason)
    forget_generated(settings or get_settings(), guideline, version)
    return items

