import pytest

from dkg.errors import ConstraintError
from dkg.types import Constraint, Op, format_constraints, parse_constraints, split_constraint_list


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("age<65", "age<65"),
        ("age≥65", "age>=65"),
        ("age >= 65", "age>=65"),
        ("age in [15,39]", "age in [15,39]"),
        ("ph=+", "ph=+"),
        ("ph=-", "ph=-"),
        ("mrd in {rising,persistent}", "mrd in {persistent,rising}"),
        ("comorbidity≠diabetes", "comorbidity!=diabetes"),
        ("stage in {I,II}", "stage in {I,II}"),
        ("performance_status<=2", "performance_status<=2"),
        ("necrosis>=90", "necrosis>=90"),
        ("tumor_size<=4.5", "tumor_size<=4.5"),
    ],
)
def test_parse_and_format_round_trip(text: str, canonical: str) -> None:
    constraint = Constraint.parse(text)
    assert str(constraint) == canonical
    assert Constraint.parse(str(constraint)) == constraint


def test_typed_values() -> None:
    assert Constraint.parse("age<65").value == 65.0
    assert Constraint.parse("age in [15,39]").value == (15.0, 39.0)
    assert Constraint.parse("mrd in {persistent,rising}").value == frozenset({"persistent", "rising"})
    assert Constraint.parse("age in [15,39]").op is Op.IN


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("colour=red", "unknown constraint key 'colour'"),
        ("ph=maybe", "'maybe' is not a value of ph"),
        ("age<abc", "invalid constraint"),
        ("age in [39,15]", "lo > hi"),
        ("age<500", "outside the allowed range"),
        ("ph<1", "categorical"),
        ("age", "cannot read constraint"),
        ("mrd in [1,2]", "set of values"),
    ],
)
def test_invalid_constraints_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(ConstraintError, match=message.replace("[", r"\[").replace("(", r"\(")):
        Constraint.parse(text)


def test_open_vocabulary_accepts_new_tokens_but_closed_does_not() -> None:
    assert str(Constraint.parse("comorbidity!=thyroid")) == "comorbidity!=thyroid"
    with pytest.raises(ConstraintError):
        Constraint.parse("mrd=wobbly")


def test_constraint_lists() -> None:
    assert split_constraint_list("age in [15,39],mrd in {a,b},ph=+") == ["age in [15,39]", "mrd in {a,b}", "ph=+"]
    assert parse_constraints("NULL") == []
    assert parse_constraints("") == []
    assert format_constraints([]) == "NULL"
    cell = format_constraints(parse_constraints("ph=+,age in [15,39],ph=+"))
    assert cell == "age in [15,39],ph=+"


def test_a_key_may_hold_digits_as_vocabulary_files_allow(monkeypatch: pytest.MonkeyPatch) -> None:
    # fio2_increase, spo2, hba1c: a key the vocabulary accepts is read back from its constraint text
    from dkg import types
    from dkg.vocabulary import KeyKind, KeySpec

    monkeypatch.setitem(types.VOCABULARY, "fio2_increase", KeySpec(
        "fio2_increase", KeyKind.NUMERIC, "Rise of FiO2", unit="dimensionless", minimum=0, maximum=1))
    assert str(Constraint.parse("fio2_increase >= 0.20")) == "fio2_increase>=0.2"
