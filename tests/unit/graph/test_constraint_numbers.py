"""Numeric bounds are finite numbers written plainly, wherever constraints enter (text, CSV cell, typed form)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.api.typed import TypedConstraint, to_constraints
from dkg.errors import ConstraintError
from dkg.types import Constraint, Op, parse_constraints

NOT_NUMBERS = ["nan", "NaN", "inf", "-inf", "+Infinity", "1_0", "1e3", "0x10", "", "1.2.3"]


@pytest.mark.parametrize("number", NOT_NUMBERS)
@pytest.mark.parametrize("template", ["age>={}", "age={}", "age in [{},70]", "age in [10,{}]", "age!={}"])
def test_non_numbers_are_refused_with_the_value_named(template: str, number: str) -> None:
    text = template.format(number)
    with pytest.raises(ConstraintError) as err:
        parse_constraints(text)
    assert any(hint in str(err.value) for hint in ("is not a number", "numeric range", "cannot read"))


@pytest.mark.parametrize("number", ["nan", "inf", "1_0"])
def test_the_message_says_what_is_allowed(number: str) -> None:
    with pytest.raises(ConstraintError, match=rf"'{number}' is not a number; write a plain decimal number"):
        Constraint.parse(f"age>={number}")


def test_underscore_is_not_read_as_a_digit_group() -> None:
    with pytest.raises(ConstraintError):
        Constraint.parse("age>=1_0")
    assert Constraint.parse("age>=10").value == 10.0


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_values_are_refused_in_the_model(value: float) -> None:
    with pytest.raises(ValueError, match="not a finite number"):
        Constraint(key="age", op=Op.GE, value=value)
    with pytest.raises(ValueError, match="not a finite number"):
        Constraint(key="age", op=Op.IN, value=(value, 70.0))


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_typed_form_refuses_non_finite_bounds(value: float) -> None:
    with pytest.raises(ConstraintError, match="is not a number"):
        to_constraints({"age": TypedConstraint(minimum=value)})


@pytest.mark.parametrize(("text", "value"), [("age>=65", 65.0), ("age<2.5", 2.5), ("age> .5", 0.5),
                                             ("age>=65.", 65.0), ("age in [ 15 , 39 ]", (15.0, 39.0))])
def test_plain_numbers_are_read(text: str, value: object) -> None:
    assert Constraint.parse(text).value == value


@pytest.mark.parametrize("cell", ["age>=nan", "age<inf", "age>=1_0", "age in [nan,70]"])
def test_build_csvs_refuse_non_numbers_naming_the_line(tmp_path: Path, cell: str) -> None:
    from dkg.errors import BuildError
    from dkg.graph.build_input import read_constrained_csv

    path = tmp_path / "c.csv"
    path.write_text(f"head,head_constraints,tail,tail_constraints\na,NULL,b,NULL\nc,\"{cell}\",d,NULL\n")
    with pytest.raises(BuildError, match=r"line 3.*is not a number"):
        read_constrained_csv(path, "T", "1")
