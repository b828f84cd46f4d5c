"""Whether the flowchart makes one step wait for another (dkg/qa/step_order.py)."""

from __future__ import annotations

from dkg.qa.named_step import Box
from dkg.qa.step_order import answer_step_order
from dkg.qa.way_in import WayIn

# a made-up response chart (not from any guideline): two criteria lead to the alert; after it, a lab lane and a
# logistics lane run side by side
BOXES = {
    "cases": "Cluster criteria: several cases of the same unusual illness",
    "agent": "Agent criteria: an unusual organism is confirmed by the laboratory",
    "alert": "Criteria met: raise the alert",
    "mitigate": "Start the first mitigation steps",
    "samples": "Collect clinical samples and send them to the laboratory",
    "supplies": "Request extra supplies and protective equipment",
}
ARROWS = [("cases", "alert"), ("agent", "alert"), ("alert", "mitigate"), ("mitigate", "samples"),
          ("mitigate", "supplies")]
WAY_IN = WayIn([{"a": a, "b": b, "arrow": [], "box": [], "action": True, "content": BOXES[b]} for a, b in ARROWS])
BOX_LIST = [Box(uid, text, ("1",), True) for uid, text in BOXES.items()]


def _answer(question: str) -> tuple[list[str], bool] | None:
    answer = answer_step_order(question, BOX_LIST, WAY_IN, "g", "1")
    return None if answer is None else (answer.matched_nodes, answer.rows[0]["advisable"])


def test_a_step_on_another_lane_does_not_wait() -> None:
    assert _answer("Should logistics wait until the samples are collected before requesting extra supplies?") == (
        ["supplies"], False)


def test_one_of_several_criteria_is_not_waited_for_but_a_step_every_way_passes_is() -> None:
    assert _answer("Should we hold off on the mitigation steps until the organism is confirmed?") == (
        ["mitigate"], False)
    assert _answer("Should we hold off on the mitigation steps until the alert is raised?") == (["mitigate"], True)


def test_other_questions_or_unclear_steps_are_left_to_the_other_routes() -> None:
    assert _answer("What should logistics request first?") is None
    assert _answer("Should we wait until tomorrow before anything?") is None


def test_words_that_fit_two_boxes_answer_when_both_give_the_same_order() -> None:
    # "collecting samples and requesting supplies" fits two boxes of the lanes after the mitigation steps: both wait
    answer = answer_step_order("Should we wait until the first mitigation steps before collecting samples and "
                               "requesting supplies?", BOX_LIST, WAY_IN, "g", "1")
    assert answer is not None and sorted(answer.matched_nodes) == ["samples", "supplies"]
    assert all(row["advisable"] for row in answer.rows)
