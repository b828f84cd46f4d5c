"""Where a question about one chart of an onboarded guideline says the patient is, when the walk from the roots
could not place the patient on that chart: "55F, chest pain for 40 min, aspirin given, 12 lead shows ST elevation.
Where does the chest pain flowchart send her from here?"

Some charts are drawn as a sequence of steps and findings with no condition on their arrows: the chest pain
chart's "ST Elevation MI or LBBB" is a box the way passes, not a tested fact, so the walk, which follows the
stated facts, has nothing to follow on it. The question then places the patient by what it reports: the boxes of
the named chart that a clause of the question which does not ask (and is not negated: "no STEMI") describes in
their own words, or says were done (:meth:`WayIn.done_steps`). The place is the reported box no other reported box
comes after; the answer is the steps right after it that the stated facts do not rule out, a question box among
them ("Hypotension / Shock?") passed through to the steps it leads to. Several furthest boxes on different ways
leave the question to the other routes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import networkx as nx

from dkg.answers import Answer
from dkg.lexicon.clinical import clinical_lexicon
from dkg.qa.current_step import next_after, steps_answer
from dkg.qa.guideline_words import question_words
from dkg.qa.named_step import STOPWORDS, Box
from dkg.qa.way_in import FactValue, WayIn, reported_texts, without_brackets

_WORD = re.compile(r"[A-Za-z][\w/-]*")


@dataclass(frozen=True)
class ReportedPlaceSettings:
    """How a question reports a box of the chart it names."""

    # content words (Porter stems, shorthand spelled out) one reported clause shares with a box's own text (its
    # bracketed notes left out: "(if no significant aspirin allergy)" is a condition of the box, not its step)
    min_shared: int = 2


DEFAULT_SETTINGS = ReportedPlaceSettings()


def without_negated(question: str) -> str:
    """``question`` with each word a negation cue before it denies blanked ('no STEMI', 'denies chest pain').

    >>> without_negated("12 lead NSR, no STEMI, BP 82/48")
    '12 lead NSR, no      , BP 82/48'
    """
    negation = clinical_lexicon().negation(question)
    return _WORD.sub(lambda m: " " * len(m.group()) if negation.negates(m.start()) else m.group(), question)


def only_negated(text: str) -> bool:
    """Whether every content word of ``text`` is a negation cue or a word one denies: it says what is absent
    ('No allergies.'), not a step done or a finding present.

    >>> only_negated("No allergies"), only_negated("not a sinus tach"), only_negated("Aspirin given, no allergies")
    (True, True, False)
    """
    negation = clinical_lexicon().negation(text)
    content = [m.start() for m in _WORD.finditer(text) if m.group().lower() not in STOPWORDS]
    return (any(negation.negates(start) for start in content)
            and all(negation.negates(start) or negation.in_cue(start) for start in content))


def reported_boxes(question: str, boxes: list[Box], settings: ReportedPlaceSettings = DEFAULT_SETTINGS
                   ) -> set[str]:
    """The ``boxes`` a clause of ``question`` that does not ask describes: at least ``settings.min_shared`` of the
    box's content words, none of them negated in the question."""
    clauses = [question_words(text) for text in reported_texts(without_negated(question))]
    found = set()
    for box in boxes:
        # each word the box writes counts once, whether matched as written or by its shorthand's expansion: one
        # 'STEMI' in a box is one word, not the three a question writing 'ST elevation' shares with its expansion
        own = [_word_readings(m.group().lower()) for m in _WORD.finditer(without_brackets(box.content))]
        if any(sum(1 for readings in own if readings & words) >= settings.min_shared for words in clauses):
            found.add(box.uid)
    return found


@lru_cache(maxsize=4096)
def _word_readings(word: str) -> frozenset[str]:
    """The content word stems of one word of a box: its own, its parts, and its shorthand's expansion."""
    return question_words(word)


def furthest(uids: set[str], way_in: WayIn) -> set[str]:
    """The ``uids`` from which no other of them can be reached along the arrows."""
    arrows = way_in.arrows
    return {u for u in uids if u not in arrows or not (nx.descendants(arrows, u) & (uids - {u}))}


def _asks(text: str) -> bool:
    return text.rstrip().endswith("?")


def answer_from_reported_place(question: str, guideline: str, version: str, boxes: list[Box],
                               way_in: WayIn, facts: dict[str, FactValue],
                               settings: ReportedPlaceSettings = DEFAULT_SETTINGS) -> Answer | None:
    """The steps after the place on the named chart (``boxes``: its boxes) the question reports (module
    docstring); None when it reports none, or several on different ways."""
    on_chart = {b.uid for b in boxes}
    reported = reported_boxes(question, boxes, settings)
    if way_in.says_done(question):
        roots = {b.uid: b.content for b in boxes if b.uid in way_in.roots}
        reported |= way_in.done_steps(question, roots) & on_chart
    place = sorted(furthest(reported, way_in))
    if len(place) != 1:
        return None
    contents = {b.uid: b.content for b in boxes} | way_in.contents
    after = next_after(way_in, place, facts)
    # a question box is no step to take: the steps it leads to are
    if after and all(_asks(contents.get(uid, "")) for uid in after):
        after = next_after(way_in, after, facts)
    if not after:
        return None
    return steps_answer(question, guideline, version, place[0], after, contents,
                        f'The question places the patient at "{contents.get(place[0], place[0])}"')


__all__ = ["ReportedPlaceSettings", "answer_from_reported_place", "furthest", "only_negated", "reported_boxes",
           "without_negated"]
