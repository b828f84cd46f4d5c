"""Whether a finding counts as one of a step's criteria (dkg/qa/counts_as.py)."""

from __future__ import annotations

from dkg.qa.counts_as import answer_counts_as
from dkg.qa.named_step import Box
from dkg.qa.way_in import WayIn

# a made-up alert chart (not from any guideline): three criteria columns lead to the alert
BOXES = {
    "disease": "Disease criteria: a single case of an illness never seen in the region, or many cases at once",
    "people": "Population criteria: cases limited to one unit or downwind of a release",
    "lab": "Laboratory criteria: an unusual strain or the same strain from distinct sources",
    "alert": "Criteria met for a possible outbreak alert",
    "respond": "Start the response",
}
ARROWS = [("disease", "alert"), ("people", "alert"), ("lab", "alert"), ("alert", "respond")]
WAY_IN = WayIn([{"a": a, "b": b, "arrow": [], "box": [], "action": True, "content": BOXES[b]} for a, b in ARROWS])
BOX_LIST = [Box(uid, text, ("1",), True) for uid, text in BOXES.items()]


def _answer(question: str) -> list[str] | None:
    answer = answer_counts_as(question, BOX_LIST, WAY_IN, "g", "1")
    return None if answer is None else answer.matched_nodes


def test_a_finding_the_criteria_of_the_named_step_describe_counts_as_one() -> None:
    assert _answer("One patient only, but an illness never seen in this region. Does that single case count as a "
                   "criterion for a possible outbreak alert?") == ["disease"]
    assert _answer("Would a strain unusual for the lab qualify as a criterion for the outbreak alert?") == ["lab"]


def test_a_finding_no_criterion_describes_or_a_step_without_criteria_is_left_to_the_other_routes() -> None:
    assert _answer("The generator failed. Does that count as a criterion for a possible outbreak alert?") is None
    assert _answer("Cases limited to one unit. Do they count as a criterion for starting the response?") is None
    assert _answer("What are the criteria for an outbreak alert?") is None


def test_criteria_fanning_out_of_a_box_about_the_step_are_its_criteria() -> None:
    # the criteria columns follow "recognize criteria suggesting an outbreak"; no arrow enters the alert
    boxes = {"watch": "Recognize criteria suggesting an outbreak", "disease": BOXES["disease"],
             "people": BOXES["people"], "alert": "Criteria met for an outbreak"}
    way_in = WayIn([{"a": "watch", "b": b, "arrow": [], "box": [], "action": True, "content": boxes[b]}
                    for b in ("disease", "people")])
    answer = answer_counts_as("Just one case, never seen in this region. Does it count as a criterion for an "
                              "outbreak?", [Box(u, t, ("1",), True) for u, t in boxes.items()], way_in, "g", "1")
    assert answer is not None and answer.matched_nodes == ["disease"] and answer.rows[0]["criterion_of"] == "watch"
