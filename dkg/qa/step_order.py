"""Questions asking whether one step must wait for another: "Should logistics wait until the outbreak
investigation is finished before asking for extra supplies?", "Should we hold off on the initial mitigation steps
until the agent is confirmed?".

Both steps are found by the words the question uses for them (:func:`dkg.qa.step_match.close_boxes`: the boxes
about as well described as the best; several when the words fit several, as long as the answer is the same for
each). The flowchart
makes the step wait for the other only when every way from a root to it passes the other (the other dominates it:
removing it leaves the step unreachable, a networkx reachability test). The answer is yes, with that order, or
no, with what does lead to the step. Boxes found unclearly leave the question to the other routes.
"""

from __future__ import annotations

import re
from typing import Any

import networkx as nx

from dkg.answers import Answer, Evidence
from dkg.graph.db import named_queries
from dkg.qa.named_step import Box
from dkg.qa.step_match import StepMatchSettings, close_boxes
from dkg.qa.way_in import WayIn

_HOLD = r"(?:wait|hold\s+off|hold|delay|defer|postpone|put\s+off)"
# "wait until Y before X?", "hold off until Y is back before starting X?"
_UNTIL_BEFORE = re.compile(rf"\b{_HOLD}\s+(?:on\s+it\s+)?(?:until|till|for)\s+(?P<first>.+?)\s+(?:before|prior\s+to)\s+"
                           r"(?P<step>.+?)\s*\?\s*$", re.IGNORECASE)
# "hold off on X until Y?", "delay X until Y?", "wait with X until Y?"
_STEP_UNTIL = re.compile(rf"\b{_HOLD}\s+(?:on\s+|with\s+)?(?P<step>.+?)\s+(?:until|till|pending)\s+"
                         r"(?P<first>.+?)\s*\?\s*$", re.IGNORECASE)
_ASKS = re.compile(r"\b(?:should|shall|must|do|does|can|could|would|is\s+it\s+(?:ok|okay|right|necessary))\b",
                   re.IGNORECASE)


def waits_for(question: str) -> tuple[str, str] | None:
    """(the step asked about, the step it would wait for) when the question asks whether to wait, else None.

    >>> waits_for("Should logistics wait until the investigation is finished before asking for supplies?")
    ('asking for supplies', 'the investigation is finished')
    >>> waits_for("Should we hold off on the mitigation steps until the agent is confirmed?")
    ('the mitigation steps', 'the agent is confirmed')
    >>> waits_for("What do we do until the lab calls back?") is None
    True
    """
    if not _ASKS.search(question):
        return None
    match = _UNTIL_BEFORE.search(question) or _STEP_UNTIL.search(question)
    return (match["step"], match["first"]) if match else None


def must_come_first(way_in: WayIn, first: str, step: str) -> bool:
    """Whether every way from a root to ``step`` passes ``first``.

    >>> way = WayIn([{"a": "r", "b": "a", "arrow": [], "box": [], "action": True},
    ...              {"a": "a", "b": "s", "arrow": [], "box": [], "action": True},
    ...              {"a": "r", "b": "b", "arrow": [], "box": [], "action": True},
    ...              {"a": "b", "b": "t", "arrow": [], "box": [], "action": True},
    ...              {"a": "a", "b": "t", "arrow": [], "box": [], "action": True}])
    >>> must_come_first(way, "a", "s"), must_come_first(way, "a", "t"), must_come_first(way, "s", "a")
    (True, False, False)
    """
    arrows = nx.DiGraph(way_in.arrows)
    if first == step or first not in arrows or step not in arrows:
        return False
    if not any(nx.has_path(arrows, root, step) for root in way_in.roots):
        return False
    arrows.remove_node(first)
    return not any(root in arrows and nx.has_path(arrows, root, step) for root in way_in.roots)


def answer_step_order(question: str, boxes: list[Box], way_in: WayIn, guideline: str, version: str,
                      settings: StepMatchSettings | None = None) -> Answer | None:
    """Yes or no to whether the flowchart makes one step wait for another (module docstring); None when the
    question asks something else, names either step unclearly, or names several boxes about equally well for
    which the answer differs ("extra supplies and capabilities": two request boxes of one lane agree)."""
    asked = waits_for(question)
    if asked is None:
        return None
    settings = settings or StepMatchSettings(min_shared=1)
    steps, firsts = (close_boxes(phrase, boxes, settings) for phrase in asked)
    if not steps or not firsts or len(steps) > settings.max_close or len(firsts) > settings.max_close:
        return None
    verdicts = {must_come_first(way_in, first.uid, step.uid) for step in steps for first in firsts
                if first.uid != step.uid}
    if len(verdicts) != 1:
        return None
    waits = verdicts.pop()
    contents = {b.uid: b.content for b in boxes}
    named, waited = " / ".join(f'"{b.content}"' for b in steps), " / ".join(f'"{b.content}"' for b in firsts)
    leading = list(dict.fromkeys(u for step in steps for u in way_in.sources_into(step.uid)))
    if waits:
        text = f"Yes: every way to {named} passes {waited} first."
    else:
        text = (f"No: the chart does not make {named} wait for {waited}"
                + (": it follows " + "; ".join(f'"{contents.get(u, u)}"' for u in leading) if leading else "")
                + ".")
    # the question asks whether to wait: yes is the advice to wait
    rows: list[dict[str, Any]] = [{"uid": step.uid, "content": step.content, "advisable": waits,
                                   "waits_for": [b.uid for b in firsts],
                                   "after_uids": way_in.sources_into(step.uid)} for step in steps]
    evidence = [Evidence(node_uid=b.uid, content=b.content, kind="Action", guideline=guideline, version=version)
                for b in steps + firsts]
    return Answer(question=question, route="text2cypher", answer=text,
                  cypher=named_queries("qa_pathway")["walk_edges"],
                  cypher_params={"guideline": guideline, "version": version, "uids": [b.uid for b in steps]},
                  rows=rows, matched_nodes=[b.uid for b in steps], evidence=evidence)


__all__ = ["answer_step_order", "must_come_first", "waits_for"]
