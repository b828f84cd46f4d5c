"""Clinicians' short reports of a step done ('pads on', 'on monitor') and the PR interval of an ECG, which is no
partial response."""

from __future__ import annotations

import pytest

from dkg.qa.facts import extract_facts
from dkg.qa.way_in import WayIn

WAY_IN = WayIn([
    {"a": "root", "b": "pads", "arrow": [], "box": [], "action": True, "content": "Place PACER PADS"},
    {"a": "pads", "b": "ask", "arrow": [], "box": [], "action": False, "content": "Signs of Hemodynamic Compromise?"},
    {"a": "ask", "b": "watch", "arrow": [], "box": [], "action": True, "content": "Continuous Monitoring"},
    {"a": "ask", "b": "pace", "arrow": [], "box": [], "action": True, "content": "Transcutaneous Pacing"},
])


@pytest.mark.parametrize("question", ["62M, HR 38, BP 82/50. pads on. what first?",
                                      "HR 38, hypotensive, pads on, what now?"])
def test_a_short_clause_ending_in_on_reports_the_step_its_word_names(question: str) -> None:
    assert WayIn.says_done(question)
    assert WAY_IN.done_steps(question) == {"pads"}


@pytest.mark.parametrize("question", ["HR 38, in VF. what first?", "pads are not in the kit. what first?",
                                      "put pads on?"])
def test_a_particle_inside_a_longer_clause_or_a_question_reports_nothing(question: str) -> None:
    assert WAY_IN.done_steps(question) == set()


def test_a_word_several_steps_share_names_none_of_them_alone() -> None:
    way_in = WayIn([
        {"a": "r", "b": "m1", "arrow": [], "box": [], "action": True, "content": "Cardiac monitor"},
        {"a": "m1", "b": "m2", "arrow": [], "box": [], "action": True, "content": "Continuous monitoring"},
    ])
    assert way_in.done_steps("on monitor. next?") == set()


@pytest.mark.parametrize("question", ["vagal maneuvers failed. What now?", "Vagal maneuvers ineffective, next?",
                                      "tried vagal maneuvers twice, no change. Next?"])
def test_a_step_tried_without_effect_was_done(question: str) -> None:
    way_in = WayIn([
        {"a": "r", "b": "vagal", "arrow": [], "box": [], "action": True, "content": "Attempt vagal maneuvers"},
        {"a": "vagal", "b": "drug", "arrow": [], "box": [], "action": True, "content": "Adenosine 6mg rapid push"},
    ])
    assert WayIn.says_done(question)
    assert way_in.done_steps(question) == {"vagal"}


@pytest.mark.parametrize("question", ["Strip: PR gets longer and longer then a dropped QRS.", "PR>.2 on the strip",
                                      "PR interval 280 ms, HR 40"])
def test_the_pr_interval_is_no_partial_response(question: str) -> None:
    assert "response" not in extract_facts(question)


@pytest.mark.parametrize("question", ["restaging = PR after 4 cycles", "PR on restaging, next?"])
def test_a_partial_response_is_still_read(question: str) -> None:
    assert extract_facts(question).get("response") == "pr"
