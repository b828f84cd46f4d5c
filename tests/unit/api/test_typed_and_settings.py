"""Typed constraint forms, token settings and error mapping (pure logic)."""

from __future__ import annotations

import pytest

from dkg.api.auth import identify
from dkg.api.errors import describe_validation, status_for
from dkg.api.settings import Principal, load_api_settings, parse_tokens
from dkg.api.typed import TypedConstraint, to_constraints, to_typed, vocabulary_schema
from dkg.errors import ConfigError, ConstraintError, CurationError, GraphUnavailableError
from dkg.graph.curation import StaleChangeError, UnknownNodeError
from dkg.types import Constraint
from dkg.vocabulary import VOCABULARY


@pytest.mark.parametrize("texts", [
    ["age in [40,69]"], ["age<65"], ["age>18", "age<=65"], ["age=30"], ["mrd in {persistent,rising}"],
    ["ph=+"], ["comorbidity!=diabetes", "comorbidity!=liver"], ["stage in {III,IV}", "tumor_size<=3"],
])
def test_typed_round_trip(texts: list[str]) -> None:
    canonical = sorted(str(Constraint.parse(t)) for t in texts)
    forms = {k: TypedConstraint(**v) for k, v in to_typed(texts).items()}
    assert sorted(to_constraints(forms)) == canonical


def test_strictness_decides_the_operator() -> None:
    assert to_constraints({"age": TypedConstraint(minimum=18, min_strict=True)}) == ["age>18"]
    assert to_constraints({"age": TypedConstraint(minimum=18)}) == ["age>=18"]
    assert sorted(to_constraints({"age": TypedConstraint(minimum=18, maximum=65, max_strict=True)})) == [
        "age<65", "age>=18"]


@pytest.mark.parametrize("typed,message", [
    ({"weight": TypedConstraint(minimum=1)}, "unknown constraint key 'weight'"),
    ({"age": TypedConstraint(values=["old"])}, "age is numeric"),
    ({"ph": TypedConstraint(minimum=1)}, "ph is categorical"),
    ({"ph": TypedConstraint(values=["maybe"])}, "'maybe' is not a value of ph"),
    ({"age": TypedConstraint(maximum=500)}, "outside the allowed range"),
    ({"mrd": TypedConstraint(values=["x'}) DETACH DELETE n //"])}, "mrd"),
])
def test_bad_typed_forms_name_the_problem(typed: dict[str, TypedConstraint], message: str) -> None:
    with pytest.raises(ConstraintError, match=message.replace("(", r"\(")):
        to_constraints(typed)


def test_min_above_max_is_refused_on_entry() -> None:
    with pytest.raises(ValueError, match="minimum 70 is above maximum 20"):
        TypedConstraint(minimum=70, maximum=20)


def test_vocabulary_schema_covers_every_key() -> None:
    schema = {s["key"]: s for s in vocabulary_schema()}
    assert set(schema) == set(VOCABULARY)
    assert schema["age"]["kind"] == "numeric" and schema["age"]["maximum"] == 120
    assert "+" in schema["ph"]["values"] and schema["comorbidity"]["open"] is True


def test_tokens_are_parsed_named_and_checked() -> None:
    assert parse_tokens("alice:aaaaaaaaaaaa,bbbbbbbbbbbb", "curator") == {"aaaaaaaaaaaa": "alice",
                                                                         "bbbbbbbbbbbb": "curator-2"}
    with pytest.raises(ValueError, match="at least 12"):
        parse_tokens("alice:short", "curator")
    with pytest.raises(ValueError, match="name"):
        parse_tokens("al ice:aaaaaaaaaaaa", "curator")


def test_settings_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DKG_API_CURATOR_TOKENS", "alice:cccccccccccc")
    monkeypatch.setenv("DKG_API_READ_TOKENS", "rob:rrrrrrrrrrrr")
    principals = load_api_settings().principals()
    assert principals == {"cccccccccccc": Principal("alice", True), "rrrrrrrrrrrr": Principal("rob", False)}
    monkeypatch.setenv("DKG_API_CURATOR_TOKENS", "tiny")
    with pytest.raises(ConfigError, match="DKG_API_CURATOR_TOKENS"):
        load_api_settings()


def test_identify_needs_the_exact_token() -> None:
    known = {"cccccccccccc": Principal("alice", True)}
    assert identify("cccccccccccc", known) == Principal("alice", True)
    assert identify("ccccccccccc", known) is None
    assert identify("", known) is None


def test_error_statuses() -> None:
    assert status_for(UnknownNodeError("x")) == 404
    assert status_for(StaleChangeError("x")) == 409
    assert status_for(CurationError("x")) == 422
    assert status_for(GraphUnavailableError("x")) == 503


def test_validation_message_names_each_field() -> None:
    message, problems = describe_validation([
        {"loc": ("body", "k"), "msg": "Input should be greater than or equal to 1", "type": "greater_than_equal"},
        {"loc": ("body", 7), "msg": "JSON decode error", "type": "json_invalid", "ctx": {"error": "Expecting value"}}])
    assert message == ("body.k: Input should be greater than or equal to 1; body: malformed JSON at character 7 "
                       "(Expecting value)")
    assert [p["field"] for p in problems] == ["body.k", "body"]
