"""Questions that ask what the case is called: "Which VAE is that?", "What event does he meet now?", "What do we
call it now?", "Does this move up a tier? If so to what?".

A surveillance or diagnostic flowchart states its criteria in long boxes and names what meeting them makes of the
case in short ones ("... indicators of worsening oxygenation" → "Ventilator-Associated Complication (VAC)"). The
routes that place the patient answer with a step; when the question asks for a name and that step is a criteria
box, the answer is the first names the arrows out of it reach, crossing only arrows the stated facts do not rule
out. The conditions on the arrows crossed that the question leaves unstated are shown with the name, so the
answer says what the name depends on. An answer that already names a step in a few words is left as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dkg.answers import Answer, Evidence
from dkg.graph.db import named_queries
from dkg.qa.named_step import Box, words
from dkg.qa.way_in import FactValue, WayIn, holds

_PRONOUN = r"(?:this|that|it|he|she|they|(?:the\s+)?(?:pt|patient|case|casualty))"
# "which VAE is that?", "what event is this?", "what tier does this meet?", "which category does she fall under?"
_WHICH_IS = re.compile(
    r"\b(?:which|what)\s+(?!(?:next|now|then|else|step|steps|to|do|does|did|should|would|can|could|is|are)\b)"
    r"[\w/-]+(?:\s+[\w/-]+)?\s+(?:(?:is|was|are)\s+" + _PRONOUN + r"(?:\s+(?:now|then|called))?\s*(?:\?|$)"
    r"|(?:does|do|did|would|will)\s+" + _PRONOUN + r"\s+(?:now\s+)?(?:meet|fulfil|fulfill|satisfy|qualify|"
    r"count|fall|fit|represent|have))", re.IGNORECASE)
# "what do we call it now?", "what is this called?", "what would you call that?"
_CALLED = re.compile(r"\bwhat\s+(?:do|would|should|does|did)\s+(?:we|you|i|they|one|the\s+\w+)\s+call\b"
                     r"|\bwhat\s+(?:is|was|would)\s+(?:this|that|it)\s+(?:be\s+)?called\b", re.IGNORECASE)
# "what is that?", "what does it become?", "how do we classify it?", "VAE tier?"
_WHAT_IS_IT = re.compile(r"\bwhat(?:'s|\s+is|\s+was)\s+(?:this|that|it)\s*(?:now\s*)?\?"
                         r"|\bwhat\s+(?:does|do|did|would|will)\s+(?:it|this|that|he|she|they)\s+(?:now\s+)?"
                         r"(?:become|turn\s+into|count\s+as|qualify\s+as|classify\s+as)\b"
                         r"|\bhow\s+(?:do|would|should|does|did)\s+(?:we|you|i|they|one)\s+(?:classify|"
                         r"categori[sz]e|label|call)\b"
                         r"|\b(?:tier|category|classification|event)\s*\?\s*$", re.IGNORECASE)
# "does this move up a tier? if so, to what?"
_UP_A_TIER = re.compile(r"\b(?:move|moves|go|goes|step|steps|escalate|escalates|progress|progresses|upgrade)\s+"
                        r"up\s+(?:a|one|another)\s+(?:tier|level|category|grade|class)\b"
                        r"|\bif\s+so,?\s+(?:to\s+)?what\b", re.IGNORECASE)


@dataclass(frozen=True)
class NamedOutcomeSettings:
    """When a box names what the case is rather than stating criteria, and how far to look for one."""

    max_name_words: int = 6  # content words of a box that names (a criteria box states many more)
    max_steps: int = 3  # arrows crossed from the answer's step to the names
    # words by which a short box names a working diagnosis rather than a step ("Probable Ventricular Tachycardia")
    diagnosis_words: frozenset[str] = frozenset({"probable", "possible", "suspected", "likely", "presumed",
                                                 "presumptive"})


def asks_for_name(question: str) -> bool:
    """Whether the question asks what the case is called (module docstring).

    >>> asks_for_name("Vent pt, FiO2 up 0.3 for two days. Which VAE is that?")
    True
    >>> asks_for_name("IVAC met, culture positive. What do we call it now?")
    True
    >>> asks_for_name("IVAC on day 5, flu PCR positive. Does this move up a tier? If so to what?")
    True
    >>> asks_for_name("Which VAE category does that meet?"), asks_for_name("What event does he meet now?")
    (True, True)
    >>> asks_for_name("Stable x3d, then FiO2 0.35 -> 0.60. What is that?"), asks_for_name("PEEP 5 to 8. VAE tier?")
    (True, True)
    >>> asks_for_name("VAC, new abx x4d. What does it become?"), asks_for_name("How do we classify it?")
    (True, True)
    >>> asks_for_name("VAC on vent day 4. What do I look at next?"), asks_for_name("What is the next step?")
    (False, False)
    >>> asks_for_name("What dose should he get?"), asks_for_name("Which step is next for this patient?")
    (False, False)
    """
    return bool(_WHICH_IS.search(question) or _CALLED.search(question) or _UP_A_TIER.search(question)
                or _WHAT_IS_IT.search(question))


def is_name(content: str, settings: NamedOutcomeSettings | None = None) -> bool:
    """Whether a box names what the case is: a few words, no question and no comparison.

    >>> is_name("Ventilator-Associated Complication (VAC)")
    True
    >>> is_name("After a period of stability or improvement on the ventilator, the patient has at least one of "
    ...         "the following indicators of worsening oxygenation")
    False
    >>> is_name("Rhythm shockable?"), is_name("SBP < 90 mm Hg")
    (False, False)
    """
    settings = settings or NamedOutcomeSettings()
    text = content.strip()
    return (bool(words(text)) and len(words(text)) <= settings.max_name_words and not text.endswith("?")
            and not re.search(r"[<>≤≥=]", text))


def names_a_diagnosis(content: str, settings: NamedOutcomeSettings | None = None) -> bool:
    """Whether a box only names a working diagnosis: a name (:func:`is_name`) opening with one of
    ``diagnosis_words`` and giving no number.

    >>> names_a_diagnosis("Probable Ventricular TachycardiaProbable"), names_a_diagnosis("Possible VAP")
    (True, True)
    >>> names_a_diagnosis("CPR 2 min"), names_a_diagnosis("Probable SVT: adenosine 0.1mg/kg")
    (False, False)
    >>> names_a_diagnosis("Ventilator-Associated Complication (VAC)")
    False
    """
    settings = settings or NamedOutcomeSettings()
    first = words(content)[:1]
    return (is_name(content, settings) and bool(first) and first[0] in settings.diagnosis_words
            and not re.search(r"\d", content))


def _names_after(way_in: WayIn, start: list[str], facts: dict[str, FactValue],
                 settings: NamedOutcomeSettings) -> dict[str, list[str]]:
    """The first name boxes the arrows from ``start`` reach without a stated fact ruling one out, each with the
    unstated conditions on the arrows crossed to it (breadth first, at most ``max_steps`` arrows)."""
    contents = way_in.contents
    frontier: dict[str, list[str]] = {uid: [] for uid in start}
    for _ in range(settings.max_steps):
        following: dict[str, list[str]] = {}
        for uid, conditions in frontier.items():
            for edge in way_in.edges.get(uid, []):
                checks = edge.tests + edge.target_tests
                if any(c.key in facts and not holds(c, facts[c.key]) for c in checks):
                    continue
                unstated = [str(c) for c in checks if c.key not in facts]
                seen = following.setdefault(edge.target, list(conditions))
                # several arrows into the same name (FiO2 or PEEP up): each one's conditions are one way there
                seen += [" and ".join(unstated)] if unstated and " and ".join(unstated) not in seen else []
        named = {uid: c for uid, c in following.items() if is_name(contents.get(uid, ""), settings)}
        if named:
            return named
        frontier = following
    return {}


def answer_named_outcome(question: str, answer: Answer, way_in: WayIn, facts: dict[str, FactValue],
                         settings: NamedOutcomeSettings | None = None) -> Answer | None:
    """The names the criteria steps of ``answer`` lead to, for a question asking what the case is called; None when
    the question asks something else, the answer already names, or no name is reached (module docstring)."""
    settings = settings or NamedOutcomeSettings()
    params = answer.cypher_params or {}
    if not asks_for_name(question) or not answer.rows or "guideline" not in params:
        return None
    if any(is_name(str(r.get("content", "")), settings) for r in answer.rows):
        return None
    start = {str(r["uid"]): str(r.get("content", "")) for r in answer.rows}
    named = _names_after(way_in, list(start), facts, settings)
    if not named:
        return None
    return _named_answer(question, start, named, way_in, str(params["guideline"]), str(params["version"]),
                         answer)


def answer_described_name(question: str, described: list[Box], way_in: WayIn, facts: dict[str, FactValue],
                          guideline: str, version: str, settings: NamedOutcomeSettings | None = None
                          ) -> Answer | None:
    """For a question asking what the case is called that describes several criteria boxes about equally well
    (the baseline and the worsening that follows it), the names they all lead to; None when they lead to
    different names or to none."""
    settings = settings or NamedOutcomeSettings()
    if not asks_for_name(question) or not described:
        return None
    outcomes = [_names_after(way_in, [box.uid], facts, settings) for box in described]
    if not outcomes[0] or any(set(o) != set(outcomes[0]) for o in outcomes[1:]):
        return None
    start = {box.uid: box.content for box in described}
    return _named_answer(question, start, _names_after(way_in, list(start), facts, settings), way_in, guideline,
                         version, None)


def _named_answer(question: str, start: dict[str, str], named: dict[str, list[str]], way_in: WayIn,
                  guideline: str, version: str, placed: Answer | None) -> Answer:
    contents = way_in.contents
    first = next(iter(start))
    rows: list[dict[str, Any]] = [{"uid": uid, "content": contents[uid], "from_uid": first,
                                   "open_conditions": ways} for uid, ways in named.items()]
    criteria = " or ".join(f'"{content}"' for content in start.values())
    text = (f"The case is placed at {criteria}; meeting it is called: "
            + "; ".join(f'"{r["content"]}"' + (f" (when {' or '.join(r['open_conditions'])})"
                                               if r["open_conditions"] else "") for r in rows) + ".")
    evidence = [Evidence(node_uid=r["uid"], content=str(r["content"]), kind="Action", guideline=guideline,
                         version=version) for r in rows]
    evidence += [Evidence(node_uid=uid, content=content, kind="Action", guideline=guideline, version=version)
                 for uid, content in start.items()]
    return Answer(question=question, route=placed.route if placed is not None else "text2cypher", answer=text,
                  cypher=named_queries("qa_pathway")["walk_edges"],
                  cypher_params={"guideline": guideline, "version": version, "start": first,
                                 "uids": [r["uid"] for r in rows]},
                  rows=rows, matched_nodes=[r["uid"] for r in rows], evidence=evidence,
                  missing_facts=placed.missing_facts if placed is not None else [])


__all__ = ["NamedOutcomeSettings", "answer_described_name", "answer_named_outcome", "asks_for_name", "is_name",
           "names_a_diagnosis"]
