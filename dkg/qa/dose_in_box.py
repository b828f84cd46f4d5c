"""Questions asking a dose that a chart box gives: "Pacing her now, she is uncomfortable. What can I give for
sedation and how much?", "max atropine dose?".

Oncology pathways recommend regimens, not doses, and a dosing question about them is out of scope. Emergency
flowcharts print doses in their boxes ("Transcutaneous Pacing (Consider sedation: Midazolam 2-5mg IV / IO)"):
there the box is the answer, quoted as the chart prints it. A box *doses* the words that stand shortly before a
dose in it (a number with a unit of :data:`DOSE`, in the same clause); the asked sentences must share such a
word with the box ("sedation", "midazolam", "atropine"), compared by Porter stems, the lexicon's shorthand read as
what it stands for ("epi dose?": epinephrine). The boxes sharing the most of
those words, then the most words of the whole question, answer, narrowed to the pages the question points to
by its population ("4 yo": the paediatric page); a dose no box doses ("alteplase dose for stroke?") stays out
of scope. A regular expression finds doses because only their presence is needed, not their quantities (the
answer quotes the box; no unit is converted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from dkg.answers import Answer, Evidence
from dkg.graph.db import named_queries
from dkg.lexicon.clinical import asked_part, asks_dose
from dkg.qa.guideline_words import content_words, question_words
from dkg.qa.named_step import Box, page_titles, pages_asked
from dkg.qa.populations import pages_by_population
from dkg.qa.stems import porter_stem

# a dose as charts print it: "1mg", "2-5mg", "0.1mg/kg", "0.5-1J/kg", "(MAX 3mg)", "300 mg", "20 mcg/kg/min"
DOSE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:\s*[-\u2013]\s*\d+(?:\.\d+)?)?\s*"
                  r"(?:mg|mcg|\u00b5g|ug|g|meq|units?|iu|ml|j|joules?)(?:\s*/\s*(?:kg|min|hr?|dose))*(?![a-z])",
                  re.IGNORECASE)
_WORD = re.compile(r"[a-z][a-z-]*[a-z]")
# where a clause ends: "If no IV / IO access or adenosine fails Synchronized Cardioversion 1st 0.5-1J/kg" doses
# the cardioversion, not the adenosine
_CLAUSE_END = re.compile(r"[.;!?\u2022]|\b(?:or|then|if|unless|fails?|failed|ineffective)\b", re.IGNORECASE)


@dataclass(frozen=True)
class DoseSettings:
    """Which words before a dose it doses, and the words no question shares to ask a dose."""

    # the words of the clause at most this many words before a dose ("Atropine IV / IO 1mg": atropine)
    words_before: int = 6
    min_letters: int = 3  # "NTG 0.4mg"
    # the form of a dose, not what is dosed: route, repetition, limits, asking
    not_dosed: frozenset[str] = frozenset({
        "dose", "doses", "dosing", "max", "maximum", "repeat", "rapid", "push", "over", "minute", "minutes", "give",
        "given", "consider", "bolus", "infusion", "slow", "total", "every", "first", "second", "fail", "fails",
        "much", "many", "kg", "mg", "mcg", "ivp", "ivpb", "sl", "po", "im", "sq", "sc", "pr", "ett", "neb"})
    most_boxes: int = 3


DEFAULT_SETTINGS = DoseSettings()


def _content(text: str, settings: DoseSettings, shorthand: bool = False) -> set[str]:
    """The distinctive content words of ``text`` (:func:`dkg.qa.guideline_words.content_words`, with the lexicon's
    shorthand spelled out when ``shorthand``) of at least ``min_letters``, the form of a dose left out."""
    found = question_words(text) if shorthand else content_words(text)
    return {w for w in found if len(w) >= settings.min_letters} - _form_of_dose(settings.not_dosed)


@lru_cache(maxsize=4)
def _form_of_dose(words: frozenset[str]) -> frozenset[str]:
    return frozenset(porter_stem(w) for w in words)


def dosed_words(text: str, settings: DoseSettings = DEFAULT_SETTINGS) -> set[str]:
    """The stems of the words a box's text doses (module docstring).

    >>> sorted(dosed_words("Transcutaneous Pacing (Consider sedation: Midazolam 2-5mg IV / IO)"))
    ['midazolam', 'pace', 'sedat', 'transcutan']
    >>> sorted(dosed_words("Atropine IV / IO 1mg IVP Repeat q 3-5 minutes (MAX 3mg)"))
    ['atropin']
    >>> dosed_words("Observe Reassess q 5 minutes")
    set()
    """
    found: set[str] = set()
    for dose in DOSE.finditer(text):
        before = text[:dose.start()]
        ends = list(_CLAUSE_END.finditer(before))
        clause = before[ends[-1].end():] if ends else before
        found |= _content(" ".join(_WORD.findall(clause.lower())[-settings.words_before:]), settings)
    return found


@dataclass(frozen=True)
class DoseBoxes:
    """The boxes giving the dose asked, and the titles of the pages dosing it only for the other population."""

    boxes: list[Box]
    other_population: list[str]


def dose_boxes(question: str, boxes: list[Box], settings: DoseSettings = DEFAULT_SETTINGS) -> DoseBoxes:
    """The boxes that give the dose the question asks (module docstring); none when it asks no dose or no box
    doses what it asks about. A box on a page titled for the other population ("PEDIATRIC …" for "an adult")
    never answers: its page title is reported instead."""
    if not asks_dose(question):
        return DoseBoxes([], [])
    # shorthand read as its full name ("epi" → "epinephrine", "amio" → "amiodarone")
    asked = _content(asked_part(question), settings, shorthand=True)
    said = _content(question, settings, shorthand=True)
    titles = page_titles(boxes)
    _, other = pages_by_population(question, titles)
    scored: list[tuple[tuple[int, int], Box]] = []
    set_aside: list[str] = []
    for box in boxes:
        shared = len(asked & dosed_words(box.content, settings))
        if not shared:
            continue
        if box.pages and set(box.pages) <= other:
            set_aside.extend(titles.get(page, page) for page in box.pages)
            continue
        scored.append(((shared, len(said & _content(box.content, settings))), box))
    if not scored:
        return DoseBoxes([], list(dict.fromkeys(set_aside)))
    best = max(score for score, _ in scored)
    top = [box for score, box in scored if score == best]
    pages = pages_asked(question, titles, {p for box in top for p in box.pages})
    return DoseBoxes([box for box in top if pages & set(box.pages)][:settings.most_boxes], [])


def answer_dose_in_box(question: str, boxes: list[Box], guideline: str, version: str,
                       settings: DoseSettings = DEFAULT_SETTINGS) -> Answer | None:
    """The boxes giving the dose asked, quoted (module docstring); an answer saying why not when the chart doses
    it only for the other population; None when no box doses it."""
    found = dose_boxes(question, boxes, settings)
    if found.other_population:
        pages = "; ".join(f'"{title}"' for title in found.other_population)
        return Answer(question=question, route="text2cypher", answer="",
                      no_answer_reason=f"the chart gives this dose only on {pages}, for another age group than the "
                                       f"patient described; no step gives it for this patient")
    if not found.boxes:
        return None
    quoted = "; ".join(f'"{content}"' for content in dict.fromkeys(box.content for box in found.boxes))
    text = (f"The chart gives the dose in {quoted}. Quoted as the chart prints it: check it against the full "
            f"guideline, the patient and local protocols before giving anything.")
    rows: list[dict[str, Any]] = [{"uid": box.uid, "content": box.content} for box in found.boxes]
    evidence = [Evidence(node_uid=box.uid, content=box.content, kind="Action", guideline=guideline, version=version)
                for box in found.boxes]
    uids = [box.uid for box in found.boxes]
    return Answer(question=question, route="text2cypher", answer=text,
                  cypher=named_queries("qa_steps")["step_boxes"],
                  cypher_params={"guideline": guideline, "version": version, "uids": uids},
                  rows=rows, matched_nodes=uids, evidence=evidence)


__all__ = ["DOSE", "DoseBoxes", "DoseSettings", "answer_dose_in_box", "dose_boxes", "dosed_words"]
