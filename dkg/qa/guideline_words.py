"""Which loaded guideline a question is about when it names none: the distinctive words it shares with one
guideline's own boxes.

A clinician rarely names the chart ("s/p ASA and NTG, 12-lead shows STEMI: where does the chart send him?"), and a
guideline's topic file holds only the names and hints its curator thought of. The boxes of the published
guideline hold the words its questions use: drug names, rhythms, procedures. A word is *distinctive* for a
guideline when it is no English stop word (spaCy's list) nor a word every question uses, and no other loaded
guideline's boxes (or curated topic) use it. A question about a guideline shares at least ``min_shared``
distinctive words with it and ``dominance`` times as many as with any other guideline; anything else (one shared
word, or as many words of two guidelines) implies no guideline. A value the question gives one of a guideline's
numeric keys ("rate 38", "BP 70 systolic": its vocabulary reads them) counts as one more shared word: a drug
and two vital signs tell the chart as well as three words do. Words are compared by their Porter stems (nltk),
after the lexicon's shorthand is expanded ("bio" → "biological").

>>> words = distinctive_words({"cardiac": ["Aspirin 324mg chewed", "NTG 0.4mg SL", "12-Lead ECG"],
...                             "kidney": ["Radical nephrectomy", "ECG before surgery"]})
>>> sorted(words["cardiac"])
['12-lead', 'aspirin', 'chew', 'lead', 'ntg', 'sl']
>>> guidelines_by_words("took aspirin, NTG x1, pain persists", words)
['cardiac']
>>> guidelines_by_words("ECG done, what next?", words)
[]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from spacy.lang.en.stop_words import STOP_WORDS

from dkg.lexicon import expand_query
from dkg.qa.stems import porter_stem

_WORDS = re.compile(r"[a-z0-9][a-z0-9/-]*")


@dataclass(frozen=True)
class GuidelineWordsSettings:
    """How many distinctive words a question must share with one guideline, and the words any question uses
    (asking, giving, the chart itself) that never count."""

    min_shared: int = 2
    # ... and at least this many times as many as any other guideline ("loading dose" on a cardiac page does not
    # veto five words of the bio-incident page)
    dominance: float = 2.0
    question_words: frozenset[str] = frozenset({
        "step", "steps", "give", "given", "start", "started", "chart", "algorithm", "guideline", "protocol",
        "patient", "pt", "treat", "treatment", "consider", "recommend", "recommended", "recommends", "tell",
        "send", "sends", "say", "says", "let", "lets", "ok", "yes", "no", "does", "did", "doing", "whats", "got",
        "gets", "want", "wants"})


DEFAULT_SETTINGS = GuidelineWordsSettings()


def content_words(text: str, settings: GuidelineWordsSettings = DEFAULT_SETTINGS) -> frozenset[str]:
    """The stems of the words of ``text`` that may tell a guideline apart: not stop words, not question words,
    not numbers or doses ("0.4mg"); a hyphenated or slashed word counts whole and by its parts ("12-lead":
    ``12-lead`` and ``lead``).

    >>> sorted(content_words("Is the 12-lead ECG showing STEMI?"))
    ['12-lead', 'ecg', 'lead', 'show', 'stemi']
    """
    words: set[str] = set()
    for word in _WORDS.findall(text.lower()):
        joined = re.search(r"[a-z]", word) is not None and re.search(r"[-/]", word) is not None
        if len(word) > 1 and (word[0].isalpha() or joined):
            words.add(word)
        if joined:
            words.update(p for p in re.split(r"[-/]", word) if len(p) > 1 and p[0].isalpha())
    skipped = STOP_WORDS | settings.question_words
    return frozenset(porter_stem(w) for w in words if w not in skipped)


def distinctive_words(box_texts: Mapping[str, Iterable[str]],
                      settings: GuidelineWordsSettings = DEFAULT_SETTINGS) -> dict[str, frozenset[str]]:
    """Guideline → the content words of its boxes that no other guideline's boxes use."""
    used = {guideline: frozenset().union(*(content_words(t, settings) for t in texts))
            for guideline, texts in box_texts.items()}
    return {guideline: words.difference(*(other for name, other in used.items() if name != guideline))
            for guideline, words in used.items()}


def question_words(question: str, settings: GuidelineWordsSettings = DEFAULT_SETTINGS) -> frozenset[str]:
    """The content words of a question and of the lexicon's expansions of its shorthand."""
    expanded = " ".join(e.expansion for e in expand_query(question).expansions if e.kind == "shorthand")
    return content_words(f"{question} {expanded}", settings)


def guidelines_by_words(question: str, distinctive: Mapping[str, frozenset[str]],
                        settings: GuidelineWordsSettings = DEFAULT_SETTINGS,
                        measured: Mapping[str, int] | None = None) -> list[str]:
    """The one guideline the question shares at least ``min_shared`` distinctive words with, ``dominance`` times as
    many as with any other guideline; ``[]`` otherwise. ``measured``: guideline → how many of its numeric keys the
    question gives a value ("rate still 38 and BP 70 systolic"), each counted as one more shared word.

    >>> words = {"cardiac": frozenset({"atropin", "pace"}), "vent": frozenset({"peep", "fio2"})}
    >>> guidelines_by_words("pushed atropine three times, still slow. Now?", words)
    []
    >>> guidelines_by_words("pushed atropine three times, rate 38. Now?", words, measured={"cardiac": 1})
    ['cardiac']
    """
    asked = question_words(question, settings)
    extra = measured or {}
    counts = sorted(((len(asked & words) + extra.get(guideline, 0), guideline)
                     for guideline, words in distinctive.items()), reverse=True)
    if not counts or counts[0][0] < settings.min_shared:
        return []
    runner_up = counts[1][0] if len(counts) > 1 else 0
    return [counts[0][1]] if counts[0][0] >= settings.dominance * runner_up else []
