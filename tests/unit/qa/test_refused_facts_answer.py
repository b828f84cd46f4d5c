"""A question stating an impossible fact is refused with a note naming it, never answered for another patient."""

from __future__ import annotations

from dkg.qa.service import TextToCypherService


def _screen(question: str) -> str | None:
    # screen() reads only the question: no model, graph or settings are needed to call it
    return TextToCypherService.__new__(TextToCypherService).screen(question)


def test_impossible_age_is_named_in_the_refusal() -> None:
    reason = _screen("What is the next step for a 1070-year-old man with Ph+ ALL?")
    assert reason is not None and reason.startswith("I could not use: age 1070 (allowed 0-120)")
    assert "70" not in reason.replace("1070", "")


def test_negative_age_is_named_in_the_refusal() -> None:
    reason = _screen("A -30-year-old woman with Ph-negative ALL: what treatment?")
    assert reason is not None and "age -30 (allowed 0-120)" in reason


def test_possible_age_is_not_refused() -> None:
    assert _screen("What is the next step for a 70-year-old man with Ph+ ALL?") is None
