"""Questions that name a step of the flowchart and ask what follows it.

A procedure page (decontaminate, then isolate, then notify …) has steps that lead on to other steps with no
patient condition between them, so a question about it states no patient facts: "after decontamination, what
next?", "what are the steps after the 12 lead ECG?". The walk of :mod:`dkg.qa.pathway` places a patient by the
facts stated and cannot place such a question. Here the step the question names is found among the guideline's
boxes by its words, and the answer is the steps its arrows lead to — all of them when the step fans out — each
with the label of its arrow (the route). Read-only queries of ``cypher/qa_steps.cypher``; thresholds in
:class:`NamedStepSettings`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from os.path import commonprefix
from typing import Any

from rapidfuzz import fuzz

from dkg.answers import Answer, Evidence
from dkg.graph.db import Graph, named_queries
from dkg.qa.populations import pages_by_population

# "after X, what next?" / "X done — next?" / "what comes after X?" / "what are the steps after X?": the named step
_CONNECTOR = r"\s*(?:[,;:.—–]|\s-)+\s*"
_ASK = r"(?:what|which|next|then|now|where|how)\b"
_DONE = (r"(?:(?:is|are|has been|have been|was|were)\s+)?"
         r"(?:done|given|complete|completed|finished|performed|started|over)")
STEP_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.IGNORECASE) for p in (
    rf"^(?:.*?[:;,]\s*)?(?:right |just |immediately )?(?:after|following|once|post)\s+(?P<step>.+?)\s*(?:{_DONE})?"
    rf"{_CONNECTOR}(?:.*?\b)?{_ASK}",
    r"\b(?:what|which)\s+(?:steps?\s+)?"
    r"(?:comes?|follows?|happens?|is|are|should (?:come|happen|be done)|do (?:we|i|you) do)"
    r"\s+(?:next\s+|then\s+)?(?:after|following)\s+(?P<step>.+?)\s*[?.!]*$",
    r"\bnext steps?\s+(?:after|following)\s+(?P<step>.+?)\s*[?.!]*$",
    r"\b(?:what|which)\s+(?:are|is)\s+the\s+(?:next\s+)?steps?\s+(?:after|following|of|for)\s+(?P<step>.+?)\s*[?.!]*$",
    r"\bwhat\s+follows\s+(?P<step>.+?)\s*[?.!]*$",
    rf"^(?:.*?[:;,]\s*)?(?P<step>[^:;,]+?)\s+{_DONE}{_CONNECTOR}(?:.*?\b)?{_ASK}",
))
# "X in adult tachycardia": the trailing clause says where X is, not what X is
_WHERE = re.compile(r"\s+(?:in|for|on|during|within)\s+(?:the\s+|a\s+|an\s+)?(?=\w)"
                    r"(?!.*\s(?:in|for|on|during|within)\s)", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOPWORDS = frozenset(
    "a an the of in on for to and or with without at by is are be been was were has have had it its this that these "
    "those step steps what which next then now do we i you should comes come follows follow after following once "
    "giving given starting started doing done performing performed complete completed finished patient pt check "
    "box question there".split())


@dataclass(frozen=True)
class NamedStepSettings:
    """How closely a question's words must name a box."""

    word_ratio: float = 85.0       # a question word counts as a box word at this rapidfuzz ratio (typos, plurals)
    min_named: float = 0.75        # share of the named step's words that must be in the box (all of 1 or 2 words)
    max_tied: int = 3              # more boxes tied for best than this: the step is too vague to name one


@dataclass(frozen=True)
class Box:
    uid: str
    content: str
    pages: tuple[str, ...]
    has_next: bool
    titles: tuple[str, ...] = ()
    """The titles of ``pages`` (same order; "" for a page without one)."""


def page_titles(boxes: list[Box]) -> dict[str, str]:
    """Page → its title, from the boxes' pages."""
    return {page: title for box in boxes for page, title in zip(box.pages, box.titles, strict=False) if title}


def pages_asked(question: str, titles: dict[str, str], pages: set[str]) -> set[str]:
    """The pages among ``pages`` the question points to by its population and the words of their titles
    ("Adult tachycardia: …" → the tachycardia page, not the paediatric one); all of ``pages`` when nothing
    tells them apart.

    >>> titles = {"4": "TACHYCARDIA w/ PULSE", "7": "PEDIATRIC TACHYCARDIA with Pulse and Poor Perfusion"}
    >>> sorted(pages_asked("Adult tachycardia: after cardioversion?", titles, {"4", "7"}))
    ['4']
    >>> sorted(pages_asked("SVT in a child: after adenosine?", titles, {"4", "7"}))
    ['7']
    >>> sorted(pages_asked("after cardioversion, what next?", titles, {"4", "7"}))
    ['4', '7']
    """
    own, other = pages_by_population(question, titles)
    said = set(words(question))

    def fit(page: str) -> tuple[int, int]:
        hits = sum(any(same_word(w, t, 85.0) for w in said) for t in set(words(titles.get(page, ""))))
        return (0 if page in other else 1 + (page in own), hits)

    if len(pages) < 2 or not any(titles.get(p) for p in pages):
        return set(pages)
    fits = {p: fit(p) for p in pages}
    best = max(fits.values())
    return {p for p, f in fits.items() if f == best}


def words(text: str) -> list[str]:
    """The content words of a text, lower-cased."""
    return [w for w in _WORD.findall(text.casefold()) if w not in STOPWORDS]


def named_step(question: str) -> str | None:
    """The step a question names and asks what follows, or None when it asks something else."""
    for pattern in STEP_PATTERNS:
        match = pattern.search(question.strip())
        if match:
            step = match.group("step").strip(" ,;:-—–")
            if words(step):
                return step
    return None


def same_word(a: str, b: str, ratio: float) -> bool:
    """One word written two ways: a typo or plural (rapidfuzz ratio), or one stem ('treating' / 'treat',
    'identified' / 'identify'; words run together by the parser, 'tachycardiaprobable')."""
    if a == b:
        return True
    if min(len(a), len(b)) < 4:
        return False
    common = len(commonprefix([a, b]))
    return fuzz.ratio(a, b) >= ratio or (common >= 4 and common >= min(len(a), len(b)) - 3)


def _hits(phrase: list[str], box: list[str], ratio: float) -> int:
    return sum(any(same_word(w, b, ratio) for b in box) for w in phrase)


def best_boxes(step: str, question: str, boxes: list[Box], settings: NamedStepSettings | None = None,
               preferred: set[str] | frozenset[str] = frozenset()) -> list[Box]:
    """The boxes ``step`` names best: most of its words in the box, then a box on a ``preferred`` page (one
    titled for the question's population), then the box least of whose words it leaves out, then the box whose
    page (its boxes and title) shares most of the question's other words; empty when none is named closely
    enough or too many tie."""
    settings = settings or NamedStepSettings()
    phrase = words(step)
    if not phrase:
        return []
    need = len(phrase) if len(phrase) <= 2 else settings.min_named * len(phrase)
    page_words: dict[str, set[str]] = {}
    for box in boxes:
        for page in box.pages:
            page_words.setdefault(page, set()).update(words(box.content))
    for page, title in page_titles(boxes).items():
        page_words.setdefault(page, set()).update(words(title))
    context = set(words(question)) - set(phrase)
    ranked: list[tuple[tuple[int, bool, float, int], Box]] = []
    for box in boxes:
        own = words(box.content)
        hits = _hits(phrase, own, settings.word_ratio)
        if not own or hits < need:
            continue
        covered = _hits(own, phrase, settings.word_ratio) / len(own)
        on_page = max((len(context & page_words[p]) for p in box.pages), default=0)
        ranked.append(((hits, bool(set(box.pages) & preferred), round(covered, 3), on_page), box))
    if not ranked:
        return []
    top = max(key for key, _ in ranked)
    tied = [box for key, box in ranked if key == top]
    return tied if len(tied) <= settings.max_tied else []


def answer_named_step(graph: Graph, question: str, guideline: str, version: str,
                      settings: NamedStepSettings | None = None, step: str | None = None) -> Answer | None:
    """The steps after the step ``question`` names (``step``, when the caller has read it already), as an
    :class:`Answer`; None when the question names no step of the guideline that leads anywhere (the caller then
    answers it as a patient question)."""
    step = step if step is not None else named_step(question)
    if step is None:
        return None
    queries = named_queries("qa_steps")
    params: dict[str, Any] = {"guideline": guideline, "version": version}
    boxes = [Box(str(r["uid"]), str(r["content"]), tuple(str(p) for p in r["pages"]), bool(r["has_next"]),
                 tuple(str(t) for t in r["page_titles"]))
             for r in graph.read(queries["step_boxes"], params)]
    titles = page_titles(boxes)
    # a step only on pages of the other population ("Adult …" and a PEDIATRIC page) is not the one named
    preferred, other = pages_by_population(question, titles)
    leading = [b for b in boxes if b.has_next and (not b.pages or set(b.pages) - other)]
    named = best_boxes(step, question, leading, settings, preferred)
    where = _WHERE.search(step)
    if not named and where is not None:
        named = best_boxes(step[:where.start()], question, leading, settings, preferred)
    if not named:
        return None
    params = {**params, "uids": [b.uid for b in named]}
    rows = graph.read(queries["steps_after"], params)
    # one step printed on two pages (an entry box shared by two algorithms) leads on to both: keep the asked page's
    asked = pages_asked(question, titles, {p for b in named for p in b.pages})
    rows = [r for r in rows if set(map(str, r.get("pages") or [])) & asked] or rows
    if not rows:
        return None
    evidence = [Evidence(node_uid=r["uid"], content=str(r["content"]), kind="Action", guideline=guideline,
                         version=version) for r in rows]
    return Answer(question=question, route="text2cypher", answer=steps_text(rows), cypher=queries["steps_after"],
                  cypher_params=params, rows=rows, matched_nodes=list(dict.fromkeys(str(r["uid"]) for r in rows)),
                  evidence=evidence)


def steps_text(rows: list[dict[str, Any]]) -> str:
    """'After "Aspirin …": 12 Lead ECG' — each next step with its arrow's label."""
    parts: dict[str, list[str]] = {}
    for row in rows:
        label = str(row.get("label") or "").strip()
        parts.setdefault(str(row["after"]), []).append(f"{row['content']}" + (f" (if {label})" if label else ""))
    return " ".join(f"After \"{after}\": {'; '.join(steps)}." for after, steps in parts.items())


__all__ = ["NamedStepSettings", "answer_named_step", "best_boxes", "named_step", "steps_text", "words"]
