"""Constraints for conditions the vocabulary does not know yet: proposed keys, and YES/NO branches.

A box stating one comparison ("Blood Glucose <70?", "Narrow QRS? <0.12 Second", "SBP <100") yields a
condition on a key named after its words; when no vocabulary key has those words as its name or a synonym,
the key itself is *proposed* (numeric, with the unit written in the box or the base vocabulary's
``proposal_units`` hint, e.g. glucose → mg/dL). A short question box ("Airway patent?") yields a proposed
boolean key. The condition of a question box goes onto its branch edges: YES gets the condition
(``blood_glucose<70``), NO its negation (``blood_glucose>=70``); a box without YES/NO branches keeps a
numeric condition itself. Proposals are reviewed by a curator before they enter a vocabulary file.

>>> condition_of("Blood Glucose <70?").text, condition_of("Blood Glucose <70?").proposal.unit
('blood_glucose<70', 'mg/dL')
>>> str(branch_condition(condition_of("Blood Glucose <70?"), "NO"))
'blood_glucose>=70'
>>> condition_of("Airway patent?").proposal.kind, str(branch_condition(condition_of("Airway patent?"), "Yes"))
('boolean', 'airway_patent=yes')
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from dkg.vocabulary import VOCABULARY, KeyKind, KeySpec, VocabularyError, base_units, check_unit, proposal_units

MAX_QUESTION_WORDS = 6
MAX_NAME_WORDS = 5
_NEGATION = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "!=", "!=": "="}
_SYMBOLS = {"≤": "<=", "≥": ">=", "=<": "<=", "=>": ">="}
_COMPARISON = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z0-9 /().'’-]*?)\s*\??\s*(?P<op><=|>=|=<|=>|≤|≥|<|>|=)\s*"
    r"(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)\s*(?P<unit>[^?]{0,30}?)\s*\??$"
)
# what may follow the number as its unit: signs, numbers and unit words only ("x10^9/L", "mL/min/1.73m2",
# "cells/mm3", "mm Hg"); a word of four letters or more outside ``_UNIT_NAMES`` is the box saying more
# ("SBP < 90 despite fluids?"), which one condition cannot hold
_UNIT_NAMES = frozenset({"cells", "hour", "hours", "days", "years", "weeks", "months", "minutes", "seconds",
                         "second", "breaths", "beats", "points", "kg/m2", "mmol", "mcg", "units"})
_LONG_WORD = re.compile(r"[A-Za-z]{4,}")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
# count units written per volume: 10^9/L is one per nanolitre, 10^3/µL (or /mm3) too
_COUNT_PER = re.compile(r"^(?:cells\s*)?[x×*]\s*10\s*\^?\s*(?P<power>\d+)\s*/\s*(?P<volume>L|µL|uL|mm3|mm\^3)$")
_PER_VOLUME = {("9", "L"): "1/nL", ("12", "L"): "1/pL", ("3", "µL"): "1/nL", ("3", "uL"): "1/nL",
               ("3", "mm3"): "1/nL", ("3", "mm^3"): "1/nL"}
_BARE = re.compile(r"^\s*(?:<=|>=|=<|=>|≤|≥|<|>)\s*\d")  # a comparison that names nothing: "<65 years"
_QUESTION = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9 /().'’-]*?)\s*\?$")
_QUOTES = re.compile(r"[\"“”‘’]")
# the words a question opens with before its subject: "Is the patient hypotensive?", "Does the patient have chest
# pain?", "Any signs of shock?", "Is SBP < 90?" ask about ``hypotensive``, ``chest pain``, ``signs of shock``, ``SBP``
_ASKING = re.compile(
    r"^(?:is|are|does|do|did|has|have|was|were|any)\s+(?:there\s+)?(?:the\s+|a\s+|an\s+|any\s+)?"
    r"(?:(?:patient|pt|person|child|infant|casualty|victim)(?:'s)?\s+)?(?:(?:has|have|had|show|shows|with)\s+)?"
    r"(?:(?:a|an|any)\s+)?",
    re.IGNORECASE)
_YES = {"yes", "y"}
_NO = {"no", "n"}
# Surface forms of units in boxes → pint units (anything else is handed to pint as written).
_UNIT_WORDS = {"°c": "degC", "° c": "degC", "c": "degC", "°f": "degF", "° f": "degF", "mm hg": "mmHg",
               "breaths/min": "1/min", "beats/min": "1/min", "hr": "hour", "hrs": "hour", "hour": "hour",
               "hours": "hour", "h": "hour",
               "day": "day", "days": "day", "%": "percent", "second": "second", "seconds": "second", "sec": "second",
               "secs": "second",
               "s": "second", "min": "minute", "mins": "minute", "minutes": "minute", "mg/dl": "mg/dL",
               "mmhg": "mmHg", "mmol/l": "mmol/L", "/min": "1/min", "bpm": "1/min", "years": "year",
               "yrs": "year", "kg": "kg", "cm": "cm"}


class ProposedKey(BaseModel):
    """A vocabulary key the extractor proposes (its file entry is made by :meth:`entry`)."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: Literal["numeric", "boolean"]
    description: str
    unit: str | None = None
    range: tuple[float, float] | None = None
    synonyms: tuple[str, ...] = ()

    def entry(self) -> dict[str, object]:
        """The entry to write under ``keys:`` of a guideline vocabulary file."""
        out: dict[str, object] = {"kind": self.kind, "description": self.description}
        if self.kind == "numeric":
            out["unit"] = self.unit or ""
            out["range"] = list(self.range or (0.0, 0.0))
        out["synonyms"] = list(self.synonyms)
        return out


@dataclass(frozen=True)
class Condition:
    """``key op value`` read from one box, with the key proposal when the key is new."""

    key: str
    op: str
    value: str
    proposal: ProposedKey | None = None

    @property
    def text(self) -> str:
        """Canonical constraint text (``blood_glucose<70``, ``rhythm_shockable=yes``)."""
        return f"{self.key}{self.op}{self.value}"

    def __str__(self) -> str:
        return self.text


def subject(name: str) -> str:
    """What a question asks about, without the words it opens with (the name itself when nothing is left).

    >>> subject("Is the patient hypotensive"), subject("Does the patient have chest pain"), subject("Pulse present")
    ('hypotensive', 'chest pain', 'Pulse present')
    """
    rest = _ASKING.sub("", name, count=1).strip()
    return rest or name


def written_forms(name: str) -> tuple[str, ...]:
    """How questions write a measured quantity a box names: its name, and the initials of a name of two to four
    words of four letters or more, as ward notes shorten them ("Blood Glucose" → ``bg``, "Glasgow Coma Scale" →
    ``gcs``); a name holding an abbreviation or a number ("QRS width", "SpO2") has no such initials.

    >>> written_forms("Blood Glucose"), written_forms("Glasgow Coma Scale"), written_forms("QRS Width")
    (('blood glucose', 'bg'), ('glasgow coma scale', 'gcs'), ('qrs width',))
    """
    parts = name.casefold().split()
    forms = [" ".join(parts)]
    if 2 <= len(parts) <= 4 and all(p.isalpha() and len(p) >= 4 for p in parts):
        forms.append("".join(p[0] for p in parts))
    return tuple(forms)


def slug(words: str) -> str:
    """A key name from words: ``"Blood Glucose"`` → ``blood_glucose``."""
    return re.sub(r"[^a-z0-9]+", "_", words.casefold()).strip("_")


def known_key(name: str) -> KeySpec | None:
    """The vocabulary key whose name or synonym is ``name`` (case-insensitive), if any."""
    wanted = " ".join(name.casefold().split())
    for spec in VOCABULARY.values():
        if wanted == spec.name.replace("_", " ") or wanted in spec.synonyms:
            return spec
    return None


def written_unit(written: str, named: str = "") -> str | None:
    """The unit the text after a box's number writes, or None when that text is no unit ("despite fluids"). A unit
    is signs, numbers and unit words; words the box already said before its comparison (``named``) are dropped
    from its end: a parser reads a box's hidden overflow glued on (smog-50 "Wide QRS? >0.09 SecondWide").

    >>> written_unit("x10^9/L"), written_unit("mL/min/1.73m2"), written_unit("cells/mm3")
    ('x10^9/L', 'mL/min/1.73m2', 'cells/mm3')
    >>> written_unit("despite fluids"), written_unit("SecondWide", "Wide QRS"), written_unit("SecondNarrow", "Wide QRS")
    (None, 'Second', None)
    """
    said = {w.casefold() for w in re.findall(r"[A-Za-z]+", named)}
    split = re.sub(r"([a-z]{2,})([A-Z][a-z]{2,})", r"\1 \2", written)
    if re.search(r"[;:,]", written) or any(
            _LONG_WORD.fullmatch(word) and word.casefold() not in _UNIT_NAMES | said | set(_UNIT_WORDS)
            for word in re.split(r"[\s/]+", split) if word):
        return None
    words = split.split()
    while len(words) > 1 and words[-1].casefold() in said:
        words.pop()
    return " ".join(words)


def pint_unit(written: str) -> str | None:
    """The pint unit a box's written unit means, or None when pint cannot read it (the curator then types one).

    >>> pint_unit("mm Hg"), pint_unit("cells/mm3"), pint_unit("x10^9/L"), pint_unit("× 10⁹/L"), pint_unit("/µL")
    ('mmHg', '1/mm**3', '1/nL', '1/nL', '1/µL')
    >>> pint_unit("mL/kg/h"), pint_unit("µmol/L"), pint_unit("mEq/L"), pint_unit("mL/min/1.73m2")
    ('mL/kg/hour', 'µmol/L', None, None)
    """
    text = " ".join(written.translate(_SUPERSCRIPTS).split())
    if text.casefold() in _UNIT_WORDS:
        return _UNIT_WORDS[text.casefold()]
    count = _COUNT_PER.match(text)
    if count is not None:
        return _PER_VOLUME.get((count["power"], count["volume"]))
    parts = [p.strip() for p in text.split("/")]
    parts = [_UNIT_WORDS.get(p.casefold(), p) for p in parts]
    parts = [re.sub(r"^(?:cells?|count)$", "", p) for p in parts]
    parts = [re.sub(r"^([A-Za-zµ]+)\^?([23])$", r"\1**\2", p) for p in parts]
    candidate = "/".join(p or "1" for p in parts) if len(parts) > 1 else parts[0]
    try:
        check_unit(candidate, "proposed", "a proposed key", base_units())
    except VocabularyError:
        return None
    return candidate


def _unit(written: str | None, name: str) -> str | None:
    if written:
        return pint_unit(written)
    lowered = name.casefold()
    for phrase, unit in proposal_units().items():
        if re.search(rf"(?<![a-z]){re.escape(phrase)}(?![a-z])", lowered):
            return unit
    return None


def _range(value: float) -> tuple[float, float]:
    """A generous plausible range around a threshold (the curator narrows it in review)."""
    top = 10 ** math.ceil(math.log10(max(abs(value), 1e-9) * 10))
    return (min(0.0, value), float(top))


def _number(text: str) -> str:
    value = float(text.replace(",", ""))
    return str(int(value)) if value.is_integer() else f"{value:g}"


def _bracketed(name: str, unit: str) -> tuple[str, str]:
    """The measured name and unit of a comparison inside a bracket the name opens: after the finding it defines
    ("Hypotension (SBP <90 mm Hg)": SBP, mm Hg; the closing bracket may be lost, "Tachycardia (HR > 150 bpm") or
    around the comparison alone ("Glucose (< 70 mg/dL)": Glucose, mg/dL). A unit in its own brackets loses them.

    >>> _bracketed("Hypotension (SBP ", "mm Hg)"), _bracketed("Tachycardia (HR ", "bpm"), _bracketed("SBP ", "(mmHg)")
    (('SBP ', 'mm Hg'), ('HR ', 'bpm'), ('SBP ', 'mmHg'))
    >>> _bracketed("Glucose (", "mg/dL)"), _bracketed("SBP (mmHg) ", ""), _bracketed("SBP ", "mm Hg")
    (('Glucose ', 'mg/dL'), ('SBP ', 'mmHg'), ('SBP ', 'mm Hg'))
    """
    if name.count("(") > name.count(")"):
        outer, inner = name.rsplit("(", 1)
        name = inner if inner.strip() else outer
        unit = unit[:-1].strip() if unit.endswith(")") and unit.count(")") > unit.count("(") else unit
    if unit.startswith("(") and unit.endswith(")"):
        unit = unit[1:-1].strip()
    named_unit = re.fullmatch(r"(.*\S)\s*\(([^()]+)\)\s*", name)
    if not unit and named_unit and pint_unit(named_unit[2]) is not None:
        return named_unit[1] + " ", named_unit[2]
    return name, unit


def _finding(name: str) -> str:
    """The words before a name's last opening bracket ("Hypotension" of "Hypotension (SBP")."""
    return name.rsplit("(", 1)[0].strip(" ?:/-")


def condition_of(text: str) -> Condition | None:
    """The condition one box states, or None (a box with several conditions or none is left to the curator)."""
    box = " ".join(_QUOTES.sub("", text).split()).strip(" *•")
    for symbol, ascii_op in _SYMBOLS.items():
        box = box.replace(symbol, ascii_op)
    match = _COMPARISON.match(box)
    if match:
        named, written = _bracketed(match["name"], match["unit"].strip())
        opened = match["name"].count("(") > match["name"].count(")")
        finding = _finding(match["name"]) if opened and named.strip() != _finding(match["name"]) else ""
        name = subject(named.strip(" ?:/-").strip())
        if not name or len(name.split()) > MAX_NAME_WORDS:
            return None
        if written:
            unit_part = written_unit(written, named)
            if unit_part is None:
                return None
            written = unit_part
        op = _SYMBOLS.get(match["op"], match["op"])
        value = _number(match["number"])
        spec = known_key(name)
        if spec is not None:
            if spec.kind is not KeyKind.NUMERIC:
                return None
            return Condition(spec.name, op, value)
        key = slug(name)
        unit = _unit(written or None, name)
        # a unit pint cannot read is left for the curator to write, and said in the description
        description = f"{name} ({finding})" if finding else name
        description += "" if unit or not written else f" (written unit: {written})"
        proposal = ProposedKey(name=key, kind="numeric", description=description, unit=unit,
                               range=_range(float(value)), synonyms=written_forms(name))
        return Condition(key, op, value, proposal)
    match = _QUESTION.match(box)
    if match and len(match["name"].split()) <= MAX_QUESTION_WORDS:
        name = subject(match["name"].strip(" /-").strip())
        spec = known_key(name)
        if spec is not None:
            return Condition(spec.name, "=", "yes") if spec.boolean else None
        key = slug(name)
        if not key:
            return None
        return Condition(key, "=", "yes",
                         ProposedKey(name=key, kind="boolean", description=name, synonyms=(name.casefold(),)))
    return None


def question_name(text: str) -> str | None:
    """The subject of the short question a box opens with, when it states no comparison: ``"QRS Width?"`` and
    ``"QRS Width? No unstable signs / symptoms"`` (the question, then what holds on the way in) → ``QRS Width``.

    >>> question_name("QRS Width? No unstable signs"), question_name("SBP < 90?"), question_name("Give fluids")
    ('QRS Width', None, None)
    """
    box = " ".join(_QUOTES.sub("", text).split()).strip(" *•")
    opening = box.split("?", 1)[0] + "?" if "?" in box else ""
    match = _QUESTION.match(opening)
    if match is None or len(match["name"].split()) > MAX_QUESTION_WORDS or _COMPARISON.match(opening):
        return None
    return subject(match["name"].strip(" /-").strip()) or None


def bare_comparison(question: str | None, text: str) -> Condition | None:
    """The comparison ``text`` states without naming what it compares (``"<65 years"``, ``"≤ 8"``), read on the
    ``question``'s subject (``Age`` → ``age<65``); None when ``text`` is no such comparison or there is no question.

    >>> str(bare_comparison("Age", "<65 years")), bare_comparison(None, "<65"), bare_comparison("Age", "Adult")
    ('age<65', None, None)
    """
    if question is None or not _BARE.match(text):
        return None
    condition = condition_of(f"{question} {text}")
    return condition if condition is not None and condition.op != "=" else None


def on_question_key(condition: Condition, question: str) -> Condition:
    """``condition`` (a comparison read in a box an unlabelled arrow of the question box ``question`` reaches)
    restated on the question's subject: the boxes answering "QRS Width?" with "Narrow QRS? <0.12 Second" and
    "Wide QRS? >0.12 Second" bound one quantity, ``qrs_width``, not two keys ``narrow_qrs`` and ``wide_qrs``."""
    spec = known_key(question)
    if spec is not None:
        return Condition(spec.name, condition.op, condition.value) if spec.kind is KeyKind.NUMERIC else condition
    key = slug(question)
    unit = condition.proposal.unit if condition.proposal is not None else None
    proposal = ProposedKey(name=key, kind="numeric", description=question, unit=unit or _unit(None, question),
                           range=_range(float(condition.value)), synonyms=written_forms(question))
    return Condition(key, condition.op, condition.value, proposal)


def branch(label: str) -> bool | None:
    """True for a YES branch label, False for NO, None for anything else (``YES YES``, a doubled label, is YES)."""
    words = set(re.sub(r"[.:!,]", " ", label).casefold().split())
    return True if words and words <= _YES else False if words and words <= _NO else None


def branch_condition(condition: Condition, label: str) -> Condition | None:
    """The condition an edge leaving a question box carries: as stated on YES, negated on NO, else None."""
    answer = branch(label)
    if answer is None:
        return None
    if answer:
        return condition
    if condition.op == "=" and condition.value == "yes":
        return Condition(condition.key, "=", "no", condition.proposal)
    return Condition(condition.key, _NEGATION[condition.op], condition.value, condition.proposal)
