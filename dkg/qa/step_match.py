"""The step a question describes in its own words, when no other route reads it: "we're going through PPE much
faster than planned and the countermeasures won't last the week: what does the chart say to do?" describes the
box about requesting more resources without naming it, stating a fact or asking what follows a step.

Each box of the onboarded guideline is scored by Okapi BM25 (rank-bm25) over content words
(:func:`dkg.qa.guideline_words.question_words`: Porter stems, no stop words, numbers or question words, shorthand
also spelled out): the rare words that tell boxes apart count most, and a long box (a criteria table) does not win
by its length alone. The best box answers when it shares at least ``min_shared`` words with the question and scores
``margin`` times the runner-up; a question asking what a step includes ("what items fall under that line?", "what
does the lane include?", "what's left to do?") or what comes after it ("what should the team do after obtaining …?")
is answered by the steps that box leads to, less those the question says were done. A yes/no question is never
answered this way (a box is no yes or no).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from dkg.answers import Answer, Evidence
from dkg.graph.db import Graph, named_queries
from dkg.qa.guideline_words import content_words, question_words
from dkg.qa.named_outcome import answer_described_name, asks_for_name
from dkg.qa.named_step import Box, step_boxes
from dkg.qa.way_in import FactValue, WayIn

# a question about what a step holds: its contents are the boxes it leads to
_CONTENTS = re.compile(r"\b(?:includes?|including|involves?|consists?|falls?\s+under|comes?\s+under|items|"
                       r"what(?:'s|\s+is)\s+(?:still\s+)?left|still\s+left|left\s+to\s+do|remaining)\b",
                       re.IGNORECASE)
# a question asking what comes after the step it describes: "what should the team do after obtaining …?"
_AFTER = re.compile(r"\b(?:after|following|once|post)\b", re.IGNORECASE)
# a yes/no question: "should we …?", "does that count …?", "is it …?"
_YES_NO = re.compile(r"(?:^|[.!?:;]\s+)(?:should|shall|must|can|could|do|does|did|is|are|was|were|would|will|has|"
                     r"have)\s+[^?]*\?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class StepMatchSettings:
    """How clearly a question must describe one box."""

    min_shared: int = 2  # content words the best box shares with the question
    margin: float = 1.25  # the best box's score over the runner-up's
    max_close: int = 3  # boxes about as well described as the best that a route may weigh together


def box_scores(question: str, boxes: list[Box]) -> list[tuple[float, int, Box]]:
    """(BM25 score, shared words, box) of every box sharing a content word with the question, best first.

    >>> boxes = [Box("a", "Request additional PPE and countermeasures", ("1",), False),
    ...          Box("b", "Wear PPE", ("1",), False), Box("c", "Isolate the sick", ("1",), False),
    ...          Box("d", "Report to command", ("1",), False)]
    >>> [(n, b.uid) for s, n, b in box_scores("PPE and countermeasures running out", boxes)]
    [(2, 'a'), (1, 'b')]
    """
    from rank_bm25 import BM25Okapi

    if not boxes:
        return []
    asked, asked_as_written = question_words(question), content_words(question)
    # a box's shorthand is read spelled out too, as the question's is ('MCMs, PPE' in a box; 'countermeasures')
    words = [sorted(question_words(box.content)) for box in boxes]
    scores = BM25Okapi([own or ["_"] for own in words]).get_scores(sorted(asked))

    def shared(box: Box, own: list[str]) -> int:
        # the words one side writes and the other spells out or writes too: one shorthand both sides write
        # ('PPE') is one shared word, not one per word of its expansion
        return max(len(asked & content_words(box.content)), len(asked_as_written & set(own)))

    scored = [(float(score), shared(box, own), box) for score, own, box in zip(scores, words, boxes, strict=True)]
    return sorted((s for s in scored if s[1]), key=lambda s: (-s[0], s[2].uid))


def best_box(question: str, boxes: list[Box], settings: StepMatchSettings | None = None) -> Box | None:
    """The box the question describes best, when it does so clearly enough (see the module docstring)."""
    settings = settings or StepMatchSettings()
    scored = box_scores(question, boxes)
    if not scored or scored[0][1] < settings.min_shared:
        return None
    runner_up = scored[1][0] if len(scored) > 1 else 0.0
    return scored[0][2] if scored[0][0] >= settings.margin * runner_up else None


def close_boxes(question: str, boxes: list[Box], settings: StepMatchSettings | None = None) -> list[Box]:
    """The boxes the question describes about as well as the best one (within ``margin`` of its score), each
    sharing at least ``min_shared`` words with it: the candidates when no box is described clearly."""
    settings = settings or StepMatchSettings()
    scored = box_scores(question, boxes)
    if not scored:
        return []
    return [box for score, shared, box in scored
            if shared >= settings.min_shared and score * settings.margin >= scored[0][0]]


# "X, but Y. Which step covers that?": the clause after the last "but" is what the question is about
_BUT = re.compile(r"[,;]?\s+(?:but|however)\s+(?=[a-z])", re.IGNORECASE)
_ASKING = re.compile(r"(?<=[.!?;:])\s+(?=[^.!?;:]*\?\s*$)")


def in_focus(question: str) -> str:
    """The part of the question a described step is matched on: after a contrast in its statement ("criteria met
    and mitigation is running, but nobody has collected specimens") the clause after it and the asking sentence;
    otherwise the whole question.

    >>> in_focus("Criteria met and mitigation running, but no specimens collected yet. Which step covers that?")
    'no specimens collected yet. Which step covers that?'
    >>> in_focus("PPE running low. What now?")
    'PPE running low. What now?'
    """
    parts = _ASKING.split(question.strip(), maxsplit=1)
    if len(parts) != 2:
        return question
    statement, asking = parts
    contrasts = list(_BUT.finditer(statement))
    if not contrasts:
        return question
    return f"{statement[contrasts[-1].end():]} {asking}"


def answer_described_step(graph: Graph, question: str, guideline: str, version: str,
                          settings: StepMatchSettings | None = None, way_in: WayIn | None = None,
                          facts: Callable[[], Mapping[str, FactValue]] | None = None) -> Answer | None:
    """The box the question describes (or, asked what it includes, the steps it leads to); None when the
    question asks yes or no, or describes no box clearly. Asked what the case is called, a question that describes
    a few criteria boxes about equally well is answered with the name they all lead to (``facts``: reads the facts
    it states, called only then; :func:`~dkg.qa.named_outcome.answer_described_name`). ``way_in``: the version's
    arrows when the caller has read them already."""
    settings = settings or StepMatchSettings()
    boxes = step_boxes(graph, guideline, version)
    contents_asked = _CONTENTS.search(question) is not None
    # asked what a step includes or what is left of it, the step is one that leads somewhere (a lane's header)
    candidates = [b for b in boxes if b.has_next] if contents_asked else boxes
    focus = in_focus(question)
    best = None if _YES_NO.search(question.strip()) else (
        (best_box(focus, candidates, settings) if focus != question else None)
        or best_box(question, candidates, settings))
    if best is None:
        if not asks_for_name(question):
            return None
        close = close_boxes(question, boxes, settings)
        if not 1 < len(close) <= settings.max_close:
            return None
        return answer_described_name(question, close, way_in or WayIn.of(graph, guideline, version),
                                     dict(facts()) if facts is not None else {},
                                     guideline, version)
    way_in = way_in or WayIn.of(graph, guideline, version)
    uids = [best.uid]
    done = (way_in.done_steps(question, {b.uid: b.content for b in boxes if b.uid in way_in.roots})
            if way_in.says_done(question) else set())
    # what a step includes, what comes after it, or the step itself said to be done ("initial mitigation
    # started: which lanes run from here?"): the steps it leads to
    if contents_asked or _AFTER.search(question) or best.uid in done:
        inside = [e.target for e in way_in.edges.get(best.uid, []) if e.target not in done]
        uids = list(dict.fromkeys(inside)) or uids
    contents = {b.uid: b.content for b in boxes}
    rows = [{"uid": uid, "content": contents.get(uid, uid), "described": best.uid} for uid in uids]
    text = (f'The question describes "{best.content}"'
            + (": it leads to " + "; ".join(f'"{r["content"]}"' for r in rows) if uids != [best.uid] else "")
            + ". (Matched by the words the question shares with the step; check it is the step you meant.)")
    evidence = [Evidence(node_uid=r["uid"], content=str(r["content"]), kind="Action", guideline=guideline,
                         version=version) for r in rows]
    return Answer(question=question, route="text2cypher", answer=text, cypher=named_queries("qa_steps")["step_boxes"],
                  cypher_params={"guideline": guideline, "version": version, "uids": uids},
                  rows=rows, matched_nodes=uids, evidence=evidence)
