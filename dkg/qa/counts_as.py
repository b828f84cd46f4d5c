"""Questions asking whether a finding counts as one of a step's criteria: "We have just one patient, but the
diagnosis is essentially never seen in this region. Does that single case count as a criterion for a potential
bioincident?".

The step is named in the question's last clause: the boxes holding all its words (else those
:func:`dkg.qa.named_step.names_a_box` finds). Its criteria are the boxes beside them: with an arrow into the step
(criteria that lead to it) or out of a box about it ("recognize criteria suggesting a potential bioincident"
fanning out to disease, population, agent criteria columns). The
finding, the rest of the question, is matched against those boxes only (:func:`dkg.qa.step_match.best_box`, the
same BM25 words and margin). Yes, with the criteria box the finding matches; when it matches none clearly the
question is left to the other routes (a criteria box is no list of everything that does not count).
"""

from __future__ import annotations

import re
from typing import Any

from dkg.answers import Answer, Evidence
from dkg.graph.db import named_queries
from dkg.qa.named_step import Box, all_words_in, names_a_box
from dkg.qa.step_match import StepMatchSettings, best_box
from dkg.qa.way_in import WayIn

# "does that count as a criterion for X?", "would this qualify as a trigger for X?", "is that one of the criteria
# for X?"
_COUNTS_AS = re.compile(
    r"(?:^|[.!?;:]\s+)(?P<ask>(?:does|do|would|will|can|could|is|are|should)\b[^?]*?\b"
    r"(?:counts?\s+as|qualif(?:y|ies)\s+as|one\s+of|meets?|satisf(?:y|ies)|fulfils?|fulfills?)\s+"
    r"(?:a\s+|an\s+|the\s+|one\s+of\s+the\s+)?(?:criterion|criteria|trigger|triggers|sign|signs)\s+"
    r"(?:for|of)\s+(?P<step>[^?]+?))\s*\?\s*$", re.IGNORECASE)


_VERB = re.compile(r"\s*\b(?:counts?\s+as|qualif(?:y|ies)\s+as|one\s+of|meets?|satisf(?:y|ies)|fulfils?|"
                   r"fulfills?)\b.*$", re.IGNORECASE | re.DOTALL)


def counts_as_asked(question: str) -> tuple[str, str] | None:
    """(the finding, the step) when the question asks whether a finding counts as a criterion of a step.

    >>> counts_as_asked("One case, never seen here. Does that single case count as a criterion for an outbreak?")
    ('One case, never seen here. Does that single case', 'an outbreak')
    >>> counts_as_asked("What are the criteria for an outbreak?") is None
    True
    """
    match = _COUNTS_AS.search(question)
    if match is None:
        return None
    finding = _VERB.sub("", question[:match.start("step")])
    return finding.strip(), match["step"].strip()


def answer_counts_as(question: str, boxes: list[Box], way_in: WayIn, guideline: str, version: str,
                     settings: StepMatchSettings | None = None) -> Answer | None:
    """Yes, with the criteria box of the named step the finding matches (module docstring); None otherwise."""
    asked = counts_as_asked(question)
    if asked is None:
        return None
    finding, step_words = asked
    named = [b for b in boxes if all_words_in(step_words, b.content)] or names_a_box([step_words], question, boxes)
    if not named:
        return None
    around = {e.target for b in named for e in way_in.edges.get(b.uid, [])}
    around |= {u for b in named for u in way_in.sources_into(b.uid)}
    criteria = [b for b in boxes if b.uid in around - {n.uid for n in named}]
    if len(criteria) < 2:
        return None  # one box beside the step is its way in or on, not a table of criteria to choose from
    found = best_box(finding, criteria, settings)
    if found is None:
        return None
    step = next((b for b in named if found.uid in {e.target for e in way_in.edges.get(b.uid, [])}
                 or found.uid in way_in.sources_into(b.uid)), named[0])
    rows: list[dict[str, Any]] = [{"uid": found.uid, "content": found.content, "advisable": True,
                                   "criterion_of": step.uid}]
    text = (f'Yes: "{found.content}" is one of the criteria for "{step.content}" and matches what the question '
            f"describes. (Matched by the words the question shares with the criteria; check it is the one meant.)")
    evidence = [Evidence(node_uid=b.uid, content=b.content, kind="Action", guideline=guideline, version=version)
                for b in (found, step)]
    return Answer(question=question, route="text2cypher", answer=text,
                  cypher=named_queries("qa_steps")["step_boxes"],
                  cypher_params={"guideline": guideline, "version": version, "uids": [found.uid]},
                  rows=rows, matched_nodes=[found.uid], evidence=evidence)


__all__ = ["answer_counts_as", "counts_as_asked"]
