"""The query language: heads the model emits, parsing and checks."""

from __future__ import annotations

import pytest

from dkg.errors import QAError
from dkg.qa.queries import QuerySketch, QuestionType, model_target, parse_model_output


@pytest.mark.parametrize("sketch", [
    QuerySketch(QuestionType.NEXT_STEP, "ALL", ("age", "ph")),
    QuerySketch(QuestionType.ADVISE, "kidney", ("stage",), "partial nephrectomy"),
    QuerySketch(QuestionType.CONDITIONS, "bone", (), "wide en bloc excision"),
])
def test_target_round_trip(sketch: QuerySketch) -> None:
    assert parse_model_output(model_target(sketch)) == sketch


def test_executable_query_has_no_literals_and_every_slot_is_a_parameter() -> None:
    sketch = QuerySketch(QuestionType.ADVISE, "ALL", ("age", "ph"), "blinatumomab")
    cypher = sketch.cypher()
    assert "blinatumomab" not in cypher and "'ALL'" not in cypher
    assert "{age: $age, ph: $ph} AS facts" in cypher
    assert sketch.params({"age": 30.0, "ph": "+", "mrd": "negative"}, "1.2026") == {
        "guideline": "ALL", "version": "1.2026", "treatment": "blinatumomab", "age": 30.0, "ph": "+"}


def test_missing_slot_value_is_an_error() -> None:
    with pytest.raises(QAError, match=r"\$ph"):
        QuerySketch(QuestionType.NEXT_STEP, "ALL", ("age", "ph")).params({"age": 30.0}, "1.2026")


@pytest.mark.parametrize("text", [
    "WITH 'ALL' AS guideline, {age: $age} AS facts",                      # no body marker
    "WITH 'ALL' AS guideline, {age: $age} AS facts // drop_everything",   # unknown body
    "WITH 'lung' AS guideline, {age: $age} AS facts // next_step",        # unknown guideline
    "WITH 'ALL' AS guideline, {age: $ph} AS facts // next_step",          # slot/key mismatch
    "WITH 'ALL' AS guideline, {colour: $colour} AS facts // next_step",   # key outside the vocabulary
    "WITH 'ALL' AS guideline // next_step",                               # patient question without facts
    "WITH 'ALL' AS guideline, 'x'}) DETACH DELETE (n' AS treatment // conditions",  # injection attempt
])
def test_malformed_outputs_are_rejected(text: str) -> None:
    with pytest.raises(QAError):
        parse_model_output(text)
