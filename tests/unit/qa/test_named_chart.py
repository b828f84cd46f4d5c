"""Questions asking what one chart of a multi-chart guideline says (dkg/qa/named_chart.py)."""

from __future__ import annotations

from dkg.answers import Answer
from dkg.qa.named_chart import answer_on_named_chart
from dkg.qa.named_step import Box
from dkg.qa.way_in import WayIn

# a made-up two-chart guideline (not from any guideline): the pain chart sends a slow pulse to the slow-pulse chart,
# once by an arrow into it and once by a box naming it
TITLES = {"1": "SLOW PULSE", "2": "PAIN", "3": "FAST PULSE"}
BOXES = [Box("p_start", "Assess the pain", ("2",), True), Box("p_slow", "Slow pulse", ("2",), False),
         Box("p_fast", "Go to the fast pulse chart", ("2",), True),
         Box("s_start", "Check the slow pulse", ("1",), True), Box("s_pads", "Place the pads", ("1",), False),
         Box("f_start", "Check the fast pulse", ("3",), True), Box("f_shock", "Give a shock", ("3",), False)]
ARROWS = [("p_start", "p_slow", ["performance_status>=2"]), ("p_start", "p_fast", ["performance_status<2"]),
          ("p_fast", "f_start", []), ("f_start", "f_shock", []), ("s_start", "s_pads", [])]
WAY_IN = WayIn([{"a": a, "b": b, "arrow": c, "box": [], "action": True,
                 "content": next(x.content for x in BOXES if x.uid == b)} for a, b, c in ARROWS])


def _walked_to(*uids: str) -> Answer:
    return Answer(question="q", route="text2cypher", answer="walked", matched_nodes=list(uids),
                  cypher_params={"guideline": "g", "version": "1"})


def _on_chart(question: str, answer: Answer, facts: dict[str, float | str] | None = None) -> list[str] | None:
    found = answer_on_named_chart(question, answer, BOXES, WAY_IN, facts or {}, TITLES)
    return None if found is None else found.matched_nodes


def test_the_answer_is_where_the_way_leaves_the_chart_the_question_names() -> None:
    # an arrow leaves the pain chart towards the answer
    assert _on_chart("Pain, fast pulse. What does the pain chart tell me to do?", _walked_to("f_shock")) == ["p_fast"]
    # no arrow: the pain chart's box naming the slow-pulse chart by its title is the link
    assert _on_chart("Pain, slow pulse. What's the pain chart say?", _walked_to("s_pads")) == ["p_slow"]


def test_an_answer_on_the_named_chart_or_a_question_naming_none_is_left_alone() -> None:
    assert _on_chart("What does the pain chart say?", _walked_to("p_slow")) is None
    assert _on_chart("Slow pulse. What now?", _walked_to("s_pads")) is None
    assert _on_chart("What does the chart say?", _walked_to("s_pads")) is None
