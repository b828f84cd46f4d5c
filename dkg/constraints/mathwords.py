"""Replace mathematical words by symbols and read numeric constraints (age, ECOG PS, size, necrosis).

Works on one lower-cased phrase whose words are separated by single spaces, after
:func:`dkg.constraints.preprocess.preprocess` (so ranges already read ``15 to 39``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dkg.types import Constraint, Op
from dkg.vocabulary import VOCABULARY

NUM = r"\d+(?:\.\d+)?"
_UNIT = r"(?:years?\s+old|years?\s+of\s+age|years?|yrs?|yo|y|months?|mo|cm|%|percent)"
_GE_AFTER = r"(?:or|and)\s+(?:older|over|above|greater|more|higher|larger|bigger)(?!\s+than)"
_LE_AFTER = r"(?:or|and)\s+(?:younger|under|below|less|fewer|lower|smaller)(?!\s+than)"

# Ordered: longer phrases first. Each applies only when a number follows (or precedes, for the
# "65 or older" forms), so "less than CR" or "under observation" are left alone.
_SUBSTITUTIONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"\bbetween\s+(?:age\s+|ages\s+)?({NUM})\s*(?:{_UNIT}\s+)?(?:and|to|-)\s+({NUM})"), r"\1 to \2"),
    (re.compile(rf"\bfrom\s+(?:age\s+)?({NUM})\s*(?:{_UNIT}\s+)?(?:to|until)\s+({NUM})"), r"\1 to \2"),
    (re.compile(rf"\b({NUM})\s*(?:{_UNIT}\s+)?through\s+({NUM})"), r"\1 to \2"),
    (re.compile(rf"\b({NUM})\s*({_UNIT})?\s*(?:or|and)\s+older\b"), r"age ≥ \1 \2"),
    (re.compile(rf"\b({NUM})\s*({_UNIT})?\s*(?:or|and)\s+younger\b"), r"age ≤ \1 \2"),
    (re.compile(rf"\b({NUM})\s*({_UNIT})?\s*{_GE_AFTER}\b"), r"≥ \1 \2"),
    (re.compile(rf"\b({NUM})\s*({_UNIT})?\s*{_LE_AFTER}\b"), r"≤ \1 \2"),
    (re.compile(r"\bolder\s+than\s+(?:age\s+)?(?=\d)"), "age > "),
    (re.compile(r"\byounger\s+than\s+(?:age\s+)?(?=\d)"), "age < "),
    (re.compile(rf"\b({NUM})\s*({_UNIT})?\s*\+"), r"≥ \1 \2"),
    (re.compile(r"\b(?:greater|more|older|higher|larger)\s+than\s+or\s+equal\s+to\s+(?=\d)"), "≥ "),
    (re.compile(r"\b(?:less|younger|fewer|lower|smaller)\s+than\s+or\s+equal\s+to\s+(?=\d)"), "≤ "),
    (re.compile(r"\b(?:at\s+least|no\s+less\s+than|not\s+less\s+than|no\s+younger\s+than|minimum(?:\s+of)?)"
                r"\s+(?:age\s+)?(?=\d)"), "≥ "),
    (re.compile(r"\b(?:at\s+most|no\s+more\s+than|not\s+more\s+than|no\s+older\s+than|up\s+to|maximum(?:\s+of)?)"
                r"\s+(?:age\s+)?(?=\d)"), "≤ "),
    (re.compile(r"\b(?:less|younger|fewer|lower|smaller)\s+than\s+(?:age\s+)?(?=\d)"), "< "),
    (re.compile(r"\b(?:before|prior\s+to)\s+age\s+(?=\d)"), "age < "),
    (re.compile(r"\b(?:under|below|beneath)\s+(?:age\s+|the\s+age\s+of\s+)?(?=\d)"), "< "),
    (re.compile(r"\b(?:greater|more|older|higher|larger|bigger)\s+than\s+(?:age\s+)?(?=\d)"), "> "),
    (re.compile(r"\b(?:over|above|exceeding|beyond)\s+(?:age\s+|the\s+age\s+of\s+)?(?=\d)"), "> "),
    (re.compile(r"\bequal\s+to\s+(?=\d)"), "= "),
    (re.compile(r"\baged\b"), "age"),
    # "ECOG PS 3 or 4": adjacent scores joined by "or" form a range.
    (re.compile(r"\b((?:ecog|ps|performance\s+status)\s+(?:ps\s+)?)(\d)\s+or\s+(\d)\b"), r"\1\2 to \3"),
]


def symbolize(text: str) -> str:
    """Replace comparison words by symbols: "less than 65" → "< 65", "65 years or older" → "≥ 65 years"."""
    for pattern, replacement in _SUBSTITUTIONS:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


_CUES: list[tuple[str, re.Pattern[str]]] = [
    ("performance_status", re.compile(r"\b(?:ecog(?:\s+ps)?|performance\s+status|ps|zubrod)\b")),
    ("necrosis", re.compile(r"\bnecrosis\b")),
    ("tumor_size", re.compile(r"\b(?:tumou?r(?:\s+size)?|size|diameter|mass|lesion)\b")),
    ("age", re.compile(r"\b(?:age|ages|years?\s+old|children|adults?|adolescents?|infants?|aya)\b")),
]
_MENTION = re.compile(
    rf"(?P<op>[<>≤≥=])?\s*(?P<a>{NUM})(?:\s+to\s+(?P<b>{NUM}))?(?:\s*(?P<unit>{_UNIT})(?![\w]))?"
)
_JOINER = re.compile(r"^\s*(?:and|or|,|but|/)?\s*$")
_OPS = {"<": Op.LT, ">": Op.GT, "≤": Op.LE, "≥": Op.GE, "=": Op.EQ}


@dataclass
class NumericMention:
    start: int
    end: int
    op: Op | None
    low: float
    high: float | None
    key: str | None
    cue_adjacent: bool


_DURATION_BEFORE = re.compile(r"\b(?:for|every|within|during|until|x|over|at)\s*(?:[<>≤≥=]\s*)?$")
_FROM_DIAGNOSIS = re.compile(r"^\s*(?:from|after|since|of)\s+(?:the\s+)?(?:initial\s+|original\s+)?diagnosis")


def _unit_key(unit: str | None, text: str) -> str | None:
    if unit is None:
        return None
    if unit.startswith(("y", "mo", "month")):
        return "age"
    if unit == "cm":
        return "tumor_size"
    if unit in ("%", "percent"):
        return "necrosis" if "necrosis" in text else None
    return None


def _cue_before(text: str, position: int) -> tuple[str | None, bool]:
    """The nearest key cue before ``position`` and whether it sits right before the number."""
    best: tuple[int, str, int] | None = None
    for key, pattern in _CUES:
        for match in pattern.finditer(text, 0, position):
            if best is None or match.end() > best[0]:
                best = (match.end(), key, match.start())
    if best is None:
        return None, False
    between = text[best[0]:position]
    adjacent = re.fullmatch(r"\s*(?:of|is|at|[:=(])?\s*", between) is not None
    return best[1], adjacent


def find_numeric(text: str) -> tuple[list[Constraint], list[tuple[int, int]]]:
    """Numeric constraints in a symbolized phrase and the character spans they came from."""
    mentions: list[NumericMention] = []
    for match in _MENTION.finditer(text):
        start = match.start("op") if match["op"] else match.start("a")
        # A number glued to letters (T315I, 11q23, BCR-ABL1) is not a quantity.
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "-:."):
            continue
        if match.end("a") < len(text) and text[match.end("a")].isalpha() and not match["unit"]:
            continue
        unit = match["unit"]
        cue, adjacent = _cue_before(text, start)
        key = _unit_key(unit, text) or cue
        scale = 1 / 12 if unit and unit.startswith(("mo", "month")) else 1.0
        if key == "age" and unit and _FROM_DIAGNOSIS.match(text[match.end():]):
            # "relapse less than 24 months from diagnosis": an interval, counted in months.
            key, scale = "time_to_relapse", (1.0 if unit.startswith(("mo", "month")) else 12.0)
        elif key == "age" and not (cue == "age" and adjacent) and _DURATION_BEFORE.search(text[:start]):
            continue  # "for at least 2 years", "every 3 months": a duration, not an age
        low = float(match["a"]) * scale
        high = float(match["b"]) * scale if match["b"] else None
        mentions.append(NumericMention(start, match.end(), _OPS.get(match["op"] or ""), low, high, key,
                                       adjacent and cue == key))
    # A mention without a key borrows it from a neighbour joined by "and"/"or"/",": "age < 65 and > 35".
    for index, mention in enumerate(mentions):
        if mention.key is not None:
            continue
        for other in (mentions[index - 1] if index else None, mentions[index + 1] if index + 1 < len(mentions)
                      else None):
            if other is None or other.key is None:
                continue
            between = text[mention.end:other.start] if other.start > mention.start else text[other.end:mention.start]
            if _JOINER.match(between):
                mention.key = other.key
                break
    constraints: list[Constraint] = []
    spans: list[tuple[int, int]] = []
    for mention in mentions:
        if mention.key is None:
            continue
        spec = VOCABULARY[mention.key]
        value: float | tuple[float, float]
        if mention.high is not None and mention.op is None:
            lo, hi = sorted((mention.low, mention.high))
            op, value = Op.IN, (lo, hi)
            numbers = [lo, hi]
            # A range reaching the scale's end is a one-sided bound: "ECOG 0-1" is PS <= 1.
            if spec.minimum is not None and lo == spec.minimum:
                op, value = Op.LE, hi
            elif spec.maximum is not None and hi == spec.maximum:
                op, value = Op.GE, lo
        elif mention.op is not None and mention.high is None:
            op, value, numbers = mention.op, mention.low, [mention.low]
        elif mention.op is None and mention.high is None and mention.cue_adjacent:
            op, value, numbers = Op.EQ, mention.low, [mention.low]
        else:
            continue
        if any(spec.minimum is not None and n < spec.minimum or spec.maximum is not None and n > spec.maximum
               for n in numbers):
            continue
        constraints.append(Constraint(key=mention.key, op=op, value=value))
        spans.append((mention.start, mention.end))
    return constraints, spans
