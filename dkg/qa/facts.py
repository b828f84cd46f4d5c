"""Patient facts in a question: a light regex/vocabulary normaliser (no CoreNLP at question time).

:func:`extract_facts` finds ages (numbers or bands), ECOG, sizes, necrosis, relapse interval and the
categorical keys of :data:`dkg.vocabulary.VOCABULARY` (Ph status, MRD, stage, ...) in free text and
returns them as ``{key: value}`` with canonical values. :data:`SURFACE` is shared with the dataset
generator, which renders facts with the same phrases and checks that they are read back unchanged.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from dkg.errors import ConstraintError
from dkg.lexicon.clinical import (
    blocked,
    clinical_facts,
    course_events,
    digit_text,
    implied_facts,
    negation,
    not_fact_spans,
    value_precedence,
)
from dkg.lexicon.topics import guideline_topics, topics_data
from dkg.types import Constraint, Op
from dkg.vocabulary import VOCABULARY

FactValue = float | str
Facts = dict[str, FactValue]

# Generation AND parsing phrases per (key, value); first entries are the most common wording.
SURFACE: dict[tuple[str, str], tuple[str, ...]] = {
    ("ph", "+"): ("Ph-positive", "Ph+", "Philadelphia chromosome-positive", "Philadelphia-positive",
                  "BCR::ABL1-positive", "BCR-ABL1 positive"),
    ("ph", "-"): ("Ph-negative", "Ph-", "Philadelphia chromosome-negative", "Philadelphia-negative",
                  "BCR::ABL1-negative", "BCR-ABL1 negative"),
    ("lineage", "b_cell"): ("B-cell", "B-lineage", "precursor B-cell", "B-ALL"),
    ("lineage", "t_cell"): ("T-cell", "T-lineage", "T-ALL"),
    ("mrd", "negative"): ("MRD-negative", "MRD negative", "undetectable MRD", "no detectable residual disease"),
    ("mrd", "positive"): ("MRD-positive", "MRD positive", "detectable MRD", "MRD+"),
    ("mrd", "persistent"): ("persistent MRD", "MRD that persists"),
    ("mrd", "rising"): ("rising MRD", "increasing MRD levels"),
    ("response", "cr"): ("complete remission", "complete response", "CR"),
    ("response", "less_than_cr"): ("less than a complete remission", "incomplete response", "<CR",
                                   "no complete remission"),
    ("response", "pr"): ("partial response", "PR"),
    ("response", "stable"): ("stable disease",),
    ("response", "progression"): ("progressive disease", "disease progression"),
    ("response", "good"): ("good histologic response", "good response to chemotherapy"),
    ("response", "poor"): ("poor histologic response", "poor response to chemotherapy"),
    ("comorbidity", "none"): ("without substantial comorbidities", "no substantial comorbidities",
                              "no significant comorbidities", "otherwise fit"),
    ("comorbidity", "substantial"): ("with substantial comorbidities", "significant comorbidities",
                                     "multiple comorbidities", "unfit for intensive therapy"),
    ("comorbidity", "cardiac"): ("heart disease", "cardiac comorbidity", "heart failure"),
    ("comorbidity", "renal"): ("renal impairment", "chronic renal insufficiency"),
    ("comorbidity", "diabetes"): ("diabetes",),
    ("comorbidity", "liver"): ("liver disease", "hepatic impairment"),
    ("comorbidity", "pulmonary"): ("lung disease", "COPD"),
    ("stage", "I"): ("stage I", "stage 1"),
    ("stage", "II"): ("stage II", "stage 2"),
    ("stage", "III"): ("stage III", "stage 3"),
    ("stage", "IV"): ("stage IV", "stage 4"),
    ("stage", "V"): ("stage V", "stage 5", "bilateral Wilms tumor"),
    ("histology", "clear_cell"): ("clear-cell", "clear cell", "ccRCC"),
    ("histology", "non_clear_cell"): ("non-clear cell", "non–clear cell", "non-clear-cell"),
    ("histology", "papillary"): ("papillary",),
    ("histology", "chromophobe"): ("chromophobe",),
    ("histology", "favorable"): ("favorable histology", "favourable histology"),
    ("histology", "focal_anaplasia"): ("focal anaplasia",),
    ("histology", "diffuse_anaplasia"): ("diffuse anaplasia",),
    ("histology", "chondrosarcoma"): ("chondrosarcoma", "conventional chondrosarcoma"),
    ("histology", "dedifferentiated"): ("dedifferentiated chondrosarcoma",),
    ("histology", "mesenchymal"): ("mesenchymal chondrosarcoma",),
    ("histology", "ewing"): ("Ewing sarcoma", "Ewing's sarcoma", "Ewing"),
    ("histology", "osteosarcoma"): ("osteosarcoma", "osteogenic sarcoma"),
    ("histology", "ups"): ("undifferentiated pleomorphic sarcoma", "UPS of bone", "malignant fibrous histiocytoma"),
    ("grade", "low"): ("low-grade", "low grade", "grade 1"),
    ("grade", "intermediate"): ("intermediate-grade", "grade 2"),
    ("grade", "high"): ("high-grade", "high grade", "grade 3"),
    ("margin", "negative"): ("negative margins", "wide margins", "R0 resection", "clear margins"),
    ("margin", "positive"): ("positive margins", "R1 resection", "involved margins"),
    ("margin", "close"): ("close margins",),
    ("metastasis", "none"): ("localized", "no distant metastases", "non-metastatic", "no metastases"),
    ("metastasis", "any"): ("metastatic", "distant metastases", "metastatic disease"),
    ("metastasis", "lung"): ("lung metastases", "pulmonary metastases", "lung-only metastases"),
    ("metastasis", "bone"): ("bone metastases", "skeletal metastases"),
    ("metastasis", "brain"): ("brain metastases",),
    ("metastasis", "bone_marrow"): ("bone marrow metastases", "marrow involvement"),
    ("metastasis", "cns"): ("CNS involvement", "isolated CNS relapse", "central nervous system involvement"),
    ("prior_therapy", "transplant"): ("prior allogeneic HCT", "previous stem cell transplant"),
    ("prior_therapy", "chemotherapy"): ("prior chemotherapy", "previously treated with chemotherapy"),
    ("prior_therapy", "radiation"): ("prior radiotherapy", "previous radiation"),
    ("prior_therapy", "surgery"): ("after nephrectomy", "post-surgery", "after resection"),
    ("prior_therapy", "none"): ("treatment-naive", "no prior therapy"),
    ("prior_therapy", "tki"): ("prior TKI therapy",),
    ("prior_therapy", "immunotherapy"): ("prior immunotherapy", "previous checkpoint inhibitor"),
    ("risk", "low"): ("low risk", "low-risk"),
    ("risk", "standard"): ("standard risk", "standard-risk"),
    ("risk", "intermediate"): ("intermediate risk", "intermediate-risk"),
    ("risk", "high"): ("high risk", "high-risk"),
    ("risk", "very_high"): ("very high risk",),
    ("risk", "favorable"): ("favorable risk", "favorable-risk", "IMDC favorable"),
    ("risk", "poor"): ("poor risk", "poor-risk", "IMDC poor"),
    ("disease_status", "newly_diagnosed"): ("newly diagnosed", "new diagnosis"),
    ("disease_status", "relapsed"): ("relapsed", "relapse"),
    ("disease_status", "refractory"): ("refractory",),
    ("disease_status", "recurrent"): ("recurrent", "recurrence"),
    ("resectable", "yes"): ("resectable", "operable", "amenable to complete resection"),
    ("resectable", "no"): ("unresectable", "not resectable", "inoperable"),
    ("transplant_eligible", "yes"): ("transplant candidate", "eligible for transplant"),
    ("transplant_eligible", "no"): ("not a transplant candidate", "ineligible for transplant",
                                    "not eligible for transplant"),
    ("site", "extremity"): ("extremity", "limb"),
    ("site", "axial"): ("axial skeleton", "spine"),
    ("site", "pelvis"): ("pelvic", "pelvis"),
    ("site", "chest_wall"): ("chest wall",),
    ("site", "skull"): ("skull",),
}

# Parsing-only extras (never generated, so they are "unseen" wordings for the model).
_PARSE_ONLY: dict[tuple[str, str], tuple[str, ...]] = {
    ("ph", "+"): ("philadelphia positive", "ph positive", "bcr-abl positive", "bcr abl positive"),
    ("ph", "-"): ("philadelphia negative", "ph negative", "bcr-abl negative"),
    ("response", "cr"): ("in remission", "cr1"),
    ("comorbidity", "none"): ("no comorbidities", "no major comorbidities", "healthy otherwise"),
    ("comorbidity", "substantial"): ("frail", "serious comorbidities", "major comorbidities"),
    ("metastasis", "none"): ("no metastasis", "without metastases", "localised"),
    ("metastasis", "any"): ("metastases",),
    ("resectable", "no"): ("cannot be resected",),
    ("histology", "clear_cell"): ("clear cell rcc",),
}



class _TopicNames(Mapping[str, tuple[str, ...]]):
    """Guideline code → wordings that name its topic, read from the guideline sources and the lexicon's topic
    data on first use (:mod:`dkg.lexicon.topics`); no guideline is named in code."""

    def _names(self) -> dict[str, tuple[str, ...]]:
        return {t.guideline: tuple(n.alias for n in t.names if not n.in_context) for t in guideline_topics()}

    def __getitem__(self, guideline: str) -> tuple[str, ...]:
        return self._names()[guideline]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(guideline_topics())


GUIDELINE_NAMES: Mapping[str, tuple[str, ...]] = _TopicNames()

_AGE_WORDS = {"teens": (13, 19), "twenties": (20, 29), "thirties": (30, 39), "forties": (40, 49),
              "fifties": (50, 59), "sixties": (60, 69), "seventies": (70, 79), "eighties": (80, 89),
              "nineties": (90, 99)}
_DECADE = {f"{d}0s": (d * 10, d * 10 + 9) for d in range(2, 10)}
# A whole number, never the tail of a longer one ('1070-year-old' is 1070, not 70); a minus sign after a space
# is kept, so '-30-year-old' reads as -30 and is refused rather than read as 30.
NUM = r"((?:(?<![\w.])-)?(?<![\d.])\d+(?:\.\d+)?)"


def band_value(lo: int, hi: int) -> float:
    """The age a band stands for: its middle year (rounded down)."""
    return float(lo + (hi - lo) // 2)


def age_band(word: str, part: str = "") -> tuple[int, int] | None:
    """The years of a band word ('twenties', '60s') optionally narrowed by 'early'/'mid'/'late'."""
    word = word.lower()
    span = _AGE_WORDS.get(word) or _DECADE.get(word)
    if span is None:
        return None
    lo, hi = span
    if part == "early":
        return lo, lo + 3
    if part == "mid":
        return lo + 4, lo + 6
    if part == "late":
        return hi - 2, hi
    return lo, hi


_NUMERIC_PATTERNS: dict[str, tuple[str, ...]] = {
    "age": (rf"{NUM}[- ](?:year|yr)s?[- ]old", rf"\baged? {NUM}\b", rf"\b{NUM} ?(?:y/o|yo)\b",
            rf"\bage of {NUM}\b", rf"\b{NUM} years of age\b",
            # a duration is no age: '2 yrs ago', '3 yrs post allo-HCT', '2 yrs into CR1'
            rf"\b{NUM}[- ]?(?:year|yr)s?\b(?! from| after| since| ago| post| into| later| out)"),
    "performance_status": (rf"\becog(?: ps| performance status)?(?: of| score of| is|:)? ?{NUM}\b",
                           rf"\bperformance status(?: of| score of| is|:)? ?{NUM}\b", rf"\bps ?{NUM}\b"),
    "tumor_size": (rf"\b{NUM} ?-?cm\b", rf"\bmeasuring {NUM} ?centimet"),
    "necrosis": (rf"\b{NUM} ?%(?: tumou?r)? necrosis", rf"\bnecrosis (?:of |was |is )?{NUM} ?%"),
    "time_to_relapse": (rf"\b{NUM} months? (?:after|from|since) (?:the )?(?:initial |first )?diagnosis",
                        rf"\brelapse interval of {NUM} months"),
}
# "in the 30s", "in the high thirties" give a reading (a heart rate, a saturation), not an age: "in his 30s" does
_AGE_BAND = re.compile(r"\b(?:in (?:his|her|their) )?(?<!\bthe )(?<!\blow )(?<!\bhigh )(?<!\bupper )(?<!\blower )"
                       r"(?:(early|mid|late)[- ])?(teens|twenties|thirties|forties|"
                       r"fifties|sixties|seventies|eighties|nineties|[2-9]0s)\b", re.IGNORECASE)


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    # a space and a hyphen are interchangeable ('Philadelphia chromosome positive', 'B cell')
    body = re.escape(phrase.lower()).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]+")
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9+])")


@dataclass
class _Lexicon:
    entries: list[tuple[re.Pattern[str], str, str, int]] = field(default_factory=list)


def _build_lexicon() -> _Lexicon:
    lex = _Lexicon()
    for (key, value), phrases in list(SURFACE.items()) + list(_PARSE_ONLY.items()):
        for phrase in phrases:
            lex.entries.append((_phrase_pattern(phrase), key, value, len(phrase)))
    lex.entries.sort(key=lambda e: -e[3])
    return lex


_LEXICON = _build_lexicon()


@dataclass(frozen=True)
class FactMatch:
    key: str
    value: FactValue
    start: int
    end: int


@dataclass(frozen=True)
class RefusedFact:
    """A number stated for a fact that is outside the fact's allowed range ('a 1070-year-old')."""

    key: str
    value: float
    minimum: float
    maximum: float
    text: str

    @property
    def note(self) -> str:
        """``'age 1070 (allowed 0-120)'``."""
        return f"{self.key} {self.value:g} (allowed {self.minimum:g}-{self.maximum:g})"


def find_facts(question: str, refused: list[RefusedFact] | None = None) -> list[FactMatch]:
    """Every fact mention in ``question`` (no overlaps): numbers in clinical shorthand (:mod:`dkg.lexicon.clinical`),
    the generator's numeric patterns and phrases (longest first), then the lexicon's other wordings."""
    # numbers written as words next to a fact are read as digits ('stage four', 'seventy-one yr old'); spans are
    # mapped back onto the question's own characters at the end
    digits = digit_text(question)
    text = digits.text.lower()
    negated = negation(digits.text)
    taken = [False] * (len(text) + 1)
    found: list[FactMatch] = []

    def free(a: int, b: int) -> bool:
        return not any(taken[a:b])

    def take(a: int, b: int) -> None:
        for i in range(a, b):
            taken[i] = True

    clinical = clinical_facts(digits.text).facts
    not_facts = not_fact_spans(digits.text)

    def readable(key: str, a: int, b: int) -> bool:
        return not blocked(not_facts, key, a, b)
    # shorthand numbers (22F, 40 mm, MRD 0.08 %) before the generator's patterns; the generator's own phrases
    # before the lexicon's other wordings, so every generated question still reads back as it was written
    for span in clinical:
        if span.source == "pattern" and free(span.start, span.end) and readable(span.key, span.start, span.end):
            found.append(FactMatch(span.key, span.value, span.start, span.end))
            take(span.start, span.end)
    for key, patterns in _NUMERIC_PATTERNS.items():
        for pattern in patterns:
            for m in re.finditer(pattern, text):
                if free(m.start(), m.end()) and readable(key, m.start(), m.end()):
                    value = float(m.group(1))
                    spec = VOCABULARY[key]
                    if spec.minimum is not None and spec.maximum is not None and not (
                            spec.minimum <= value <= spec.maximum):
                        if refused is not None:
                            refused.append(RefusedFact(key, value, spec.minimum, spec.maximum, m.group(0)))
                        take(m.start(), m.end())
                        continue
                    found.append(FactMatch(key, value, m.start(), m.end()))
                    take(m.start(), m.end())
    for m in _AGE_BAND.finditer(text):
        band = age_band(m.group(2), (m.group(1) or "").lower())
        if band and free(m.start(), m.end()) and not any(f.key == "age" for f in found):
            found.append(FactMatch("age", band_value(*band), m.start(), m.end()))
            take(m.start(), m.end())
    for word_pattern, word_key, word_value, _ in _LEXICON.entries:
        for m in word_pattern.finditer(text):
            if free(m.start(), m.end()) and not negated.negates(m.start()) and readable(word_key, m.start(), m.end()):
                found.append(FactMatch(word_key, word_value, m.start(), m.end()))
                take(m.start(), m.end())
    for span in clinical:
        if span.source in ("phrase", "concept") and free(span.start, span.end) \
                and readable(span.key, span.start, span.end):
            found.append(FactMatch(span.key, span.value, span.start, span.end))
            take(span.start, span.end)
    # words that state two facts (pT3a: a stage, and a resection done) give the second without claiming them
    found += [FactMatch(span.key, span.value, span.start, span.end) for span in clinical
              if span.source == "shared" and readable(span.key, span.start, span.end)]
    return sorted((FactMatch(f.key, f.value, *digits.span(f.start, f.end)) for f in found), key=lambda f: f.start)


def extract_facts(question: str) -> Facts:
    """``{key: canonical value}`` for the facts stated in ``question``: the first mention of a key wins, except
    that a specific value beats the wildcard ``any`` ('metastatic ... bone mets' → metastasis=bone), a value the
    lexicon ranks first beats the others ('COPD ..., so substantial comorbidities'), and facts about the course
    before a relapse are history (:func:`current_mentions`)."""
    facts: Facts = {}
    others = other_patient_spans(question)
    matches = [m for m in find_facts(question) if not any(a <= m.start < b for a, b in others)]
    for match in current_mentions(question, matches):
        current = facts.get(match.key)
        if current == "any":
            facts[match.key] = match.value
        ranked = value_precedence(match.key)
        if current is not None and match.value in ranked and (
                current not in ranked or ranked.index(str(match.value)) < ranked.index(str(current))):
            facts[match.key] = match.value
        facts.setdefault(match.key, match.value)
    compared = compared_age(question)
    if compared is not None:
        facts["age"] = compared
    return facts


# two unlabelled patients told apart by age: 'one is 25, the other is 70 ... for the older one?'
_COMPARED_AGE = re.compile(r"\b(?:one|the other|another|the first|the second|the former|the latter)(?: patient)?"
                           r"(?: is|, aged| aged|,)? (?P<n>\d{1,3})(?:\s?(?:yo|y/o|years?(?: old)?))?\b", re.I)
_ASKED_BY_AGE = re.compile(r"\bthe (?P<which>older|elder|oldest|younger|youngest)(?: one| patient| of the two)?\b",
                           re.I)


def compared_age(question: str) -> float | None:
    """The age of the patient asked about where a question describes two patients by age only and asks about
    'the older one' / 'the younger one' (the largest or smallest of the ages stated), else None."""
    asked = _ASKED_BY_AGE.search(question)
    ages = [float(m.group("n")) for m in _COMPARED_AGE.finditer(question) if 0 < int(m.group("n")) <= 120]
    if asked is None or len(set(ages)) < 2:
        return None
    return max(ages) if asked.group("which").lower() in ("older", "elder", "oldest") else min(ages)


# a patient named by a label where a question compares two: 'Pt A ... Pt B', 'Mr A ... Mr B', 'patient 1 ... 2'
_PATIENT_LABEL = re.compile(r"\b(?P<title>(?i:pt|patient|case|mr|mrs|ms|miss))\.? ?(?P<label>[A-Da-d]|[1-4])\b")
_SENTENCE_END = re.compile(r"[.?!\n]+(?:\s|$)")


def _patient_labels(question: str) -> list[tuple[int, str]]:
    """(start, label) of each labelled patient in ``question``, labels in capitals. A letter typed in lower case
    ('mr a ... mr b') labels a patient only where the same title has another lower-case letter: alone it is an
    ordinary word ('in case a relapse', 'if they miss a dose').

    >>> _patient_labels("mr a is 40; mr b is 70. for mr b?")
    [(0, 'A'), (12, 'B'), (28, 'B')]
    >>> _patient_labels("in case a relapse occurs in pt 2")
    [(28, '2')]
    """
    found = [(m.start(), m["title"].lower(), m["label"]) for m in _PATIENT_LABEL.finditer(question)]
    lower: defaultdict[str, set[str]] = defaultdict(set)
    for _start, title, label in found:
        if label.islower():
            lower[title].add(label)
    return [(start, label.upper()) for start, title, label in found if not label.islower() or len(lower[title]) > 1]


def other_patient_spans(question: str) -> list[tuple[int, int]]:
    """Where a question describes two or more labelled patients ('Pt A is 45 and well. Pt B is 86 ... What for
    Pt B?'), the character spans about the patients it does not ask about: from each mention of another label to
    the next mention or the end of its sentence. The patient asked about is the one named in the last sentence
    that asks (ends with '?'), else the last one named. Text before the first label of a sentence is shared."""
    mentions = _patient_labels(question)
    if len({label for _, label in mentions}) < 2:
        return []
    ends = [m.end() for m in _SENTENCE_END.finditer(question)] + [len(question)]
    asked = mentions[-1][1]
    for start, end in zip([0, *ends], ends, strict=False):
        named = [label for at, label in mentions if start <= at < end]
        if named and question[start:end].rstrip().endswith("?"):
            asked = named[-1]
    spans = []
    for index, (at, label) in enumerate(mentions):
        if label == asked:
            continue
        sentence_end = next(e for e in ends if e > at)
        following = mentions[index + 1][0] if index + 1 < len(mentions) else len(question)
        spans.append((at, min(sentence_end, following)))
    return spans


def current_mentions(question: str, matches: list[FactMatch]) -> list[FactMatch]:
    """``matches`` without those describing the course before a relapse: once the question states an event of
    the lexicon's ``course_events`` (a relapse), a fact of its ``resets`` keys read from a wording of the first
    remission ('two years into CR1'), or stated before the event and again after it, is history, not where the
    patient is now."""
    events = course_events()
    # an event stated outright, or implied by a fact ('isolated CNS relapse': a relapse at a CNS site)
    starts = [m.start for m in matches if str(m.value) in events.event.get(m.key, []) or any(
        str(value) in events.event.get(key, []) for key, value in implied_facts({m.key: m.value}).items())]
    if not starts:
        return matches
    lowered = question.lower()
    history = {w.lower() for w in events.history_wordings}
    first = min(starts)
    # a key stated before the event and again after it: the earlier value describes the earlier course
    restated = {m.key for m in matches if m.key in events.resets and m.start > first}
    return [m for m in matches if not _restates_event(question, m, matches) and (m.key not in events.resets or (
        lowered[m.start:m.end] not in history and not (m.key in restated and m.start < first)))]


def _restates_event(question: str, match: FactMatch, matches: list[FactMatch]) -> bool:
    """Whether ``match`` only says what a course event in the same sentence is (lexicon ``restated_by``):
    'refractory to hyper-CVAD: no remission after two courses' states no response to a later line."""
    restated_by = course_events().restated_by
    for event in matches:
        values = restated_by.get(str(event.value), {}).get(match.key, [])
        if str(match.value) in values:
            start, end = sorted((event.start, match.start))
            if not re.search(r"[.;?!\n]", question[start:end]):
                return True
    return False


def unknown_facts(question: str) -> list[str]:
    """Keys the question says are not established yet ("comorbidities haven't been reviewed")."""
    return clinical_facts(question).unknown


def refused_facts(question: str) -> list[RefusedFact]:
    """The facts ``question`` states with impossible values (out of their key's range), in text order."""
    refused: list[RefusedFact] = []
    find_facts(question, refused)
    return refused


def named_guidelines(question: str) -> list[str]:
    """Guidelines whose topic the question names ('renal cell carcinoma', 'ALL'); a mention inside a longer
    mention of another topic names only that one ('post-cardiac arrest care' is not 'cardiac arrest')."""
    spans = {t.guideline: t.name_spans(question) for t in guideline_topics()}
    spans = {g: found for g, found in spans.items() if found}
    if len(spans) < 2:
        return list(spans)

    def inside_another(guideline: str, span: tuple[int, int]) -> bool:
        return any(o[0] <= span[0] and span[1] <= o[1] and o != span
                   for other, found in spans.items() if other != guideline for o in found)

    return [g for g, found in spans.items() if not all(inside_another(g, s) for s in found)]


def detect_guidelines(question: str) -> list[str]:
    """Guidelines the question's words name or imply (:func:`worded_guidelines`) or, failing that, the onboarded
    guideline whose own keys it states values on ("HR 120, unstable: next?")."""
    return worded_guidelines(question) or _owner_of_stated_keys(question)


def worded_guidelines(question: str) -> list[str]:
    """Guidelines the question names or, failing that, implies by its words: the lexicon's topic hints, or a value
    only one guideline tests. Values on a guideline's keys alone ("HR 120") are no such word."""
    named = named_guidelines(question)
    if named:
        return named
    # organ words that describe spread, site or comorbidity ('bone mets', 'renal impairment') imply no guideline
    masked = list(question.lower())
    not_hints = set(topics_data().not_hint_keys)
    for match in find_facts(question):
        if match.key in not_hints:
            masked[match.start:match.end] = " " * (match.end - match.start)
    lowered = "".join(masked)
    hinted = [t.guideline for t in guideline_topics() if t.hinted_in(lowered)]
    if hinted:
        return hinted
    # failing a name or hint: a stated fact value that only one guideline's decisions test ('high-grade OS':
    # histology=osteosarcoma) implies that guideline; when such values disagree, the values that name the disease
    # decide ('humerus OS, post-resection': a histology only bone tests, a surgery done only kidney tests)
    tested = _value_guidelines()
    disease_keys = set(topics_data().disease_keys)
    implied: set[str] = set()
    named_disease: set[str] = set()
    for key, value in extract_facts(question).items():
        testing = tested.get((key, str(value)), frozenset()) if key not in not_hints else frozenset()
        if len(testing) == 1:
            implied |= testing
            if key in disease_keys:
                named_disease |= testing
    for guess in (implied, named_disease):
        if len(guess) == 1:
            return sorted(guess)
    return []


def _owner_of_stated_keys(question: str) -> list[str]:
    """The onboarded guideline whose own vocabulary defines the keys the question states values on ('FiO2 up by
    0.25' states a numeric key of one onboarded guideline only), when it states a number on one of them or values
    in two wordings: one word ('stable', which may state two keys) is too common to name a guideline. None when the
    stated keys belong to several guidelines or to the base vocabulary only."""
    from dkg.qa.vocabulary_facts import find_vocabulary_facts
    from dkg.vocabulary import VOCABULARY, KeyKind, onboarded_sources

    onboarded = onboarded_sources()
    if not onboarded:
        return []
    stated = [f for f in find_vocabulary_facts(question, sorted(onboarded))
              if f.key in VOCABULARY and VOCABULARY[f.key].source in onboarded]
    owners = {VOCABULARY[f.key].source for f in stated}
    numeric = any(VOCABULARY[f.key].kind is KeyKind.NUMERIC for f in stated)
    wordings = {(f.start, f.end) for f in stated}
    return sorted(owners) if len(owners) == 1 and (numeric or len(wordings) >= 2) else []


@lru_cache(maxsize=1)
def _value_guidelines() -> dict[tuple[str, str], frozenset[str]]:
    """(key, categorical value) → the guidelines whose sources test it (newest version of each, discovered)."""
    from dkg.corpus.model import discover, load_guideline

    newest = {code: path for code, _version, path in discover()}
    found: dict[tuple[str, str], set[str]] = defaultdict(set)
    for code, path in newest.items():
        source = load_guideline(path)
        texts = [c for page in source.pages for box in page.boxes for c in box.constraints] + [
            c for page in source.pages for arrow in page.arrows for c in arrow.label_constraints]
        for text in texts:
            try:
                constraint = Constraint.parse(text)
            except ConstraintError:
                continue
            if constraint.op is Op.NE or not isinstance(constraint.value, (str, frozenset)):
                continue
            values = constraint.value if isinstance(constraint.value, frozenset) else {constraint.value}
            for value in values:
                found[(constraint.key, value)].add(code)
    return {k: frozenset(v) for k, v in found.items()}


def unknown_diseases(question: str) -> list[str]:
    """Diseases outside the loaded guidelines that the question names ('breast cancer', 'AML')."""
    lowered = question.lower()
    return [d for d in topics_data().other_diseases if re.search(rf"(?<![a-z]){re.escape(d)}(?![a-z])", lowered)]
