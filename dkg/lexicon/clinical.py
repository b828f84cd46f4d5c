"""Clinical shorthand in questions → patient facts, from the curator-editable ``data/clinical_facts.yaml``.

:func:`clinical_facts` reads ages and sexes written as ward shorthand (22F, 52 yo M, 22-month-old), ECOG/KPS,
sizes in any length unit (pint converts them to the vocabulary's cm), MRD percentages, relapse intervals, IMDC
factor counts, numbers written as words, fixed wordings (Ph-pos, CR1, pT3a, s/p nephrectomy ...) and terms
whose polarity matters ("no PMH", "not fit"), negated with negspaCy's NegEx on a blank spaCy pipeline (no model
download). A fact the question says is not established yet ("comorbidities haven't been reviewed") gives no
value and is listed in :attr:`ClinicalReading.unknown` instead.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from dkg.lexicon.loader import validated_file
from dkg.lexicon.spans import KeySpans
from dkg.vocabulary import VOCABULARY, KeyKind

if TYPE_CHECKING:
    from spacy.language import Language

CLINICAL_FACTS_PATH = Path(__file__).resolve().parent / "data" / "clinical_facts.yaml"
FactValue = float | str


def _check_key(key: str) -> str:
    if key not in VOCABULARY:
        raise ValueError(f"unknown fact key {key!r}; known: {', '.join(sorted(VOCABULARY))}")
    return key


def _check_value(key: str, value: str) -> None:
    spec = VOCABULARY[key]
    if spec.kind is KeyKind.NUMERIC:
        if _stated_value(key, value) is None:
            raise ValueError(f"{value!r} is not a number in the range of {key!r}")
        return
    if spec.kind is KeyKind.CATEGORICAL and not spec.open and value not in spec.values:
        raise ValueError(f"{value!r} is not a value of {key!r}; allowed: {', '.join(spec.values)}")


class PatternEntry(BaseModel):
    """A regular expression for one fact: a number (group ``n``) converted or scaled, or a fixed value."""

    model_config = ConfigDict(extra="forbid")

    key: str
    regex: str
    unit: str | None = Field(default=None, description="unit of the number ('from_text': group 'u')")
    scale: dict[str, FactValue] | None = Field(default=None, description="'lo-hi' ranges → value")
    value: str | None = None
    shares_words: bool = Field(default=False, description="the same words state another fact too (pT3a: the stage, "
                               "and that the tumour was taken out): the match claims no text from other facts")
    case_sensitive: bool = Field(default=False, description="matched on the question as written: short capitals "
                                 "that are other words in lower case ('OS' osteosarcoma, not 'os')")

    _check = field_validator("key")(_check_key)

    @model_validator(mode="after")
    def _consistent(self) -> PatternEntry:
        if sum(x is not None for x in (self.unit, self.scale, self.value)) > 1:
            raise ValueError("give at most one of unit, scale and value")
        if self.value is not None:
            _check_value(self.key, self.value)
        for span in self.scale or {}:
            if not re.fullmatch(r"\d+(?:\.\d+)?-\d+(?:\.\d+)?", span):
                raise ValueError(f"scale range {span!r} must be 'lo-hi'")
        return self


class ConceptEntry(BaseModel):
    """Terms whose value depends on whether the question affirms or negates them."""

    model_config = ConfigDict(extra="forbid")

    key: str
    terms: list[str]
    affirmed: str | None = None
    negated: str | None = None

    _check = field_validator("key")(_check_key)

    @model_validator(mode="after")
    def _values(self) -> ConceptEntry:
        for value in (self.affirmed, self.negated):
            if value is not None:
                _check_value(self.key, value)
        return self


class OutOfScopeRequest(BaseModel):
    """A kind of request the guideline flowcharts do not answer (dosing, vaccination ...)."""

    model_config = ConfigDict(extra="forbid")

    pattern: str
    reason: str


class OutOfScope(BaseModel):
    """Diseases and requests outside the guideline pathways."""

    model_config = ConfigDict(extra="forbid")

    diseases: list[str] = Field(default_factory=list)
    requests: list[OutOfScopeRequest] = Field(default_factory=list)
    # first words of a sentence that asks something (with or without "?"); a request is out of scope only
    # where it is asked, so "Vaccinations are up to date." in a case summary does not make it a vaccine question
    ask_starts: list[str] = Field(default_factory=list)
    # an asked sentence matching this asks a drug's dose: answered from a chart box that gives the dose
    # (:mod:`dkg.qa.dose_in_box`), out of scope where no box of a loaded chart gives it
    dose_asked: str = ""


_COMPARISON = re.compile(r"^(<=|>=|<|>)\s*(-?\d+(?:\.\d+)?)$")


class Implication(BaseModel):
    """A fact the question implies when it states another and leaves this key unstated. ``when`` maps a key to
    the values that imply (categorical) or to a comparison such as ``'>=90'`` (numeric); ``unless`` maps a key to
    stated values that cancel it (a surgery done says the old tumour was resectable, not the recurrence)."""

    model_config = ConfigDict(extra="forbid")

    when: dict[str, list[str] | str]
    then: dict[str, str]
    unless: dict[str, list[str]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _keys(self) -> Implication:
        for key, values in self.when.items():
            _check_key(key)
            if isinstance(values, str):
                if VOCABULARY[key].kind is not KeyKind.NUMERIC or not _COMPARISON.match(values):
                    raise ValueError(f"when.{key}: {values!r} must be a comparison like '>=90' on a numeric key")
                continue
            for value in values:
                _check_value(key, value)
        for key, value in self.then.items():
            _check_key(key)
            _check_value(key, value)
        for key, values in self.unless.items():
            _check_key(key)
            for value in values:
                _check_value(key, value)
        return self


class NumberWordContext(BaseModel):
    """Where a number written as a word is read as a number: right after one of ``before`` ('stage four',
    'ECOG of one') or right before one of ``after`` ('seventy-one yr old', 'two IMDC factors')."""

    model_config = ConfigDict(extra="forbid")

    before: list[str] = Field(default_factory=list)
    after: list[str] = Field(default_factory=list)


class NegationSettings(BaseModel):
    """How a fixed wording is found negated: a NegEx cue (negspaCy's clinical termset plus
    ``negation_cues``) at most ``window`` tokens before it in the same clause; ``clause_ends`` are extra
    termination terms ('no PMH, Ph+ ALL': the comma ends the negated clause)."""

    model_config = ConfigDict(extra="forbid")

    window: int = Field(default=4, ge=0, le=20)
    clause_ends: list[str] = Field(default_factory=list)
    hypothetical_cues: list[str] = Field(default_factory=list, description="'risk of', 'to prevent': what follows "
                                                                           "is a possibility, not a fact")
    scale_keys: list[str] = Field(default_factory=list, description="keys whose wordings give a place on a scale "
                                  "(a TNM stage), never a finding a cue denies: such a wording ends the scope of a "
                                  "cue before it ('no adenopathy cT1a N0'); one right after 'no'/'not' states nothing")

    @field_validator("scale_keys")
    @classmethod
    def _scale_keys(cls, keys: list[str]) -> list[str]:
        return [_check_key(k) for k in keys]


ANY_KEY = "*"


class DoneParticles(BaseModel):
    """Words that report a step done only in a short clause ('pads on', 'IV in', 'on monitor'): ``ending`` as
    the clause's last word, ``opening`` as its first, in a clause of at most ``max_words`` words."""

    model_config = ConfigDict(extra="forbid")

    ending: list[str] = Field(default_factory=list)
    opening: list[str] = Field(default_factory=list)
    max_words: int = Field(default=3, ge=2)


class NotFact(BaseModel):
    """Text of another scale that looks like a fact ('CKD stage 4' is no cancer stage): never read as ``keys``.

    ``keys: ["*"]`` holds for every key, an onboarded guideline's own included ('third shock': a defibrillation,
    not the haemodynamic shock a vocabulary may name).
    """

    model_config = ConfigDict(extra="forbid")

    keys: list[str] = Field(min_length=1)
    regex: str

    @field_validator("keys")
    @classmethod
    def _known(cls, keys: list[str]) -> list[str]:
        return [k if k == ANY_KEY else _check_key(k) for k in keys]

    @field_validator("regex")
    @classmethod
    def _compiles(cls, regex: str) -> str:
        try:
            re.compile(regex)
        except re.error as exc:
            raise ValueError(f"{regex!r} is not a regular expression: {exc}") from exc
        return regex


class CourseEvents(BaseModel):
    """An event that starts a new line of the pathway (a relapse): facts of ``resets`` stated before its first
    mention, or in one of ``history_wordings``, describe the earlier course and are not read."""

    model_config = ConfigDict(extra="forbid")

    event: dict[str, list[str]] = Field(default_factory=dict)
    onset: dict[str, list[str]] = Field(
        default_factory=dict, description="values saying the course has just begun (a new diagnosis): they place a "
        "patient only where a decision names them, never at a test that excludes another value")
    resets: list[str] = Field(default_factory=list)
    history_wordings: list[str] = Field(default_factory=list)
    restated_by: dict[str, dict[str, list[str]]] = Field(
        default_factory=dict, description="event value → facts that only restate it (key → values)")

    @model_validator(mode="after")
    def _keys(self) -> CourseEvents:
        for key, values in (*self.event.items(), *self.onset.items()):
            _check_key(key)
            for value in values:
                _check_value(key, value)
        for key in self.resets:
            _check_key(key)
        events = {v for values in self.event.values() for v in values}
        for event, facts in self.restated_by.items():
            if event not in events:
                raise ValueError(f"restated_by: {event!r} is not a course event; events: {', '.join(sorted(events))}")
            for key, values in facts.items():
                _check_key(key)
                for value in values:
                    _check_value(key, value)
        return self


class ClinicalLexiconData(BaseModel):
    """The validated content of ``clinical_facts.yaml``."""

    model_config = ConfigDict(extra="forbid")

    numbers: dict[str, int]
    number_context: NumberWordContext = Field(default_factory=NumberWordContext)
    negation: NegationSettings = Field(default_factory=NegationSettings)
    patterns: list[PatternEntry]
    phrases: dict[str, dict[str, list[str]]]
    concepts: list[ConceptEntry]
    unknown_cues: list[str]
    negation_cues: list[str]
    pseudo_negation_cues: list[str] = Field(default_factory=list, description="wordings that start like a negation "
                                            "and negate nothing after them ('no longer - new metastases')")
    position_keys: dict[str, int] = Field(default_factory=dict,
                                          description="facts that place a patient in the pathway → weight")

    @field_validator("position_keys")
    @classmethod
    def _position_keys(cls, keys: dict[str, int]) -> dict[str, int]:
        for key in keys:
            _check_key(key)
        return keys
    position_values: dict[str, list[str]] = Field(
        default_factory=dict, description="key → values that place a patient like a position key (a finding of the "
        "course tested only after treatment has begun), without weighing in the ranking as one")

    @field_validator("position_values")
    @classmethod
    def _position_values(cls, values: dict[str, list[str]]) -> dict[str, list[str]]:
        for key in values:
            _check_key(key)
        return values
    broader: dict[str, dict[str, str]] = Field(default_factory=dict, description="subtype value → broader value")
    implications: list[Implication] = Field(default_factory=list)
    treatment_aliases: dict[str, str] = Field(default_factory=dict, description="short name → full name")
    not_treatments: list[str] = Field(default_factory=list)
    question_cues: dict[Literal["advise", "conditions"], list[str]] = Field(default_factory=dict)
    out_of_scope: OutOfScope = Field(default_factory=OutOfScope)
    not_facts: list[NotFact] = Field(default_factory=list)
    value_precedence: dict[str, list[str]] = Field(default_factory=dict,
                                                   description="key → values that win over its other values")
    course_events: CourseEvents = Field(default_factory=CourseEvents)
    done_cues: list[str] = Field(default_factory=list, description="words saying a step was done ('done')")
    done_step_cues: list[str] = Field(default_factory=list, description="words saying a step was done that also "
                                      "name it ('primary resected': the resection)")
    done_stop_words: list[str] = Field(default_factory=list, description="words too common to tell steps apart")
    done_particles: DoneParticles = Field(default_factory=DoneParticles)
    not_done_wordings: list[str] = Field(default_factory=list, description="wordings with a done cue that report a "
                                         "result, not a step done ('complete response')")

    @field_validator("value_precedence")
    @classmethod
    def _precedence(cls, precedence: dict[str, list[str]]) -> dict[str, list[str]]:
        for key, values in precedence.items():
            _check_key(key)
            for value in values:
                _check_value(key, value)
        return precedence

    @field_validator("question_cues")
    @classmethod
    def _cues_compile(cls, cues: dict[str, list[str]]) -> dict[str, list[str]]:
        for kind, patterns in cues.items():
            for pattern in patterns:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise ValueError(f"question_cues.{kind}: {pattern!r} is not a regular expression: {exc}") from exc
        return cues

    @field_validator("phrases")
    @classmethod
    def _phrase_keys(cls, phrases: dict[str, dict[str, list[str]]]) -> dict[str, dict[str, list[str]]]:
        for key, values in phrases.items():
            _check_key(key)
            for value in values:
                _check_value(key, value)
        return phrases


@dataclass(frozen=True)
class FactSpan:
    """One fact read from the question, with the characters it was read from."""

    key: str
    value: FactValue
    start: int
    end: int
    source: Literal["pattern", "shared", "phrase", "concept"]


@dataclass
class ClinicalReading:
    """What the clinical layer read: facts (with spans) and the keys the question says are not known yet."""

    facts: list[FactSpan] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def load_clinical_lexicon(path: Path = CLINICAL_FACTS_PATH) -> ClinicalLexiconData:
    """The lexicon file, validated; :class:`LexiconError` names the file and the bad entry."""
    return validated_file(path, ClinicalLexiconData)


@lru_cache(maxsize=1)
def _units() -> Any:
    import pint

    return pint.UnitRegistry()


def _to_unit(number: float, unit: str, key: str) -> float:
    """``number`` ``unit`` in the vocabulary unit of ``key`` (years for age, cm for sizes, months ...)."""
    target = {"years": "year", "cm": "cm", "months": "month", "%": None, "ECOG": None}.get(VOCABULARY[key].unit or "")
    if target is None:
        return number
    registry = _units()
    return float(registry.Quantity(number, unit).to(target).magnitude)


def _in_scale(number: float, scale: dict[str, FactValue]) -> FactValue | None:
    for span, value in scale.items():
        lo, hi = (float(x) for x in span.split("-"))
        if lo <= number <= hi:
            return value
    return None


@dataclass(frozen=True)
class DigitText:
    """A question with its numbers written as words turned into digits where a fact follows or precedes
    ('stage four' → 'stage 4'); ``origin[i]`` is the index in the original text of character ``i``."""

    text: str
    origin: tuple[int, ...]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original characters of ``text[start:end]``."""
        if not self.origin:
            return start, end
        return self.origin[min(start, len(self.origin) - 1)], self.origin[max(min(end, len(self.origin)) - 1, 0)] + 1


@dataclass(frozen=True)
class Negation:
    """Where NegEx (negspaCy) finds negation cues in one question: cue tokens and clause boundaries."""

    token_starts: tuple[int, ...]
    cue_ends: tuple[int, ...]
    boundaries: tuple[tuple[int, int], ...]
    window: int
    cue_starts: tuple[int, ...]
    """The first token of each cue (same order as ``cue_ends``)."""

    def negates(self, start: int) -> bool:
        """Whether the text starting at character ``start`` follows a cue within the window, same clause."""
        return self.cue_before(start) is not None

    def in_cue(self, start: int) -> bool:
        """Whether the token at character ``start`` is part of a cue ('no', 'negative for')."""
        token = max(bisect_right(self.token_starts, start) - 1, 0)
        return any(a <= token < b for a, b in zip(self.cue_starts, self.cue_ends, strict=True))

    def cue_before(self, start: int) -> int | None:
        """Where the nearest cue that negates the text at character ``start`` ends (the character after it), or
        None when no cue does."""
        token = max((i for i, s in enumerate(self.token_starts) if s <= start), default=0)
        clause = next(((a, b) for a, b in self.boundaries if a <= token < b), (0, len(self.token_starts)))
        ends = [end for end in self.cue_ends if clause[0] <= end <= token and token - end <= self.window]
        if not ends:
            return None
        end = max(ends)
        return self.token_starts[end] if end < len(self.token_starts) else start


def _phrase_regex(phrase: str) -> re.Pattern[str]:
    """A fixed wording as whole words, a space or hyphen between words optional; a sign at its end is required
    ('bcr-abl1-' does not match 'BCR-ABL1 MRD')."""
    text = phrase.strip().lower()
    sign = text[-1] if len(text) > 1 and text[-1] in "+-" else ""
    stem = text[:-1] if sign else text
    body = re.escape(stem).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]?") + re.escape(sign)
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])")


class ClinicalLexicon:
    """The compiled lexicon: regexes, phrase patterns and a negspaCy pipeline for the concept terms."""

    def __init__(self, data: ClinicalLexiconData) -> None:
        self.data = data
        words = "|".join(sorted(map(re.escape, data.numbers), key=len, reverse=True))
        number = rf"(?:\d{{1,3}}(?:\.\d+)?|{words})"
        self.patterns = [(p, re.compile(p.regex.replace("{num}", number), 0 if p.case_sensitive else re.IGNORECASE))
                         for p in data.patterns]
        self.phrases = sorted(((key, value, phrase, _phrase_regex(phrase))
                               for key, values in data.phrases.items() for value, phrases in values.items()
                               for phrase in phrases), key=lambda e: -len(e[2]))
        self.unknown_cues = [_phrase_regex(c) for c in data.unknown_cues]
        self.not_facts = [(entry, re.compile(entry.regex, re.IGNORECASE)) for entry in data.not_facts]
        terms = sorted({t.lower() for c in data.concepts for t in c.terms}, key=len, reverse=True)
        self.concept_terms = re.compile(r"\b(?:" + "|".join(map(re.escape, terms)) + r")\b")
        self._nlp: Language | None = None
        self._negex_nlp: Language | None = None
        self._number_word = re.compile(self._number_word_regex(), re.IGNORECASE)
        context = data.number_context
        self._number_before = re.compile(r"(?:^|\W)(?:" + "|".join(map(re.escape, context.before)) + r")[\s:=-]*$",
                                         re.IGNORECASE) if context.before else None
        self._number_after = re.compile(r"^[\s-]*(?:" + "|".join(map(re.escape, context.after)) + r")(?![a-z])",
                                        re.IGNORECASE) if context.after else None

    def _number_word_regex(self) -> str:
        numbers = self.data.numbers
        tens = sorted((w for w, v in numbers.items() if v >= 20 and v % 10 == 0), key=len, reverse=True)
        units = sorted((w for w, v in numbers.items() if 0 < v < 10), key=len, reverse=True)
        single = sorted(numbers, key=len, reverse=True)
        compound = (rf"(?P<tens>{'|'.join(tens)})[\s-](?P<unit>{'|'.join(units)})|" if tens and units else "")
        return rf"(?<![a-z0-9-])(?:{compound}(?P<single>{'|'.join(single)}))(?![a-z0-9])"

    def digits(self, question: str) -> DigitText:
        """``question`` with numbers written as words in digits where :attr:`number_context` allows."""
        pieces: list[str] = []
        origin: list[int] = []
        last = 0
        for m in self._number_word.finditer(question):
            before_ok = self._number_before is not None and self._number_before.search(question[:m.start()])
            after_ok = self._number_after is not None and self._number_after.match(question[m.end():])
            if not (before_ok or after_ok):
                continue
            numbers = self.data.numbers
            value = (numbers[m["tens"].lower()] + numbers[m["unit"].lower()]) if m["tens"] else \
                numbers[m["single"].lower()]
            pieces.append(question[last:m.start()])
            origin.extend(range(last, m.start()))
            digits = str(value)
            pieces.append(digits)
            # every digit stands for the whole word: a span over the digits maps onto the word
            origin.extend([m.start()] * (len(digits) - 1) + [m.end() - 1])
            last = m.end()
        if not pieces:
            return DigitText(question, ())
        pieces.append(question[last:])
        origin.extend(range(last, len(question)))
        return DigitText("".join(pieces), tuple(origin))

    @property
    def negex_nlp(self) -> Language:
        """spaCy blank English + sentencizer + negspaCy's NegEx (clinical termset, the lexicon's extra cues and
        clause ends); used for where the cues are, not to tag entities."""
        if self._negex_nlp is None:
            import spacy
            from negspacy.negation import Negex  # noqa: F401  (registers the 'negex' factory)
            from negspacy.termsets import termset

            nlp = spacy.blank("en")
            nlp.add_pipe("sentencizer")
            terms = termset("en_clinical")
            terms.add_patterns({"preceding_negations": [*self.data.negation_cues,
                                                        *self.data.negation.hypothetical_cues],
                                "pseudo_negations": list(self.data.pseudo_negation_cues),
                                "termination": list(self.data.negation.clause_ends)})
            nlp.add_pipe("negex", config={"neg_termset": terms.get_patterns()})
            self._negex_nlp = nlp
        return self._negex_nlp

    def negation(self, question: str) -> Negation:
        """The NegEx cues and clause boundaries of ``question`` (see :class:`Negation`)."""
        nlp = self.negex_nlp
        doc = nlp(question)
        negex: Any = nlp.get_pipe("negex")
        preceding, _following, terminating = negex.process_negations(doc)
        boundaries = negex.termination_boundaries(doc, terminating)
        return Negation(tuple(t.idx for t in doc), tuple(end for _id, _start, end in preceding),
                        tuple(boundaries), self.data.negation.window,
                        cue_starts=tuple(start for _id, start, _end in preceding))

    def number(self, text: str) -> float:
        word = text.lower()
        return float(self.data.numbers[word]) if word in self.data.numbers else float(word)

    @property
    def nlp(self) -> Language:
        """spaCy blank English + sentencizer + entity ruler (concept terms) + NegEx (built once)."""
        if self._nlp is None:
            import spacy
            from negspacy.negation import Negex  # noqa: F401  (registers the 'negex' factory)
            from negspacy.termsets import termset

            nlp = spacy.blank("en")
            nlp.add_pipe("sentencizer")
            ruler = nlp.add_pipe("entity_ruler")
            patterns = []
            for index, concept in enumerate(self.data.concepts):
                for term in concept.terms:
                    patterns.append({"label": f"C{index}", "pattern": [{"LOWER": w} for w in term.lower().split()]})
            ruler.add_patterns(patterns)  # type: ignore[attr-defined]
            terms = termset("en_clinical")
            terms.add_patterns({"preceding_negations": list(self.data.negation_cues),
                                "pseudo_negations": list(self.data.pseudo_negation_cues)})
            nlp.add_pipe("negex", config={"neg_termset": terms.get_patterns(),
                                          "ent_types": [f"C{i}" for i in range(len(self.data.concepts))]})
            self._nlp = nlp
        return self._nlp

    def read(self, question: str) -> ClinicalReading:
        """Facts the question states in clinical shorthand (no overlaps; patterns, then phrases, then concepts)."""
        text = question.lower()
        claim = KeySpans(len(text)).claim
        reading = ClinicalReading()

        # facts written as 'key=value' (the clinician page's follow-up form adds them so): any vocabulary key
        for m in _STATED.finditer(text):
            stated = _stated_value(m["key"], m["value"])
            if stated is not None and claim(m["key"], m.start(), m.end()):
                reading.facts.append(FactSpan(m["key"], stated, m.start(), m.end(), "pattern"))
        # lower() keeps the offsets of the question as written unless a letter changes length ('İ')
        as_written = question if len(question) == len(text) else text
        for entry, regex in self.patterns:
            for m in regex.finditer(as_written if entry.case_sensitive else text):
                value = self._pattern_value(entry, m)
                # a number claims the text from the number on, so 'relapsed at 20 months' still states a relapse
                start, end = m.start("n") if "n" in m.re.groupindex and m.group("n") else m.start(), m.end()
                # a group 't' is the text the fact is read from ('progressed on <nivolumab>': the progression
                # is another fact of the same words)
                if "t" in m.re.groupindex and m.group("t"):
                    start, end = m.span("t")
                if value is not None and claim(entry.key, start, end):
                    reading.facts.append(FactSpan(entry.key, value, start, end,
                                                  "shared" if entry.shares_words else "pattern"))
        negated = self.negation(question)
        in_a_cue_scope: list[tuple[str, FactValue, re.Match[str], int]] = []
        for key, value, _phrase, regex in self.phrases:
            for m in regex.finditer(text):
                if self._negated_phrase(text, m.start()):
                    continue
                cue = None if key in self.data.negation.scale_keys else negated.cue_before(m.start())
                if cue is not None:
                    in_a_cue_scope.append((key, value, m, cue))
                elif claim(key, m.start(), m.end()):
                    reading.facts.append(FactSpan(key, value, m.start(), m.end(), "phrase"))
        # once every other wording is read: a cue whose words already gave a fact before the wording
        for key, value, m, cue in in_a_cue_scope:
            if not self._cue_reaches(text, cue, reading.facts, m.start()) and claim(key, m.start(), m.end()):
                reading.facts.append(FactSpan(key, value, m.start(), m.end(), "phrase"))
        if not self.concept_terms.search(text):
            reading.facts.sort(key=lambda f: f.start)
            return reading
        for ent in self.nlp(question).ents:
            concept = self.data.concepts[int(ent.label_[1:])]
            clause = re.split(r"[.;,]| but | so | and (?=his|her|their)", text[ent.end_char:])[0]
            if any(cue.search(clause) for cue in self.unknown_cues):
                if concept.key not in reading.unknown:
                    reading.unknown.append(concept.key)
                continue
            cue = negated.cue_before(ent.start_char)
            negex = ent._.negex and (cue is None or self._cue_reaches(text, cue, reading.facts, ent.start_char))
            value = concept.negated if negex else concept.affirmed
            if value is not None and claim(concept.key, ent.start_char, ent.end_char):
                reading.facts.append(FactSpan(concept.key, value, ent.start_char, ent.end_char, "concept"))
        reading.facts.sort(key=lambda f: f.start)
        return reading

    @staticmethod
    def _cue_reaches(text: str, cue: int, found: list[FactSpan], start: int) -> bool:
        """Whether the NegEx cue ending at character ``cue`` still negates the wording at ``start``. A cue whose
        words already gave a fact before it ('no mets on CT chest resectable': metastasis=none) negates no later
        wording unless a list goes on with 'or' / 'nor' ('no mets or nodes'): without punctuation nothing else
        ends its scope."""
        before = [f.end for f in found if cue < f.end <= start]
        return not before or _LIST_GOES_ON.search(text[max(before):start]) is not None

    @staticmethod
    def _negated_phrase(text: str, start: int) -> bool:
        """A fixed wording directly after 'no'/'not' ('no progression') states nothing."""
        return re.search(r"(?:\bno|\bnot|\bwithout|\bnon)[\s-]+$", text[max(0, start - 9):start]) is not None

    def _pattern_value(self, entry: PatternEntry, m: re.Match[str]) -> FactValue | None:
        if entry.value is not None:
            # a fixed wording of a number ('bed-bound': ECOG 4) is read as that number
            return _stated_value(entry.key, entry.value) if VOCABULARY[entry.key].kind is KeyKind.NUMERIC \
                else entry.value
        number = self.number(m.group("n"))
        if entry.scale is not None:
            return _in_scale(number, entry.scale)
        if entry.unit == "from_text":
            unit = m.group("u")
            number = _to_unit(number, "mm" if unit.startswith("mil") or unit == "mm" else "cm", entry.key)
        elif entry.unit is not None:
            number = _to_unit(number, entry.unit, entry.key)
        spec = VOCABULARY[entry.key]
        if spec.minimum is not None and spec.maximum is not None and not spec.minimum <= number <= spec.maximum:
            return None
        return round(number, 2)


_LIST_GOES_ON = re.compile(r"\b(?:or|nor)\b|/")

_STATED = re.compile(r"(?<![a-z_])(?P<key>" + "|".join(sorted(map(re.escape, VOCABULARY), key=len, reverse=True))
                     + r")\s?=\s?(?P<value>[a-z0-9_+.\-]+)")


def _stated_value(key: str, value: str) -> FactValue | None:
    """The value of a 'key=value' fact when it is one the vocabulary allows (a number within range for a
    numeric key, one of the values of a categorical key), else None."""
    spec = VOCABULARY[key]
    if spec.kind is KeyKind.NUMERIC:
        try:
            number = float(value)
        except ValueError:
            return None
        low = spec.minimum if spec.minimum is not None else float("-inf")
        high = spec.maximum if spec.maximum is not None else float("inf")
        return number if low <= number <= high else None
    canonical = {v.lower(): v for v in spec.values}
    return canonical.get(value) if canonical else None


@lru_cache(maxsize=1)
def clinical_lexicon() -> ClinicalLexicon:
    """The shipped lexicon, compiled once per process."""
    return ClinicalLexicon(load_clinical_lexicon())


def digit_text(question: str) -> DigitText:
    """``question`` with numbers written as words in digits where a fact follows or precedes them."""
    return clinical_lexicon().digits(question)


def negation(question: str) -> Negation:
    """Where ``question`` negates what follows (NegEx cues, clause boundaries)."""
    return clinical_lexicon().negation(question)


def implied_facts(facts: dict[str, FactValue]) -> dict[str, FactValue]:
    """``facts`` plus what the lexicon's implications add for keys the question leaves unstated."""
    out = dict(facts)
    rules = clinical_lexicon().data.implications
    # until nothing changes: an implied fact may imply another (a margin → surgery done → resectable)
    for _ in range(len(rules) + 1):
        before = len(out)
        for rule in rules:
            if all(_holds(out.get(k), values) for k, values in rule.when.items()) and not any(
                    str(out.get(k)) in values for k, values in rule.unless.items()):
                for key, value in rule.then.items():
                    out.setdefault(key, value)
        if len(out) == before:
            break
    return out


def _holds(value: FactValue | None, condition: list[str] | str) -> bool:
    if isinstance(condition, list):
        return str(value) in condition
    match = _COMPARISON.match(condition)
    if not isinstance(value, float) or match is None:
        return False
    limit = float(match[2])
    return {"<": value < limit, "<=": value <= limit, ">": value > limit, ">=": value >= limit}[match[1]]


def with_treatment_names(question: str) -> str:
    """``question`` with the full names of treatments written short appended in brackets ('nivo/ipi' →
    '... [nivolumab + ipilimumab]'), so the text's own characters keep their positions."""
    lowered = question.lower()
    names = [full for short, full in clinical_lexicon().data.treatment_aliases.items()
             if re.search(rf"(?<![a-z0-9]){re.escape(short)}(?![a-z0-9])", lowered) and full not in lowered]
    names = [n for n in dict.fromkeys(names) if not any(n != other and n in other for other in names)]
    return f"{question} [{'; '.join(names)}]" if names else question


def asks(question: str, kind: Literal["advise", "conditions"]) -> bool:
    """Whether the question has the form of an advise (is X appropriate?) or conditions (for whom?) question."""
    data = clinical_lexicon().data
    cues = data.question_cues.get(kind, [])
    # only where the question asks: 'the tumour is resectable with acceptable function. Local control?' states
    # a fact with the word 'acceptable', it does not ask whether something is acceptable
    asked = asked_part(question)
    return any(re.search(cue, asked, re.IGNORECASE) for cue in cues)


def not_a_treatment(phrase: str) -> bool:
    """Words that occur in guideline steps but never name the treatment a question asks about."""
    return phrase.strip().lower() in {w.lower() for w in clinical_lexicon().data.not_treatments}


def out_of_scope(question: str) -> str | None:
    """Why the question is outside the guideline pathways (a disease no guideline covers, a dosing or
    vaccination request ...), or None."""
    scope = clinical_lexicon().data.out_of_scope
    lowered = question.lower()
    asked = " ".join(_asking_sentences(lowered, scope.ask_starts))
    for request in scope.requests:
        if re.search(request.pattern, asked):
            return f"{request.reason} is outside the guideline pathways, which recommend steps, not this"
    for disease in scope.diseases:
        if re.search(rf"(?<![a-z0-9]){re.escape(disease.lower())}(?![a-z0-9])", lowered):
            return f"the question is about {disease!r}, which no loaded guideline covers"
    return None


def asks_dose(question: str) -> bool:
    """Whether an asked sentence of ``question`` asks a drug's dose (the lexicon's ``out_of_scope.dose_asked``).

    >>> asks_dose("Brady 38, hypotensive. What's the max atropine dose?")
    True
    >>> asks_dose("Atropine 1 mg x3 given, still 38. Next?")
    False
    """
    pattern = clinical_lexicon().data.out_of_scope.dose_asked
    return bool(pattern) and re.search(pattern, asked_part(question).lower()) is not None


def asked_part(question: str) -> str:
    """The sentences of ``question`` that ask (all of it when none does), joined by a space.

    >>> asked_part("Stage IV RCC on cabozantinib. Is denosumab appropriate?")
    'Is denosumab appropriate?'
    """
    return " ".join(_asking_sentences(question, clinical_lexicon().data.out_of_scope.ask_starts))


def _asking_sentences(text: str, ask_starts: list[str]) -> list[str]:
    """The sentences of ``text`` that ask (end in "?" or open with an asking word); all of them if none does.

    >>> _asking_sentences("vaccinations are up to date. next step?", ["what"])
    ['next step?']
    >>> _asking_sentences("dasatinib starting dose in mg", ["what"])
    ['dasatinib starting dose in mg']
    """
    sentences = [s.strip() for s in re.split(r"(?<=[.?!;])\s+", text) if s.strip()]
    starts = tuple(w.lower() for w in ask_starts)
    asking = [s for s in sentences if s.endswith("?") or re.match(r"[a-z']+", s, re.IGNORECASE)
              and s.split()[0].lower() in starts]
    return asking or sentences


def clinical_facts(question: str) -> ClinicalReading:
    """Facts in clinical shorthand in ``question`` (see the module docstring)."""
    return clinical_lexicon().read(question)


@dataclass(frozen=True)
class NotFactSpan:
    """Text that must not be read as ``keys`` (every key when they hold ``*``)."""

    keys: frozenset[str]
    start: int
    end: int

    def blocks(self, key: str, start: int, end: int) -> bool:
        """Whether a reading of ``key`` over ``[start, end)`` overlaps this text and is one it forbids."""
        return (key in self.keys or ANY_KEY in self.keys) and start < self.end and self.start < end


def not_fact_spans(question: str) -> list[NotFactSpan]:
    """The text of ``question`` that must not be read as certain keys ('CKD stage 4': no cancer stage; 'shocked
    x3': a defibrillation, no fact of any key).

    >>> [(sorted(s.keys), s.start) for s in not_fact_spans("CKD stage 4, shocked x3")]
    [(['stage'], 0), (['*'], 13)]
    """
    lexicon = clinical_lexicon()
    return [NotFactSpan(frozenset(entry.keys), m.start(), m.end()) for entry, regex in lexicon.not_facts
            for m in regex.finditer(question)]


def blocked(spans: Iterable[NotFactSpan], key: str, start: int, end: int) -> bool:
    """Whether any of ``spans`` forbids reading ``key`` over ``[start, end)``."""
    return any(span.blocks(key, start, end) for span in spans)


def value_precedence(key: str) -> list[str]:
    """The values of ``key`` that win over its other values when a question states several (first wins)."""
    return clinical_lexicon().data.value_precedence.get(key, [])


def course_events() -> CourseEvents:
    """The events that start a new line of the pathway and the facts they make history (lexicon data)."""
    return clinical_lexicon().data.course_events
