"""Patient facts for the keys of onboarded guidelines, read from their vocabulary entries.

The rule layer's own wordings (:mod:`dkg.qa.facts`, the clinical lexicon) cover the shipped guidelines' keys. A
guideline onboarded from a PDF brings keys no module knows (``heart_rate``, ``stable``); their vocabulary file
(``datasets/guidelines/<name>/vocabulary.yaml``, written on publish) lists how they are written, and that is
what this module reads: a boolean key's ``yes`` / ``no`` wordings (a negated ``yes`` wording reads ``no``), a
categorical key's value wordings, and a numeric key's synonyms followed by a number and an optional unit
(converted to the key's unit with pint: ``QRS 120 ms`` → 0.12 second), or a number followed by the key's unit
(``40/min``, ``40 bpm``). Only keys of guidelines without YAML sources are read, so the shipped guidelines'
answers do not change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from dkg.lexicon.clinical import negation
from dkg.lexicon.spans import KeySpans
from dkg.vocabulary import VOCABULARY, KeyKind, KeySpec, onboarded_sources

if TYPE_CHECKING:
    import pint

# a number, with thousands separated by commas as lab values are written ("WBC 13,500")
_NUMBER = r"(\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?)"
# how a number's unit may be written after it; converted with pint when it is not the key's own unit
_UNIT_WORDS = {"bpm": "1/min", "/min": "1/min", "per min": "1/min", "per minute": "1/min", "ms": "millisecond",
               "msec": "millisecond", "s": "second", "sec": "second", "seconds": "second", "mmhg": "mmHg",
               "mm hg": "mmHg", "mg/dl": "mg/dL", "%": "percent", "°c": "degC", "c": "degC", "°f": "degF",
               "f": "degF", "cmh2o": "cmH2O", "cm h2o": "cmH2O"}
_UNIT = r"(bpm|/min|per minute|per min|msec|ms|seconds|sec|s|mm ?hg|mg/dl|%|°c|c|°f|f|cm ?h2o)?"


@dataclass(frozen=True)
class _Phrase:
    pattern: re.Pattern[str]
    key: str
    value: str
    negatable: bool


def _pattern(phrase: str) -> re.Pattern[str]:
    body = re.escape(phrase.lower()).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]+")
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])")


def _keys(guidelines: Iterable[str]) -> list[KeySpec]:
    wanted = set(guidelines) & onboarded_sources()
    return [spec for spec in VOCABULARY.values() if spec.source in wanted]


@lru_cache(maxsize=32)
def _phrases(keys: tuple[str, ...]) -> tuple[_Phrase, ...]:
    out: list[_Phrase] = []
    for name in keys:
        spec = VOCABULARY[name]
        if spec.kind is not KeyKind.CATEGORICAL:
            continue
        for value, words in spec.values.items():
            for word in {*words, *([] if spec.boolean else [value.replace("_", " ")])}:
                out.append(_Phrase(_pattern(word), name, value, spec.boolean and value == "yes"))
        if spec.boolean:
            for word in spec.synonyms:
                out.append(_Phrase(_pattern(word), name, "yes", True))
    # longest wording first: 'no signs of hemodynamic compromise' before 'hemodynamic compromise'
    return tuple(sorted(out, key=lambda p: -len(p.pattern.pattern)))


def _convert(value: float, unit_text: str | None, spec: KeySpec) -> float | None:
    if not unit_text or spec.unit is None:
        return value
    unit = _UNIT_WORDS.get(unit_text.lower())
    if unit is None or unit == spec.unit:
        return value
    import pint

    registry = _registry()
    try:
        return float(registry.Quantity(value, unit).to(spec.unit).magnitude)
    except (pint.errors.DimensionalityError, pint.errors.UndefinedUnitError):
        return None


@lru_cache(maxsize=1)
def _registry() -> pint.UnitRegistry:
    import pint

    return pint.UnitRegistry()


@dataclass(frozen=True)
class VocabularyFact:
    """One mention of an onboarded key's fact: where it is and what it states."""

    start: int
    end: int
    key: str
    value: float | str


def find_vocabulary_facts(question: str, guidelines: Iterable[str]) -> list[VocabularyFact]:
    """Every mention of the onboarded ``guidelines``' keys in ``question``, in text order.

    Numbers out of a key's range are left out (``QRS 120`` without a unit is no 120-second QRS)."""
    specs = _keys(guidelines)
    if not specs:
        return []
    text = question.lower()
    negated = negation(question)
    # one wording may state facts of several keys ('hypotensive': compromise and instability), but within a key
    # the longest wording wins ('no signs of hemodynamic compromise' over 'hemodynamic compromise')
    claim = KeySpans(len(text)).claim
    found: list[VocabularyFact] = []

    for phrase in _phrases(tuple(sorted(s.name for s in specs))):
        for m in phrase.pattern.finditer(text):
            if claim(phrase.key, m.start(), m.end()):
                value: float | str = "no" if phrase.negatable and negated.negates(m.start()) else phrase.value
                found.append(VocabularyFact(m.start(), m.end(), phrase.key, value))
    for spec in specs:
        if spec.kind is not KeyKind.NUMERIC:
            continue
        patterns = [re.compile(rf"{_pattern(s).pattern}\s*(?:of|at|is|was|=|:|~|around|about)?\s*{_NUMBER}\s*"
                               rf"{_UNIT}(?![a-z0-9])") for s in spec.synonyms]
        own_units = [w for w, unit in _UNIT_WORDS.items() if unit == spec.unit]
        if own_units:
            words = "|".join(re.escape(w) for w in sorted(own_units, key=len, reverse=True))
            patterns.append(re.compile(rf"(?<![a-z0-9.]){_NUMBER}\s*({words})(?![a-z0-9])"))
        for pattern in patterns:
            for m in pattern.finditer(text):
                number = _convert(float(m.group(1).replace(",", "")), m.group(2), spec)
                if number is None or (spec.minimum is not None and number < spec.minimum) or (
                        spec.maximum is not None and number > spec.maximum):
                    continue
                found.append(VocabularyFact(m.start(), m.end(), spec.name, number))
    return sorted(found, key=lambda f: (f.start, f.end))


def vocabulary_facts(question: str, guidelines: Iterable[str]) -> dict[str, float | str]:
    """``{key: value}`` for the onboarded ``guidelines``' keys stated in ``question`` (first mention wins)."""
    facts: dict[str, float | str] = {}
    for fact in find_vocabulary_facts(question, guidelines):
        facts.setdefault(fact.key, fact.value)
    return facts


__all__ = ["VocabularyFact", "find_vocabulary_facts", "onboarded_sources", "vocabulary_facts"]
