"""Typed constraint forms (numeric min/max with strictness, categorical allowed/excluded values) to and from
canonical constraint texts, so the web app's typed inputs and the library's constraints agree."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

from dkg.errors import ConstraintError
from dkg.graph.model import constraints_to_properties
from dkg.types import Constraint, Op
from dkg.vocabulary import VOCABULARY, KeyKind


class TypedConstraint(BaseModel):
    """One key's constraint as typed inputs. Numeric keys use min/max(+strict); categorical keys values/not."""

    minimum: float | None = None
    maximum: float | None = None
    min_strict: bool = False
    max_strict: bool = False
    values: list[str] = Field(default_factory=list, max_length=50, description="allowed values (= / in)")
    not_values: list[str] = Field(default_factory=list, max_length=50, description="excluded values (!=)")

    @model_validator(mode="after")
    def _bounds(self) -> TypedConstraint:
        if self.minimum is not None and self.maximum is not None and self.minimum > self.maximum:
            raise ValueError(f"minimum {self.minimum:g} is above maximum {self.maximum:g}")
        return self


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def to_constraints(typed: dict[str, TypedConstraint]) -> list[str]:
    """Canonical constraint texts for a typed form; unknown keys or values raise :class:`ConstraintError`.

    >>> to_constraints({"age": TypedConstraint(minimum=40, maximum=69)})
    ['age in [40,69]']
    >>> to_constraints({"age": TypedConstraint(maximum=65, max_strict=True), "mrd": TypedConstraint(
    ...     values=["rising", "persistent"])})
    ['age<65', 'mrd in {persistent,rising}']
    """
    texts: list[str] = []
    for key, form in sorted(typed.items()):
        spec = VOCABULARY.get(key)
        if spec is None:
            raise ConstraintError(f"unknown constraint key {key!r}; known keys: {', '.join(sorted(VOCABULARY))}")
        if spec.kind is KeyKind.NUMERIC:
            if form.values or form.not_values:
                raise ConstraintError(f"{key} is numeric ({spec.unit}): give minimum/maximum, not values")
            lo, hi = form.minimum, form.maximum
            if lo is not None and hi is not None and not form.min_strict and not form.max_strict:
                texts.append(f"{key}={_num(lo)}" if lo == hi else f"{key} in [{_num(lo)},{_num(hi)}]")
            else:
                if lo is not None:
                    texts.append(f"{key}{'>' if form.min_strict else '>='}{_num(lo)}")
                if hi is not None:
                    texts.append(f"{key}{'<' if form.max_strict else '<='}{_num(hi)}")
        else:
            if form.minimum is not None or form.maximum is not None:
                raise ConstraintError(f"{key} is categorical: choose values, not a minimum/maximum")
            values = sorted({v.strip() for v in form.values if v.strip()})
            if len(values) == 1:
                texts.append(f"{key}={values[0]}")
            elif values:
                texts.append(f"{key} in {{{','.join(values)}}}")
            texts += [f"{key}!={v}" for v in sorted({v.strip() for v in form.not_values if v.strip()})]
    parsed = [Constraint.parse(t) for t in texts]
    constraints_to_properties(parsed)  # contradictions raise ConstraintError here
    return [str(c) for c in parsed]


def to_typed(constraints: list[str]) -> dict[str, dict[str, Any]]:
    """The typed form of canonical constraint texts (inverse of :func:`to_constraints`).

    >>> to_typed(["age in [40,69]", "comorbidity!=diabetes"])["age"]["minimum"]
    40.0
    """
    out: dict[str, TypedConstraint] = {}
    for text in constraints:
        c = Constraint.parse(text)
        form = out.setdefault(c.key, TypedConstraint())
        if VOCABULARY[c.key].kind is KeyKind.NUMERIC:
            if c.op is Op.IN and isinstance(c.value, tuple):
                lo, hi = c.value
                form.minimum, form.maximum = float(lo), float(hi)
            elif c.op is Op.EQ:
                form.minimum = form.maximum = float(c.value)  # type: ignore[arg-type]
            elif c.op in (Op.GT, Op.GE):
                form.minimum, form.min_strict = float(c.value), c.op is Op.GT  # type: ignore[arg-type]
            elif c.op in (Op.LT, Op.LE):
                form.maximum, form.max_strict = float(c.value), c.op is Op.LT  # type: ignore[arg-type]
            else:
                raise ConstraintError(f"{text!r}: '!=' on a numeric key has no typed input; edit it as text")
        else:
            values = sorted(c.value) if isinstance(c.value, frozenset) else [str(c.value)]
            (form.not_values if c.op is Op.NE else form.values).extend(values)
    return {k: v.model_dump() for k, v in out.items()}


def vocabulary_schema() -> list[dict[str, Any]]:
    """The vocabulary as the web app needs it to generate typed inputs."""
    return [
        {"key": s.name, "kind": s.kind.value, "description": s.description, "unit": s.unit,
         "minimum": s.minimum, "maximum": s.maximum, "values": list(s.values), "open": s.open}
        for s in VOCABULARY.values()
    ]
