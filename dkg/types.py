"""Typed records shared by every stage: constraints, the head–tail CSV rows and a version's effective period.

Canonical constraint text (what CSVs, gold files and the CLI use)::

    age<65    age>=65    age in [15,39]    ph=+    mrd in {persistent,rising}    comorbidity!=diabetes

Unicode operators (≥ ≤ ≠) and ``==`` are accepted on input and normalised to ASCII.
A list of constraints is written comma-separated; an empty list is written ``NULL``.
"""

from __future__ import annotations

import math
import re
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from dkg.errors import ConstraintError, DKGError
from dkg.vocabulary import VOCABULARY, KeyKind

NULL = "NULL"

# Guideline and version names become parts of node ids (``guideline|version|key``) and of file names
# (``$DKG_HOME/pipelines/<guideline>-<version>/``): one pattern for each, checked wherever a name enters.
GUIDELINE_NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_-]{0,39}$"
VERSION_NAME_PATTERN = r"^[0-9A-Za-z][0-9A-Za-z._-]{0,19}$"
GUIDELINE_NAME_RULE = "a letter, then up to 39 letters, digits, '_' or '-' (e.g. ALL, kidney)"
VERSION_NAME_RULE = "a letter or digit, then up to 19 letters, digits, '.', '_' or '-', no '..' (e.g. 1.2026)"
NODE_UID_PATTERN = rf"^{GUIDELINE_NAME_PATTERN[1:-1]}\|{VERSION_NAME_PATTERN[1:-1]}\|[A-Za-z0-9_.-]{{1,64}}$"
"""What a node id can look like (``guideline|version|key``; built keys are 16 hex digits)."""


class InvalidNameError(DKGError, ValueError):
    """A guideline or version name does not follow its pattern (a ValueError, so pydantic models report it
    as a validation error of the field)."""


def check_guideline_name(name: str) -> str:
    """``name`` when it is a valid guideline name, else :class:`InvalidNameError` saying what is allowed.

    >>> check_guideline_name("ALL")
    'ALL'
    """
    if not isinstance(name, str) or not re.fullmatch(GUIDELINE_NAME_PATTERN, name):
        raise InvalidNameError(f"invalid guideline name {name!r}: use {GUIDELINE_NAME_RULE}")
    return name


def check_version_name(name: str) -> str:
    """``name`` when it is a valid version name, else :class:`InvalidNameError` saying what is allowed.

    >>> check_version_name("1.2026")
    '1.2026'
    """
    if not isinstance(name, str) or not re.fullmatch(VERSION_NAME_PATTERN, name) or ".." in name:
        raise InvalidNameError(f"invalid version name {name!r}: use {VERSION_NAME_RULE}")
    return name


def version_order(name: str) -> tuple[bool, tuple[tuple[tuple[int, int | str], ...], ...]]:
    """A sort key of version names, newest last: a name of numbers only (``1.2026``) after any other
    (``draft``); dotted parts compared from the last one (``1.2026`` is the first version of 2026, newer than
    ``3.2025``), numbers within a part by value, other text by its letters (``CY24``, ``2020a`` are valid too).

    >>> sorted(["1.2026", "3.2025", "2.2026", "draft"], key=version_order)
    ['draft', '3.2025', '1.2026', '2.2026']
    >>> sorted(["CY24", "CY9", "CY10a"], key=version_order)
    ['CY9', 'CY10a', 'CY24']
    """
    def part(text: str) -> tuple[tuple[int, int | str], ...]:
        return tuple((0, int(chunk)) if chunk.isdigit() else (1, chunk.casefold())
                     for chunk in re.findall(r"\d+|\D+", text))

    parts = name.split(".")
    return all(p.isdigit() for p in parts), tuple(part(p) for p in reversed(parts))


def path_under(root: Path, name: str) -> Path:
    """``root / name`` resolved, refusing (:class:`InvalidNameError`) a name that would lead out of ``root``
    or below one of its sub-folders (a second line of defence behind the name patterns).

    >>> path_under(Path("/data/pipelines"), "ALL-1.2026").as_posix()
    '/data/pipelines/ALL-1.2026'
    """
    base = root.resolve()
    path = (base / name).resolve()
    if path.parent != base:
        raise InvalidNameError(f"{name!r} would lead outside {base}; use plain guideline and version names")
    return path


GuidelineName = Annotated[str, AfterValidator(check_guideline_name)]
VersionName = Annotated[str, AfterValidator(check_version_name)]


class Op(StrEnum):
    EQ = "="
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    IN = "in"


NUMERIC_OPS = frozenset(Op)
CATEGORICAL_OPS = frozenset({Op.EQ, Op.NE, Op.IN})

ConstraintValue = float | str | tuple[float, float] | frozenset[str]

_UNICODE_OPS = {"≥": ">=", "≤": "<=", "≠": "!=", "==": "=", "=<": "<=", "=>": ">="}
_TOKEN = re.compile(r"^[A-Za-z0-9_+\-]+$")
_CONSTRAINT_RE = re.compile(
    r"^\s*(?P<key>[a-z][a-z0-9_]*)\s*(?:(?P<op><=|>=|!=|=|<|>)|\s(?P<in>in)\s)\s*(?P<value>.+?)\s*$"
)


_NUMBER_RE = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)")
NUMBER_FORMAT = "a plain decimal number such as 65, 2.5 or -1 (no NaN, infinity, exponent or '_')"


def parse_number(text: str, context: str) -> float:
    """A finite number written as plain decimal digits; anything else raises :class:`ConstraintError`.

    Python's ``float()`` also reads ``nan``, ``inf``, ``1e3`` and ``1_0``; a bound must be a number a curator
    can read back, so those are refused.

    >>> parse_number(" 2.5", "age"), parse_number("-1", "age")
    (2.5, -1.0)
    """
    if not _NUMBER_RE.fullmatch(text.strip()):
        raise ConstraintError(f"{context}: {text.strip()!r} is not a number; write {NUMBER_FORMAT}")
    return float(text)


def _format_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class Constraint(BaseModel):
    """One normalised patient constraint, validated against :data:`dkg.vocabulary.VOCABULARY`."""

    model_config = ConfigDict(frozen=True)

    key: str
    op: Op
    value: Annotated[ConstraintValue, Field(union_mode="left_to_right")]

    @model_validator(mode="after")
    def _validate(self) -> Constraint:
        spec = VOCABULARY.get(self.key)
        if spec is None:
            raise ValueError(f"unknown constraint key {self.key!r}; known keys: {', '.join(sorted(VOCABULARY))}")
        value = self.value
        if spec.kind is KeyKind.NUMERIC:
            if self.op is Op.IN:
                if not (isinstance(value, tuple) and len(value) == 2):
                    raise ValueError(f"{self.key} in … needs a range [lo,hi], got {value!r}")
                numbers = [float(value[0]), float(value[1])]
            else:
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    raise ValueError(f"{self.key} is numeric ({spec.unit}); got {value!r}")
                numbers = [float(value)]
            for number in numbers:
                if not math.isfinite(number):
                    raise ValueError(f"{self.key} bound {number!r} is not a finite number; write {NUMBER_FORMAT}")
            if self.op is Op.IN and numbers[0] > numbers[1]:
                raise ValueError(f"{self.key} range [{numbers[0]:g},{numbers[1]:g}] has lo > hi")
            for number in numbers:
                if spec.minimum is not None and number < spec.minimum or (
                    spec.maximum is not None and number > spec.maximum
                ):
                    raise ValueError(
                        f"{self.key}={number} outside the allowed range {spec.minimum}–{spec.maximum} {spec.unit}"
                    )
        else:
            if self.op not in CATEGORICAL_OPS:
                raise ValueError(f"{self.key} is categorical: use =, != or in, not {self.op.value}")
            values = sorted(value) if isinstance(value, frozenset) else [value]
            if self.op is Op.IN and not isinstance(value, frozenset):
                raise ValueError(f"{self.key} in … needs a set {{a,b}}, got {value!r}")
            if self.op is not Op.IN and not isinstance(value, str):
                raise ValueError(f"{self.key} needs a single value, got {value!r}")
            for item in values:
                if not isinstance(item, str):
                    raise ValueError(f"{self.key} values are words, got {item!r}")
                if item not in spec.values and not (spec.open and re.fullmatch(r"[a-z0-9_]+", item)):
                    raise ValueError(
                        f"{item!r} is not a value of {self.key}; allowed: {', '.join(spec.values)}"
                        + (" (or any lower_case token)" if spec.open else "")
                    )
        return self

    def __str__(self) -> str:
        value = self.value
        if self.op is Op.IN:
            if isinstance(value, tuple):
                return f"{self.key} in [{_format_number(value[0])},{_format_number(value[1])}]"
            assert isinstance(value, frozenset)
            return f"{self.key} in {{{','.join(sorted(value))}}}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"{self.key}{self.op.value}{_format_number(value)}"
        return f"{self.key}{self.op.value}{value}"

    @classmethod
    def parse(cls, text: str) -> Constraint:
        """Parse canonical constraint text (``age<65``, ``mrd in {persistent,rising}``)."""
        normalised = text
        for unicode_op, ascii_op in _UNICODE_OPS.items():
            normalised = normalised.replace(unicode_op, ascii_op)
        match = _CONSTRAINT_RE.match(normalised)
        if not match:
            raise ConstraintError(f"cannot read constraint {text!r}; expected e.g. 'age<65' or 'mrd in {{a,b}}'")
        key = match["key"]
        op = Op.IN if match["in"] else Op(match["op"])
        raw = match["value"]
        spec = VOCABULARY.get(key)
        if spec is None:
            raise ConstraintError(f"unknown constraint key {key!r} in {text!r}; known: {', '.join(sorted(VOCABULARY))}")
        value: ConstraintValue
        context = f"invalid constraint {text!r}"
        try:
            if op is Op.IN:
                if spec.kind is KeyKind.NUMERIC:
                    m = re.fullmatch(r"\[([^,\]]*),([^,\]]*)\]", raw)
                    if not m:
                        raise ConstraintError(f"{text!r}: a numeric range is written [lo,hi]")
                    value = (parse_number(m[1], context), parse_number(m[2], context))
                else:
                    m = re.fullmatch(r"\{(.*)\}", raw)
                    if not m:
                        raise ConstraintError(f"{text!r}: a set of values is written {{a,b}}")
                    value = frozenset(v.strip() for v in m[1].split(",") if v.strip())
            elif spec.kind is KeyKind.NUMERIC:
                value = parse_number(raw, context)
            else:
                value = raw.strip()
            return cls(key=key, op=op, value=value)
        except ConstraintError:
            raise
        except ValidationError as exc:
            reason = "; ".join(str(err["msg"]).removeprefix("Value error, ") for err in exc.errors())
            raise ConstraintError(f"invalid constraint {text!r}: {reason}") from exc
        except ValueError as exc:
            raise ConstraintError(f"invalid constraint {text!r}: {exc}") from exc


def constraint_key(constraint: str) -> str:
    """The key of a canonical constraint text, without checking it against the vocabulary (a proposed key may
    not be in it yet).

    >>> constraint_key("age in [40,64]"), constraint_key("ph!=+"), constraint_key("heart_rate<60")
    ('age', 'ph', 'heart_rate')
    """
    return re.split(r"\s+in\s+|!=|<=|>=|=|<|>", constraint, maxsplit=1)[0].strip()


def split_constraint_list(text: str) -> list[str]:
    """Split comma-separated constraint text, ignoring commas inside [] and {}."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    parts.append("".join(current).strip())
    return [p for p in parts if p]


def parse_constraints(text: str | None) -> list[Constraint]:
    """Parse a CSV cell: ``NULL`` or empty → ``[]``; else comma-separated constraints."""
    if text is None or text.strip() in ("", NULL):
        return []
    return [Constraint.parse(part) for part in split_constraint_list(text)]


def format_constraints(constraints: list[Constraint]) -> str:
    """Write constraints as a CSV cell, sorted for determinism; ``NULL`` when empty."""
    if not constraints:
        return NULL
    return ",".join(sorted({str(c) for c in constraints}))


class HeadTailEdge(BaseModel):
    """One arrow: the text of the box at its tail (``head``) and at its head (``tail``)."""

    model_config = ConfigDict(frozen=True)

    head: str
    tail: str
    label: str = ""
    page: str = ""
    head_box_id: str = ""
    tail_box_id: str = ""


HEAD_TAIL_COLUMNS: tuple[str, ...] = ("head", "tail", "label", "page", "head_box_id", "tail_box_id")
CONSTRAINED_COLUMNS: tuple[str, ...] = ("head", "head_constraints", "tail", "tail_constraints")


class EffectivePeriod(BaseModel):
    """The dates a guideline version is in force: from ``start``, until ``end`` (inclusive; open when absent).

    >>> EffectivePeriod(start=date(2026, 1, 15), end=date(2026, 6, 30)).covers(date(2026, 7, 1))
    False
    >>> EffectivePeriod.model_validate({"start": "2026-07-01"}).label()
    'effective from 2026-07-01'
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    start: date
    end: date | None = None

    @model_validator(mode="after")
    def _end_not_before_start(self) -> EffectivePeriod:
        if self.end is not None and self.end < self.start:
            raise ValueError(f"effective end {self.end.isoformat()} is before its start {self.start.isoformat()}; "
                             "give the last day the version is in force, on or after the start")
        return self

    @classmethod
    def of_row(cls, start: object, end: object) -> EffectivePeriod | None:
        """The period of a stored row's ``effective_start`` / ``effective_end`` (None: the row is undated)."""
        return None if start is None else cls.model_validate({"start": start, "end": end})

    def covers(self, day: date) -> bool:
        return self.start <= day and (self.end is None or day <= self.end)

    def label(self) -> str:
        until = f" to {self.end.isoformat()}" if self.end else ""
        return f"effective from {self.start.isoformat()}{until}"
