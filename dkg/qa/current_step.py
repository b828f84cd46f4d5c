"""Questions that open with the step the patient is at and state facts: "IVAC pt: purulent secretions, day 5 on
the vent. What now?", "VAC on vent day 4, Tmax 38.7, abx x5 QADs. Which event?".

The walk of :mod:`dkg.qa.pathway` starts at the guideline's roots, so the facts of earlier steps that such a
question leaves unsaid (the baseline before a VAC) stop it there. Here the walk starts at the step the question
opens with. It crosses every arrow whose conditions the stated facts meet (an arrow with no condition too); a
condition also counts as met when every arrow into the starting step tests the same one, since being at that
step says it held, and so does a condition met further on. The answer is the furthest step reached through an
arrow whose conditions the facts met (what the findings make of the case); when no such arrow was crossed, the
step where the walk stopped (what to check next), with the conditions left open. Graph reads are those of
:class:`dkg.qa.way_in.WayIn` and ``step_boxes`` (``cypher/qa_pathway.cypher``, ``cypher/qa_steps.cypher``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dkg.answers import Answer, Evidence
from dkg.graph.db import Graph, named_queries
from dkg.qa.named_step import MEETS, best_boxes, names_in_full, step_boxes, words
from dkg.qa.way_in import FactValue, WayIn, holds

# the phrase a question opens with, up to its first punctuation or a word that goes on to say more
_OPENING = re.compile(r"^\s*(?P<step>[^,:;.?!()]+?)(?=\s*[,:;.?!(]|\s+(?:on|with|after|at|in|and|who|whose|has|had|"
                      r"now|is|was|but|then|plus|as)\b)", re.IGNORECASE)
# "Already IVAC as of day 5": how long the patient has been at the step, not part of its name
_ALREADY = re.compile(r"^(?:already|still)\s+", re.IGNORECASE)
_PATIENT = re.compile(r"\b(?:pt|patient|case|casualty)\b", re.IGNORECASE)
# a question that opens by asking ("Should a hypotensive patient …?") names no step it is at
_ASKING = re.compile(r"^\s*(?:should|shall|is|are|was|were|does|do|did|can|could|would|will|may|must|what|which|how|"
                     r"when|where|why|who|whom|if)\b", re.IGNORECASE)
# the statement that opens the question ends before the question it asks
_STATEMENT_END = re.compile(r"[.!?:;]\s+\S")


@dataclass(frozen=True)
class CurrentStepSettings:
    """How a question's opening must name a step for the walk to start there."""

    max_words: int = 4  # content words of the opening phrase: a longer one describes, it does not name


def opening_step(question: str, settings: CurrentStepSettings | None = None) -> str | None:
    """The phrase a question opens with when it is short enough to name a step ("IVAC pt: …" → "IVAC").

    >>> opening_step("IVAC pt: purulent secretions. What now?"), opening_step("VAC on vent day 4, T 38.7. Event?")
    ('IVAC', 'VAC')
    >>> opening_step("Pt just triggered a VAC on vent day 4. What next?")
    'VAC'
    >>> opening_step("Already IVAC as of vent day 5 -- antigen positive. What event now?")
    'IVAC'
    >>> opening_step("Sixty year old man ventilated since Monday. What now?") is None
    True
    >>> opening_step("Should a hypotensive patient at 210 get cardioversion?") is None
    True
    """
    settings = settings or CurrentStepSettings()
    match = _OPENING.match(question)
    if match is None or _ASKING.match(question) or not _STATEMENT_END.search(question):
        return None
    # "Pt just triggered a VAC on vent day 4": the step is the one the patient meets
    step = MEETS.sub("", _ALREADY.sub("", " ".join(match.group("step").split())))
    step = " ".join(_PATIENT.sub(" ", step).split())
    return step if words(step) and len(words(step)) <= settings.max_words else None


@dataclass
class Reached:
    """Where the walk from a step went: the steps reached through met conditions (furthest first), the steps it
    stopped at, and the conditions it found open there."""

    earned: list[str] = field(default_factory=list)
    stopped: list[str] = field(default_factory=list)
    open_conditions: dict[str, list[str]] = field(default_factory=dict)


def walk_from(way_in: WayIn, start: str, facts: dict[str, FactValue]) -> Reached:
    """Walk from ``start`` across the arrows the stated ``facts`` allow (see the module docstring).

    >>> way = WayIn([{"a": "crit", "b": "x", "arrow": ["age>=18", "tumor_size>5"], "box": [], "action": False},
    ...              {"a": "x", "b": "crit2", "arrow": [], "box": [], "action": False},
    ...              {"a": "crit2", "b": "y", "arrow": ["age>=18", "resectable=yes"], "box": [], "action": False}])
    >>> walk_from(way, "crit", {"age": 40.0, "tumor_size": 6.0}).earned
    ['x']
    >>> walk_from(way, "x", {"resectable": "yes"}).earned  # age>=18 held on every arrow into x
    ['y']
    >>> r = walk_from(way, "x", {"tumor_size": 7.0}); r.earned, r.stopped, r.open_conditions
    ([], ['crit2'], {'crit2': ['resectable=yes']})
    """
    entering = [e for edges in way_in.edges.values() for e in edges if e.target == start]
    established = (set.intersection(*({str(c) for c in e.tests + e.target_tests} for e in entering))
                   if entering else set())
    depth = {start: 0}
    order = [start]
    reached = Reached()
    earned: dict[str, int] = {}
    for node in order:
        crossed = False
        for edge in way_in.edges.get(node, []):
            checks = edge.tests + edge.target_tests
            if any(c.key in facts and not holds(c, facts[c.key]) for c in checks):
                continue
            unmet = [str(c) for c in checks if c.key not in facts and str(c) not in established]
            if unmet:
                reached.open_conditions.setdefault(node, [])
                reached.open_conditions[node] += [c for c in unmet if c not in reached.open_conditions[node]]
                continue
            crossed = True
            established |= {str(c) for c in checks}
            if edge.target not in depth:
                depth[edge.target] = depth[node] + 1
                order.append(edge.target)
            if checks and edge.target != start:
                earned[edge.target] = depth[edge.target]
        if not crossed:
            reached.stopped.append(node)
    furthest = max(earned.values(), default=0)
    reached.earned = [uid for uid, d in earned.items() if d == furthest]
    return reached


def answer_from_current_step(graph: Graph, question: str, guideline: str, version: str,
                             facts: dict[str, FactValue], settings: CurrentStepSettings | None = None
                             ) -> Answer | None:
    """The answer to a question that opens with the step the patient is at and states ``facts`` (the module
    docstring); None when its opening names no single box in full, or the walk gets nowhere from it."""
    phrase = opening_step(question, settings)
    if phrase is None or not facts:
        return None
    boxes = step_boxes(graph, guideline, version)
    # "IVAC pt": a step the patient is at, named by its words or initials; "Vent pt" describes the patient (a
    # word that only shares a stem with a box, 'ventilator-associated', names no step)
    describes_patient = re.match(rf"\s*{re.escape(phrase)}\s+{_PATIENT.pattern}", question, re.IGNORECASE)
    named = [b for b in best_boxes(phrase, question, boxes)
             if names_in_full(phrase, b, exactly=describes_patient is not None)]
    if len(named) != 1:
        return None
    start = named[0]
    way_in = WayIn.of(graph, guideline, version)
    reached = walk_from(way_in, start.uid, facts)
    # a stop with nothing open is one the stated facts rule every way on out of: no step to name there
    answer_uids = reached.earned or [u for u in reached.stopped if u != start.uid and reached.open_conditions.get(u)]
    if not answer_uids:
        return None
    contents = {b.uid: b.content for b in boxes}
    rows: list[dict[str, Any]] = [
        {"uid": uid, "content": contents.get(uid, uid), "from_uid": start.uid,
         "open_conditions": reached.open_conditions.get(uid, []) if not reached.earned else []}
        for uid in answer_uids]
    said = ", ".join(f"{k}={_number(v)}" for k, v in facts.items())
    if reached.earned:
        text = (f'From "{start.content}", the stated facts ({said}) meet the conditions to reach: '
                + "; ".join(f'"{r["content"]}"' for r in rows) + ".")
    else:
        text = (f'From "{start.content}", the stated facts ({said}) lead to: '
                + "; ".join(f'"{r["content"]}"' + (f" (open: {' and '.join(r['open_conditions'])})"
                                                   if r["open_conditions"] else "") for r in rows) + ".")
    evidence = [Evidence(node_uid=r["uid"], content=str(r["content"]), kind="Action", guideline=guideline,
                         version=version) for r in rows]
    return Answer(question=question, route="text2cypher", answer=text, cypher=named_queries("qa_pathway")["walk_edges"],
                  cypher_params={"guideline": guideline, "version": version, "start": start.uid,
                                 "uids": [r["uid"] for r in rows]},
                  rows=rows, matched_nodes=[r["uid"] for r in rows], evidence=evidence)


def next_after(way_in: WayIn, done: list[str], facts: dict[str, FactValue]) -> list[str]:
    """The steps right after the ``done`` steps along arrows the stated ``facts`` do not rule out, in order.

    >>> way = WayIn([{"a": "atropine", "b": "pacing", "arrow": [], "box": [], "action": True},
    ...              {"a": "pacing", "b": "monitor", "arrow": [], "box": [], "action": True},
    ...              {"a": "atropine", "b": "observe", "arrow": ["stable=yes"], "box": [], "action": True}])
    >>> next_after(way, ["atropine"], {"stable": "no"})
    ['pacing']
    """
    return list(dict.fromkeys(edge.target for uid in done for edge in way_in.edges.get(uid, [])
                              if edge.target not in done and not any(
                                  c.key in facts and not holds(c, facts[c.key])
                                  for c in edge.tests + edge.target_tests)))


def answer_after_done(graph: Graph, question: str, guideline: str, version: str, done: list[str],
                      facts: dict[str, FactValue], way_in: WayIn | None = None) -> Answer | None:
    """The steps after ``done``, steps the question says were done ("atropine given x3, still bradycardic: what
    now?"), which a walk from the roots that could not use the done steps answered with; None when no arrow
    the facts allow leaves them. ``way_in``: the version's arrows when the caller has read them already."""
    way_in = way_in or WayIn.of(graph, guideline, version)
    after = next_after(way_in, done, facts)
    if not after:
        return None
    contents = {b.uid: b.content for b in step_boxes(graph, guideline, version)}
    done_text = "; ".join(f'"{contents.get(uid, uid)}"' for uid in done)
    return steps_answer(question, guideline, version, done[0], after, contents,
                        f"The question says {done_text} was done")


def steps_answer(question: str, guideline: str, version: str, start: str, steps: list[str],
                 contents: dict[str, str], lead: str) -> Answer:
    """The answer naming ``steps``, reached from ``start``: ``lead`` (where the question puts the patient), then
    the steps' texts."""
    rows: list[dict[str, Any]] = [{"uid": uid, "content": contents.get(uid, uid), "from_uid": start,
                                   "open_conditions": []} for uid in steps]
    text = f"{lead}; next: " + "; ".join(f'"{r["content"]}"' for r in rows) + "."
    evidence = [Evidence(node_uid=r["uid"], content=str(r["content"]), kind="Action", guideline=guideline,
                         version=version) for r in rows]
    return Answer(question=question, route="text2cypher", answer=text, cypher=named_queries("qa_pathway")["walk_edges"],
                  cypher_params={"guideline": guideline, "version": version, "start": start, "uids": list(steps)},
                  rows=rows, matched_nodes=list(steps), evidence=evidence)


def _number(value: FactValue) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


__all__ = ["CurrentStepSettings", "Reached", "answer_from_current_step", "opening_step", "steps_answer", "walk_from"]
