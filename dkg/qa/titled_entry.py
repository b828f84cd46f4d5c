"""The chart a patient presents with: on a guideline onboarded from several flowchart pages, a question whose
words say one page's whole title ("54M crushing substernal CP …" says CHEST PAIN) enters that chart at its first
boxes, as the publisher means a patient with that presentation to.

Without this the walk starts at the roots and takes the chart whose arrows test the most stated facts: the
tachycardia chart's "Chest Pain / SOB / Dizziness?" tests chest pain, the chest pain chart tests nothing about it,
so a chest pain patient with no heart rate stated was walked through the tachycardia chart on an assumed rate.
The title decides only when no stated fact is tested on the way from the roots into the named chart, beyond the
facts its title itself states: "HR 180, wide complex, chest pain" is tested for its rate on the way to the chest
pain chart (through the tachycardia chart's link), so the walk places that patient as before. Boxes standing only
on charts whose titles name a finding the question neither states nor says a word of ("TACHYCARDIA w/ PULSE"
names the heart rate; "sinus tach" says "tachycardia") do not count: "crushing chest pain, diaphoretic" reads as
not stable, which the tachycardia chart tests, but nothing says this patient is tachycardic.

On the chart the answer is the steps after the place the question reports (:mod:`dkg.qa.reported_place`, the
clause presenting the title left out: its words are the chart's, not a box's); else, when the question reports
the chart's first box done by its items in any clauses ("SpO2 95% RA, on monitor, IV in" for "O2 if <90% SpO2,
Monitor / Defibrillator, IV / IO access"), the steps after it; else the first box itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from dkg.answers import Answer
from dkg.qa.current_step import next_after, steps_answer
from dkg.qa.guideline_words import question_words
from dkg.qa.named_chart import said_words, title_words_said, titles_said
from dkg.qa.named_step import Box, page_titles
from dkg.qa.reported_place import answer_from_reported_place, without_negated
from dkg.qa.vocabulary_facts import find_vocabulary_facts, keys_named
from dkg.qa.way_in import FactValue, WayIn, reported_texts, without_brackets


@dataclass(frozen=True)
class TitledEntrySettings:
    """How a question reports the first box of the chart it presents with."""

    # content words (stems, shorthand spelled out) the question's reporting clauses together share with the box
    min_reported: int = 2


DEFAULT_SETTINGS = TitledEntrySettings()


@dataclass(frozen=True)
class TitledEntry:
    """The chart a question enters by its title: the boxes with no arrow in from the same page, and every box
    on the page."""

    page: str
    title: str
    entries: frozenset[str]
    on_chart: frozenset[str]


def titled_entry(question: str, guideline: str, boxes: list[Box], way_in: WayIn,
                 stated: Mapping[str, FactValue]) -> TitledEntry | None:
    """The one chart whose whole title the question says (its negated words left out) and which no stated fact
    beyond the title's own places the patient on the way into; None otherwise (module docstring)."""
    titles = page_titles(boxes)
    if len(titles) < 2:
        return None  # a single chart: there is nothing to choose
    affirmed = without_negated(question)
    presented = titles_said(affirmed, titles)
    if len(presented) != 1:
        return None
    page = next(iter(presented))
    on_chart = frozenset(b.uid for b in boxes if page in b.pages)
    arrows = way_in.arrows
    entries = frozenset(uid for uid in on_chart
                        if uid not in arrows or not set(arrows.predecessors(uid)) & on_chart)
    if not entries:
        return None
    title_keys = {fact.key for fact in find_vocabulary_facts(titles[page], [guideline])}
    # a chart whose title names a finding the question neither states nor says a word of ("TACHYCARDIA", no rate
    # given, no "tach") is no chart the patient is on: what its boxes test places no one on the way in
    said = said_words(affirmed)
    unstated = {p for p, title in titles.items()
                if p != page and (named := keys_named(title, [guideline])) and not named & set(stated)
                and not title_words_said(said, title)}
    pages = {b.uid: set(b.pages) for b in boxes}
    counted = {uid for uid in way_in.before(entries) if not (pages.get(uid) and pages[uid] <= unstated)}
    if (way_in.keys_on_ways_to(entries, through=counted) & set(stated)) - title_keys:
        return None
    return TitledEntry(page, titles[page], entries, on_chart)


def answer_titled_entry(question: str, guideline: str, version: str, entered: TitledEntry, boxes: list[Box],
                        way_in: WayIn, facts: dict[str, FactValue],
                        settings: TitledEntrySettings = DEFAULT_SETTINGS) -> Answer:
    """The answer on the chart ``entered`` (module docstring)."""
    chart = [b for b in boxes if b.uid in entered.on_chart]
    title = question_words(entered.title)
    presenting = [t for t in reported_texts(question) if title <= question_words(t)]
    rest = question
    for clause in presenting:
        rest = rest.replace(clause, " ")
    placed = answer_from_reported_place(rest, guideline, version, chart, way_in, facts)
    if placed is not None:
        return placed
    contents = {b.uid: b.content for b in chart} | way_in.contents
    reported = question_words(" ".join(reported_texts(without_negated(rest))))
    lead = f'The question presents with "{entered.title}", the title of a chart'
    first = sorted(entered.entries)
    for entry in first:
        if len(reported & question_words(without_brackets(contents.get(entry, "")))) >= settings.min_reported:
            after = next_after(way_in, [entry], facts)
            if after:
                return steps_answer(question, guideline, version, entry, after, contents,
                                    f'{lead}, and reports "{contents.get(entry, entry)}" done')
    return steps_answer(question, guideline, version, first[0], first, contents, lead)


__all__ = ["DEFAULT_SETTINGS", "TitledEntry", "TitledEntrySettings", "answer_titled_entry",
           "titled_entry"]
