"""Patient facts for the keys of onboarded guidelines, read from their vocabulary entries.

The rule layer's own wordings (:mod:`dkg.qa.facts`, the clinical lexicon) cover the shipped guidelines' keys. A
guideline onboarded from a PDF brings keys no module knows (``heart_rate``, ``stable``); their vocabulary file
(``datasets/guidelines/<name>/vocabulary.yaml``, written on publish) lists how they are written, and that is
what this module reads: a boolean key's ``yes`` / ``no`` wordings (a negated ``yes`` wording reads ``no``), a
categorical key's value wordings, and a numeric key's synonyms followed by a number and an optional unit
(converted to the key's unit with pint: ``QRS 120 ms`` → 0.12 second), or a number followed by the key's unit
(``40/min``, ``40 bpm``). Each key also reads the shared clinical wordings of the groups it joins
(:mod:`dkg.lexicon.wording_groups`: a key proposed as "pulse present" reads "pulseless" as no). Only keys of
guidelines without YAML sources are read, so the shipped guidelines' answers do not change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from dkg.lexicon.clinical import blocked, negation, not_fact_spans
from dkg.lexicon.spans import KeySpans
from dkg.lexicon.wording_groups import widened
from dkg.vocabulary import VOCABULARY, KeyKind, KeySpec, onboarded_sources, used_keys

if TYPE_CHECKING:
    import pint

# a number, with thousands separated by commas as lab values are written ("WBC 13,500")
_NUMBER = r"(\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?)"
# how a number's unit may be written after it; converted with pint when it is not the key's own unit
_UNIT_WORDS = {"bpm": "1/min", "/min": "1/min", "per min": "1/min", "per minute": "1/min", "ms": "millisecond",
               "msec": "millisecond", "s": "second", "sec": "second", "seconds": "second", "mmhg": "mmHg",
               "mm hg": "mmHg", "mg/dl": "mg/dL", "%": "percent", "°c": "degC", "c": "degC", "°f": "degF",
               "f": "degF", "cmh2o": "cmH2O", "cm h2o": "cmH2O", "d": "day", "day": "day", "days": "day",
               "calendar days": "day", "h": "hour", "hr": "hour", "hrs": "hour", "hour": "hour", "hours": "hour"}
_UNIT = (r"(bpm|/min|per minute|per min|msec|ms|seconds|sec|s|mm ?hg|mg/dl|%|°c|c|°f|f|cm ?h2o|calendar days|days|"
         r"day|d|hours|hour|hrs|hr|h)?")
# what stands between a quantity's name and its value: "HR 38", "HR of 38", "rate still 38", "pulse now down to 38",
# "SpO2 remains ~88" (at most two such words)
_LINK = (r"(?:\s*(?:(?:of|at|is|was|now|still|remains?|remained|stays?|stayed|currently|only|just|around|about|"
         r"approx|approximately|(?:down|up|back|dropped|fell|rose|increased|decreased|went|came)\s+to)(?![a-z0-9])"
         r"|[=:~]))?(?:\s*(?:(?:at|of|is|now|still|only|just|around|about|approx|approximately|"
         r"(?:down|up|back)\s+to)(?![a-z0-9])|[=:~]))?\s*")
# a count written in thousands after a key's name ("WBC 9k", "plt 3.1k")
_THOUSANDS = r"(?:k(?![a-z0-9]))?"
# "<quantity> from A to B", "<quantity> A -> B": the change of a quantity, for a key named after it with one of
# these endings (``fio2_increase``: B - A; ``sbp_drop``: A - B)
_RISE_ENDINGS = ("_increase", "_rise", "_gain")
_FALL_ENDINGS = ("_decrease", "_drop", "_fall", "_loss")
_ARROW = r"\s*(?:->|-->|→|=>|to)\s*"
# units many keys share: a number with one of them alone ("2 days") says nothing of which key it is
_SHARED_UNITS = frozenset({"day", "hour"})
# a synonym ending in "for" is also written with "x" ("abx for 4 days", "abx x4d")
_FOR = re.compile(r"\s+for$")
# what stands between two answers of one key that a question weighs rather than states
_ALTERNATIVE = re.compile(r"\s*(?:vs\.?|versus|or|/)\s*")


@dataclass(frozen=True)
class _Phrase:
    pattern: re.Pattern[str]
    key: str
    value: str
    negatable: bool


def _pattern(phrase: str, gap: bool = False) -> re.Pattern[str]:
    """``phrase`` as a whole-word pattern; with ``gap`` (a categorical wording) also with one word between two of
    its words ("Legionella test positive" says "legionella positive", "no bacterial growth" "no growth").

    >>> bool(_pattern("legionella positive", gap=True).search("legionella test positive"))
    True
    """
    space = r"(?:[\s-]+[a-z0-9]+)?[\s-]+" if gap else r"[\s-]+"
    body = re.escape(phrase.lower()).replace(r"\ ", space).replace(r"\-", r"[\s-]+")
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])")


def _keys(guidelines: Iterable[str]) -> list[KeySpec]:
    """The keys of the onboarded ``guidelines``: their own, and other guidelines' keys their files list under
    ``uses_keys`` (a second bradycardia algorithm reading the cardiac charts' ``heart_rate``)."""
    wanted = set(guidelines) & onboarded_sources()
    borrowed = {k for g in wanted for k in used_keys(g)}
    return [_widened(spec) for spec in VOCABULARY.values()
            if spec.source in wanted or spec.name in borrowed]


@lru_cache(maxsize=256)
def _widened(spec: KeySpec) -> KeySpec:
    """The key with the shared clinical wordings of the groups it joins (:mod:`dkg.lexicon.wording_groups`)."""
    return widened(spec)


_GLOSSED = re.compile(r"(?P<words>.*?\w.*?)\s*\((?P<short>[a-z][a-z0-9]{1,7})\)")


def wordings(word: str) -> list[str]:
    """``word`` and, when it ends with a short form in brackets (a box's text taken as a synonym), the words and the
    short form alone: clinicians write one or the other, seldom both.

    >>> wordings("return of spontaneous circulation (rosc)"), wordings("heart rate")
    (['return of spontaneous circulation (rosc)', 'return of spontaneous circulation', 'rosc'], ['heart rate'])
    """
    glossed = _GLOSSED.fullmatch(word.strip())
    return [word] if glossed is None else [word, glossed["words"], glossed["short"]]


@lru_cache(maxsize=32)
def _phrases(keys: tuple[KeySpec, ...]) -> tuple[_Phrase, ...]:
    out: list[_Phrase] = []
    for key in keys:
        if key.kind is not KeyKind.CATEGORICAL:
            continue
        for value, words in key.values.items():
            for word in {*words, *([] if key.boolean else [value.replace("_", " ")])}:
                out += [_Phrase(_pattern(w, gap=True), key.name, value, key.boolean) for w in wordings(word)]
        if key.boolean:
            for word in key.synonyms:
                out += [_Phrase(_pattern(w, gap=True), key.name, "yes", True) for w in wordings(word)]
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
    found, weighed = _read(question, specs)
    # clinicians' shorthand ("abx", "QADs") read as the words a vocabulary's synonyms use, for the keys the
    # question's own words state nothing of (nor weigh as alternatives)
    expanded = _shorthand_expanded(question)
    if expanded != question:
        said = {f.key for f in found} | weighed
        found += [f for f in read_facts(expanded, [s for s in specs if s.name not in said]) if f.key not in said]
    return sorted(found, key=lambda f: (f.start, f.end))


def keys_named(text: str, guidelines: Iterable[str]) -> set[str]:
    """The onboarded ``guidelines``' keys one of whose synonyms ``text`` says as whole words ("TACHYCARDIA w/
    PULSE" names ``heart_rate``, whose synonyms have "tachycardia")."""
    lowered = text.lower()
    return {spec.name for spec in _keys(guidelines) if any(_pattern(s).search(lowered) for s in spec.synonyms)}


def _shorthand_expanded(question: str) -> str:
    from dkg.lexicon import expand_query

    return spelled_numbers(expand_query(question).text)


_PART = {"low": 2, "lower": 2, "mid": 5, "middle": 5, "high": 8, "upper": 8}
_PART_WORDS = r"(?:(?P<part>low|lower|mid|middle|high|upper)[\s-]*)?"
_DIGIT_DECADE = re.compile(rf"\b(?:in\s+the\s+)?{_PART_WORDS}(?P<tens>[1-9]0)'?s\b", re.IGNORECASE)


@lru_cache(maxsize=1)
def _number_words() -> tuple[dict[str, int], re.Pattern[str], re.Pattern[str]]:
    """The clinical lexicon's number words (``numbers``: "thirty" → 30), with the decades they make ("thirties"),
    and the patterns of a decade ("in the high thirties") and of tens with ones ("thirty-eight")."""
    from dkg.lexicon.clinical import clinical_lexicon

    numbers = {word.lower(): value for word, value in clinical_lexicon().data.numbers.items()}
    tens = {w: v for w, v in numbers.items() if 20 <= v < 100 and v % 10 == 0}
    ones = {w: v for w, v in numbers.items() if 0 < v < 10}
    decades = {w[:-1] + "ies": v for w, v in tens.items() if w.endswith("y")}

    def either(words: dict[str, int]) -> str:
        return "|".join(sorted(map(re.escape, words), key=len, reverse=True))

    decade = re.compile(rf"\b(?:in\s+the\s+)?{_PART_WORDS}(?P<tens>{either(decades)})\b", re.IGNORECASE)
    spelled = re.compile(rf"\b(?P<tens>{either(tens)})(?:[\s-]+(?P<ones>{either(ones)}))?\b", re.IGNORECASE)
    return {**numbers, **decades}, decade, spelled


def spelled_numbers(text: str) -> str:
    """``text`` with numbers written in words as digits (the clinical lexicon's number words, read anywhere,
    where the lexicon reads them only next to a fact it knows): a decade ("in the high thirties", "in the 30s" →
    38 and 35; low 2, mid or none 5, high 8) and tens with ones ("thirty-eight" → 38).

    >>> spelled_numbers("heart rate in the high thirties, RR twenty-two, sats in the low 80s")
    'heart rate 38, RR 22, sats 82'
    """
    values, decade, spelled = _number_words()

    def part(m: re.Match[str]) -> int:
        return _PART[(m["part"] or "mid").lower()]

    text = decade.sub(lambda m: str(values[m["tens"].lower()] + part(m)), text)
    text = spelled.sub(lambda m: str(values[m["tens"].lower()] + (values[m["ones"].lower()] if m["ones"] else 0)),
                       text)
    return _DIGIT_DECADE.sub(lambda m: str(int(m["tens"]) + part(m)), text)


def _change_patterns(spec: KeySpec) -> list[tuple[re.Pattern[str], int]]:
    """How the change a key measures is written as two values ("FiO2 0.35 -> 0.60", "PEEP went from 5 to 8"),
    with the sign of B - A; none for a key whose name says no change."""
    sign = _change_sign(spec)
    if not sign:
        return []
    quantity = _pattern(_quantity(spec)).pattern
    level = r"(?:(?:daily\s+)?min(?:imum)?\s+)?"  # "FiO2 minimum 0.50", "min FiO2 40%"
    return [(re.compile(rf"{quantity}[^.;?\d]{{0,30}}?(?:from\s+)?{_NUMBER}\s*{_UNIT}{_ARROW}"
                        rf"{_NUMBER}\s*{_UNIT}(?![a-z0-9])"), sign),
            # a baseline, then the later value: "FiO2 0.35 / PEEP 5, then FiO2 minimum 0.50" (the quantity named
            # again) or "FiO2 40% both days of a flat baseline, then 70% minimum" (no other number between)
            (re.compile(rf"{quantity}\s*{level}{_NUMBER}\s*{_UNIT}(?![a-z0-9])[^.;?]{{0,40}}?\bthen\s+"
                        rf"(?:\w+\s+){{0,2}}?{quantity}\s*{level}{_NUMBER}\s*{_UNIT}(?![a-z0-9])"), sign),
            (re.compile(rf"{quantity}\s*{level}{_NUMBER}\s*{_UNIT}(?![a-z0-9])[^.;?\d]{{0,60}}?\bthen\s+"
                        rf"(?:\w+\s+){{0,2}}?{_NUMBER}\s*{_UNIT}(?![a-z0-9])"), sign)]


_UP = r"(?:up|increased|rose|risen|climbed|jumped|went\s+up|bumped(?:\s+up)?)"
_DOWN = r"(?:down|decreased|fell|fallen|dropped|went\s+down)"


def _change_by_patterns(spec: KeySpec) -> list[re.Pattern[str]]:
    """How the change a key measures is written as its amount ("PEEP up by 3", "FiO2 increased 0.25"): the
    amount is the key's value, for a key named after a rise (its fall for a key named after a fall)."""
    sign = _change_sign(spec)
    if not sign:
        return []
    moved = _UP if sign > 0 else _DOWN
    return [re.compile(rf"{_pattern(_quantity(spec)).pattern}[^.;?\d]{{0,30}}?\b{moved}\s+(?:by\s+)?{_NUMBER}\s*"
                       rf"{_UNIT}(?![a-z0-9])")]


_SAME = (r"(?:\s+(?:min(?:imum)?|level|setting|settings))?\s+(?:(?:was|is|were|stayed|remained|kept|held)\s+)?"
         r"(?:unchanged|untouched|flat|constant|the\s+same|never\s+changed|not\s+changed|did\s*n[o']t\s+change|"
         rf"still\s+(?:at\s+)?{_NUMBER}|still\s+the\s+same)(?![a-z0-9])")


def _no_change_patterns(spec: KeySpec) -> list[re.Pattern[str]]:
    """How a question says the quantity a change key measures did not move ("PEEP untouched", "FiO2 flat at
    0.4", "PEEP still 5", "no change in FiO2"): the change is 0."""
    if not _change_sign(spec):
        return []
    quantity = _pattern(_quantity(spec)).pattern
    return [re.compile(quantity + _SAME), re.compile(rf"\bno\s+change\s+(?:in|of|to)\s+(?:the\s+)?{quantity}")]


def _none_given_patterns(spec: KeySpec) -> list[re.Pattern[str]]:
    """How a question says none of what a days-of key counts was given ("no new abx" for the days of a new
    antimicrobial: its synonyms "abx for", "new antibiotic for" without their "for"): the count is 0."""
    if spec.unit != "day":
        return []
    things = {_FOR.sub("", s) for s in spec.synonyms if _FOR.search(s) and not s.startswith("on ")}
    words = (_pattern(thing).pattern.removeprefix("(?<![a-z0-9])") for thing in sorted(things, key=len, reverse=True))
    return [re.compile(rf"(?<![a-z0-9])(?:no|without)\s+(?:new\s+)?{body}") for body in words]


def _change_sign(spec: KeySpec) -> int:
    """+1 for a key named after a rise (``fio2_increase``), -1 after a fall (``sbp_drop``), else 0."""
    return 1 if spec.name.endswith(_RISE_ENDINGS) else -1 if spec.name.endswith(_FALL_ENDINGS) else 0


def _quantity(spec: KeySpec) -> str:
    """The quantity whose change a key measures, in words (``fio2_increase`` → "fio2")."""
    return spec.name.rsplit("_", 1)[0].replace("_", " ")


def read_facts(question: str, specs: list[KeySpec]) -> list[VocabularyFact]:
    """The facts ``question`` states for the keys ``specs``, in text order (see :func:`find_vocabulary_facts`).

    >>> from dkg.vocabulary import KeyKind, KeySpec
    >>> rise = KeySpec("fio2_increase", KeyKind.NUMERIC, "FiO2 rise", unit="dimensionless", minimum=0, maximum=1)
    >>> days = KeySpec("antibiotic_days", KeyKind.NUMERIC, "days", unit="day", minimum=0, maximum=60,
    ...                synonyms=("antibiotics for", "antibiotic days"))
    >>> [(f.key, round(f.value, 2)) for f in read_facts("FiO2 0.35 -> 0.60, antibiotics x5d", [rise, days])]
    [('fio2_increase', 0.25), ('antibiotic_days', 5.0)]
    >>> [round(f.value, 2) for f in read_facts("FiO2 0.35 / PEEP 5, then FiO2 minimum 0.50 for 2 days", [rise])]
    [0.15]
    >>> [round(f.value, 2) for f in read_facts("min FiO2 40% on a flat baseline, then 70% minimum", [rise])]
    [0.3]
    >>> [(f.key, f.value) for f in read_facts("continued for 4 antibiotic days", [days])]
    [('antibiotic_days', 4.0)]
    >>> vent = KeySpec("ventilator_day", KeyKind.NUMERIC, "day", unit="day", minimum=0, maximum=365,
    ...                synonyms=("on the vent for",))
    >>> stable = KeySpec("stable_days", KeyKind.NUMERIC, "days", unit="day", minimum=0, maximum=365,
    ...                  synonyms=("stable on the vent for",))
    >>> [(f.key, f.value) for f in read_facts("stable on the vent x3d", [vent, stable])]
    [('stable_days', 3.0)]
    >>> wbc = KeySpec("wbc", KeyKind.NUMERIC, "WBC", unit="1/mm**3", minimum=100, maximum=200000, synonyms=("wbc",))
    >>> [(f.key, f.value) for f in read_facts("afebrile, WBC 3.1k", [wbc])]
    [('wbc', 3100.0)]
    >>> peep = KeySpec("peep_increase", KeyKind.NUMERIC, "PEEP rise", unit="cmH2O", minimum=0, maximum=30)
    >>> [(f.key, f.value) for f in read_facts("after a stable baseline PEEP went up by 3", [peep])]
    [('peep_increase', 3.0)]
    >>> [(f.key, f.value) for f in read_facts("FiO2 0.35 -> 0.60, PEEP still 5", [rise, peep])]
    [('fio2_increase', 0.25), ('peep_increase', 0.0)]
    >>> [(f.key, f.value) for f in read_facts("PEEP unchanged at first, then PEEP up by 3", [peep])]
    [('peep_increase', 3.0)]
    >>> [(f.key, f.value) for f in read_facts("afebrile, no new antibiotics", [days])]
    [('antibiotic_days', 0.0)]
    """
    return _read(question, specs)[0]


def _read(question: str, specs: list[KeySpec]) -> tuple[list[VocabularyFact], set[str]]:
    """:func:`read_facts`, and the keys whose answers the question weighs as alternatives (it states none)."""
    text = question.lower()
    negated = negation(question)
    # one wording may state facts of several keys ('hypotensive': compromise and instability), but within a key
    # the longest wording wins ('no signs of hemodynamic compromise' over 'hemodynamic compromise')
    claim = KeySpans(len(text)).claim
    found: list[VocabularyFact] = []
    not_facts = not_fact_spans(text)

    categorical = sorted((s for s in specs if s.kind is KeyKind.CATEGORICAL), key=lambda s: s.name)
    for phrase in _phrases(tuple(categorical)):
        for m in phrase.pattern.finditer(text):
            if blocked(not_facts, phrase.key, m.start(), m.end()):
                continue
            if claim(phrase.key, m.start(), m.end()):
                # a denied wording states the other value of a yes/no key: "no beat-to-beat variability" says
                # yes to the key whose no-wording it is, as "not hypotensive" says stable
                value: float | str = ({"yes": "no", "no": "yes"}[phrase.value]
                                      if phrase.negatable and negated.negates(m.start()) else phrase.value)
                found.append(VocabularyFact(m.start(), m.end(), phrase.key, value))
    stated = _without_alternatives(found, text)
    weighed = {f.key for f in found} - {f.key for f in stated}
    found = stated
    numbers: list[VocabularyFact] = []
    for spec in specs:
        if spec.kind is not KeyKind.NUMERIC:
            continue
        for pattern, sign in _change_patterns(spec):
            for m in pattern.finditer(text):
                before, after = (_convert(float(m.group(i).replace(",", "")), m.group(i + 1) or m.group(4), spec)
                                 for i in (1, 3))
                if before is None or after is None:
                    continue
                change = round(sign * (after - before), 9)
                if _in_range(change, spec):
                    numbers.append(VocabularyFact(m.start(), m.end(), spec.name, change))
        patterns = [re.compile(rf"{_pattern(s).pattern}{_LINK}{_NUMBER}{_THOUSANDS}\s*{_UNIT}(?![a-z0-9])")
                    for s in spec.synonyms]
        patterns += [re.compile(rf"{_pattern(_FOR.sub('', s)).pattern}\s*x\s*{_NUMBER}\s*{_UNIT}(?![a-z0-9])")
                     for s in spec.synonyms if _FOR.search(s)]
        # "4 qualifying antimicrobial days": a number before a synonym that ends in its unit
        patterns += [re.compile(rf"(?<![a-z0-9.]){_NUMBER}()\s*{_pattern(s).pattern}") for s in spec.synonyms
                     if _UNIT_WORDS.get(s.rsplit(" ", 1)[-1]) == spec.unit]
        patterns += _change_by_patterns(spec)
        own_units = [w for w, unit in _UNIT_WORDS.items() if unit == spec.unit and unit not in _SHARED_UNITS]
        if own_units:
            words = "|".join(re.escape(w) for w in sorted(own_units, key=len, reverse=True))
            patterns.append(re.compile(rf"(?<![a-z0-9.]){_NUMBER}\s*({words})(?![a-z0-9])"))
        for pattern in patterns:
            for m in pattern.finditer(text):
                thousands = 1000 if text[m.end(1):m.end(1) + 1] == "k" else 1
                number = _convert(thousands * float(m.group(1).replace(",", "")), m.group(2), spec)
                if number is None or not _in_range(number, spec):
                    continue
                numbers.append(VocabularyFact(m.start(), m.end(), spec.name, number))
    # a quantity said not to have moved, or none of a treatment counted in days given ("no new abx"), when nothing
    # else the question says gives the key's value
    for spec in specs:
        if not any(f.key == spec.name for f in numbers):
            numbers += [VocabularyFact(m.start(), m.end(), spec.name, 0.0)
                        for pattern in _no_change_patterns(spec) + _none_given_patterns(spec)
                        for m in pattern.finditer(text)][:1]
    # a number read inside a longer wording of another key is that key's ('stable on the vent x3d' is the
    # baseline's three days, not ventilator day 3)
    kept: list[VocabularyFact] = []
    for fact in sorted(numbers, key=lambda f: f.start - f.end):
        if not any(k.key != fact.key and k.start <= fact.start and fact.end <= k.end for k in kept):
            kept.append(fact)
    return sorted(found + kept, key=lambda f: (f.start, f.end)), weighed


def _without_alternatives(found: list[VocabularyFact], text: str) -> list[VocabularyFact]:
    """``found`` without the values of a key named as alternatives ("stable vs unstable", "shockable or not
    shockable"): a question weighing both states neither.

    >>> facts = [VocabularyFact(9, 15, "stable", "yes"), VocabularyFact(19, 27, "stable", "no")]
    >>> _without_alternatives(facts, "sort out stable vs unstable")
    []
    >>> len(_without_alternatives(facts, "sort out stable, now unstable"))
    2
    """
    weighed: set[VocabularyFact] = set()
    for first in found:
        for second in found:
            if (first.key == second.key and first.value != second.value and first.end <= second.start
                    and _ALTERNATIVE.fullmatch(text, first.end, second.start)):
                weighed |= {first, second}
    return [fact for fact in found if fact not in weighed]


def _in_range(number: float, spec: KeySpec) -> bool:
    return not ((spec.minimum is not None and number < spec.minimum)
                or (spec.maximum is not None and number > spec.maximum))


# "PEA arrest, … rhythm check now shows VF": a value stated after one of these words in its sentence is the value
# now, whatever an earlier mention of the same key said
_NOW = re.compile(r"\b(?:now|currently|at present|presently)\b")
_SENTENCE_END = re.compile(r"[.;!?]\s")


@dataclass(frozen=True)
class ThenAndNow:
    """What a question says held first (``then``) and holds now (``now``) for each key it states."""

    then: dict[str, float | str]
    now: dict[str, float | str]

    @property
    def earlier(self) -> dict[str, float | str]:
        """The keys the question says changed ("PEA arrest, … now VF"), each with the value stated first: what
        held when the steps it says were done were taken."""
        return {key: value for key, value in self.then.items() if self.now[key] != value}


def then_and_now(question: str, guidelines: Iterable[str]) -> ThenAndNow:
    """The onboarded ``guidelines``' keys stated in ``question``: the first mention of each is what held then; a
    later one said to hold now ("now", "currently" earlier in its sentence) is the value now, else the first. A
    question tells the course in order, and its facts are about the patient now.

    >>> then_and_now("PEA arrest, 2 min CPR. Rhythm check now shows VF. Next?", ["cardiac-smog"])
    ThenAndNow(then={'rhythm_shockable': 'no'}, now={'rhythm_shockable': 'yes'})
    >>> then_and_now("PEA arrest. Is VF next? Next?", ["cardiac-smog"]).now
    {'rhythm_shockable': 'no'}
    >>> then_and_now("PEA arrest, CPR going. What now if it turns into VF?", ["cardiac-smog"]).now
    {'rhythm_shockable': 'no'}
    >>> then_and_now("PEA arrest, 2 min CPR. Now VF. Next?", ["cardiac-smog"]).earlier
    {'rhythm_shockable': 'no'}
    """
    then: dict[str, float | str] = {}
    now: dict[str, float | str] = {}
    text = question.lower()
    for fact in find_vocabulary_facts(question, guidelines):
        if fact.key not in now:
            then[fact.key] = now[fact.key] = fact.value
            continue
        opening = max((m.end() for m in _SENTENCE_END.finditer(text, 0, fact.start)), default=0)
        closing = _SENTENCE_END.search(text + " ", fact.end)
        # a sentence that asks ("what now if VF?") states no value
        asks = closing is not None and closing.group().startswith("?")
        if fact.value != now[fact.key] and not asks and _NOW.search(text, opening, fact.start):
            now[fact.key] = fact.value
    return ThenAndNow(then, now)


def vocabulary_facts(question: str, guidelines: Iterable[str]) -> dict[str, float | str]:
    """``{key: value}`` for the onboarded ``guidelines``' keys stated in ``question``, as they hold now
    (:func:`then_and_now`)."""
    return then_and_now(question, guidelines).now


__all__ = ["ThenAndNow", "VocabularyFact", "find_vocabulary_facts", "keys_named", "onboarded_sources", "read_facts",
           "then_and_now", "vocabulary_facts"]
