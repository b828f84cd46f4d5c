"""FHIRPath applicability expressions for the DKG's typed constraints, evaluated over a patient's Bundle
(Patient + Observations). Each expression is true only when the patient's data states the key and its value
satisfies the constraint, which is the DKG query's strict rule (a path passes a condition only on stated facts).

Age is read from ``Patient.birthDate`` as completed years on ``today()``; every other key is the value of the
Observation whose code the mapping names (a coded value, or a Quantity in the mapped UCUM unit).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from dkg.fhir.codes import CodeMap, Coding, KeyCode
from dkg.vocabulary import VOCABULARY, KeyKind

UCUM = "http://unitsofmeasure.org"
PATIENT = "Bundle.entry.resource.ofType(Patient)"
ANY_VALUE = "any"  # a categorical value meaning "any value except none" (dkg/vocabulary.py, metastasis)
NONE_VALUE = "none"


def _literal(text: str) -> str:
    """A FHIRPath string literal.

    >>> _literal("it's")
    "'it\\\\'s'"
    """
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _coding_test(coding: Coding) -> str:
    return f"(system = {_literal(coding.system)} and code = {_literal(coding.code)})"


def observation(entry: KeyCode) -> str:
    """The Observations of a key: ``Bundle.entry.resource.ofType(Observation).where(<code matches>)``."""
    assert entry.code is not None
    return (f"Bundle.entry.resource.ofType(Observation).where(code.coding.where({_coding_test(entry.code)})"
            ".exists())")


def _coded(entry: KeyCode) -> str:
    return f"{observation(entry)}.value.ofType(CodeableConcept).coding"


def _quantity(entry: KeyCode) -> str:
    unit = _literal(entry.unit or "")
    return f"{observation(entry)}.value.ofType(Quantity).where(system = {_literal(UCUM)} and code = {unit}).value"


def presence(entry: KeyCode) -> str:
    """True when the patient's data states this key."""
    if entry.source == "birthDate":
        return f"{PATIENT}.birthDate.exists()"
    return f"{_quantity(entry)}.exists()" if entry.numeric else f"{_coded(entry)}.exists()"


def _years_ago(years: int) -> str:
    return f"today() - {years} years" if years else "today()"


@dataclass(frozen=True)
class Bounds:
    """The typed properties of one key on one node or arrow (dkg/graph/model.py)."""

    minimum: float | None = None
    min_strict: bool = False
    maximum: float | None = None
    max_strict: bool = False
    not_equal: tuple[float, ...] = ()
    allowed: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()

    @classmethod
    def of(cls, key: str, props: Mapping[str, Any]) -> Bounds:
        if VOCABULARY[key].kind is KeyKind.NUMERIC:
            return cls(minimum=props.get(f"{key}_min"), min_strict=bool(props.get(f"{key}_min_strict")),
                       maximum=props.get(f"{key}_max"), max_strict=bool(props.get(f"{key}_max_strict")),
                       not_equal=tuple(float(v) for v in props.get(f"{key}_ne") or ()))
        return cls(allowed=tuple(str(v) for v in props.get(key) or ()),
                   excluded=tuple(str(v) for v in props.get(f"{key}_not") or ()))


def _age_tests(b: Bounds) -> list[str]:
    # completed years n satisfy n >= v ⇔ n >= ceil(v); n > v ⇔ n >= floor(v)+1; n <= v ⇔ n < floor(v)+1;
    # n < v ⇔ n < ceil(v); and n >= k ⇔ birthDate <= today() - k years, n < k ⇔ birthDate > today() - k years
    tests = []
    if b.minimum is not None:
        least = math.floor(b.minimum) + 1 if b.min_strict else math.ceil(b.minimum)
        tests.append(f"$this <= {_years_ago(least)}")
    if b.maximum is not None:
        below = math.ceil(b.maximum) if b.max_strict else math.floor(b.maximum) + 1
        tests.append(f"$this > {_years_ago(below)}")
    for v in b.not_equal:
        if float(v).is_integer():
            tests.append(f"($this > {_years_ago(int(v))} or $this <= {_years_ago(int(v) + 1)})")
    return tests


def _number_tests(b: Bounds) -> list[str]:
    tests = []
    if b.minimum is not None:
        tests.append(f"$this {'>' if b.min_strict else '>='} {_number(b.minimum)}")
    if b.maximum is not None:
        tests.append(f"$this {'<' if b.max_strict else '<='} {_number(b.maximum)}")
    return tests + [f"$this != {_number(v)}" for v in b.not_equal]


def _matching(collection: str, tests: list[str]) -> str:
    # one pass over the patient's data: some stated value passes every test
    return f"{collection}.where({' and '.join(tests)}).exists()" if tests else f"{collection}.exists()"


@dataclass(frozen=True)
class Written:
    """A key's expression, or the values (or the key itself) the mapping has no code for."""

    expression: str | None
    unmapped_values: tuple[str, ...] = ()
    key_unmapped: bool = False


def _categorical(entry: KeyCode, b: Bounds, codes: CodeMap) -> Written:
    missing = tuple(v for v in (*b.allowed, *b.excluded) if v != ANY_VALUE and codes.value(entry.key, v) is None)
    none = codes.value(entry.key, NONE_VALUE)
    if ANY_VALUE in b.allowed and none is None:
        missing += (NONE_VALUE,)
    if missing:
        return Written(None, tuple(sorted(set(missing))))
    tests = []
    if b.allowed:
        named = [_coding_test(c) for v in b.allowed if v != ANY_VALUE and (c := codes.value(entry.key, v))]
        options = [f"coding.where({' or '.join(named)}).exists()"] if named else []
        if ANY_VALUE in b.allowed and none is not None:
            options.append(f"(coding.exists() and coding.where({_coding_test(none)}).empty())")
        tests.append(options[0] if len(options) == 1 else "(" + " or ".join(options) + ")")
    for v in b.excluded:
        coding = codes.value(entry.key, v)
        assert coding is not None
        tests.append(f"coding.where({_coding_test(coding)}).empty()")
    return Written(_matching(f"{observation(entry)}.value.ofType(CodeableConcept)", tests))


def write(key: str, props: Mapping[str, Any], codes: CodeMap) -> Written:
    """The applicability expression of the constraints on ``key`` held in typed properties ``props``."""
    entry = codes.key(key)
    if entry is None or (entry.source == "observation" and entry.code is None):
        return Written(None, key_unmapped=True)
    bounds = Bounds.of(key, props)
    if entry.source == "birthDate":
        return Written(_matching(f"{PATIENT}.birthDate", _age_tests(bounds)))
    if entry.numeric:
        return Written(_matching(_quantity(entry), _number_tests(bounds)))
    return _categorical(entry, bounds, codes)


@lru_cache(maxsize=8192)
def compiled(expression: str) -> Callable[..., list[Any]]:
    """``expression`` compiled by fhirpathpy against the R4 model (cached: compiling is the slow part)."""
    from fhirpathpy import compile as compile_fhirpath
    from fhirpathpy.models import models

    fn: Callable[..., list[Any]] = compile_fhirpath(expression, models["r4"])
    return fn


def is_true(expression: str, resource: dict[str, Any]) -> bool:
    """Whether ``expression`` evaluates to exactly ``true`` on ``resource`` (empty counts as not true)."""
    return compiled(expression)(resource) == [True]


@lru_cache(maxsize=8192)
def syntax_errors(expression: str) -> tuple[str, ...]:
    """The FHIRPath grammar's complaints about ``expression`` (fhirpathpy itself recovers from them silently);
    cached, as parsing is most of an export's time and versions share most expressions."""
    from antlr4 import CommonTokenStream, InputStream
    from antlr4.error.ErrorListener import ErrorListener
    from fhirpathpy.parser.generated.FHIRPathLexer import FHIRPathLexer
    from fhirpathpy.parser.generated.FHIRPathParser import FHIRPathParser

    found: list[str] = []

    class Collect(ErrorListener):
        def syntaxError(self, recognizer: object, symbol: object, line: int, column: int, msg: str,
                        e: object) -> None:
            found.append(f"column {column}: {msg}")

    lexer = FHIRPathLexer(InputStream(expression))
    lexer.removeErrorListeners()
    lexer.addErrorListener(Collect())
    parser = FHIRPathParser(CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.addErrorListener(Collect())
    tree = parser.expression()
    if not found and parser.getCurrentToken().type != -1:  # input left over after a complete expression
        found.append(f"unexpected {parser.getCurrentToken().text!r}")
    del tree
    return tuple(found)
