"""The no-DKG baseline (question → answer text, ``models/baseline-answer``) on the human-written clinician
questions, scored by the same rules as the DKG route (``dkg.qa.clinician.score``) read off its answer text:

* next step: the text is the content of an expected box (the DKG route's answer text for that node);
* advise: the text's verdict (``Yes: …`` / ``No: …``, the form it was trained on) is the expected one;
* conditions: the recommended step named is an expected box, or its conditions are the expected ones;
* out of scope: the text is empty (the baseline always writes an answer, so it cannot refuse).

No graph is read: box contents come from the guideline sources.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from dkg.qa.clinician import ClinicianItem, ClinicianResult
from dkg.qa.metrics import same_text, words


class WritesAnswers(Protocol):
    """What the scorer needs of the baseline model (``Seq2Seq``)."""

    def greedy(self, questions: Sequence[str], max_new_tokens: int | None = None) -> list[str]: ...


_CONDITIONS = re.compile(r"^(?P<content>.*?) \(conditions: (?P<constraints>.*)\)\s*$", re.S)


def box_contents(guideline: str, version: str) -> dict[str, str]:
    """Box id of the guideline source → content of the graph node built from it."""
    from dkg.graph.sources import input_from_source
    build = input_from_source(guideline, version)
    return {box: node.content for node in build.nodes.values() for box in node.box_ids}


def verdict_in(text: str) -> str | None:
    """'yes' / 'no' from an advise answer text ('Yes: … recommended …'), None when it states neither."""
    first = words(text)[:1]
    return first[0] if first and first[0] in ("yes", "no") else None


def score_text(item: ClinicianItem, text: str, contents: dict[str, str]) -> bool:
    """Whether the baseline's answer text is correct for ``item`` (rules in the module docstring)."""
    expected = [contents[b] for b in item.expected_box_ids if b in contents]
    if item.type == "out_of_scope":
        return not text.strip()
    if item.type == "advise":
        return verdict_in(text) == item.expected_answer
    if item.type == "conditions":
        steps = [m for part in text.split(" | ") if (m := _CONDITIONS.match(part.strip()))]
        # constraints may hold commas themselves ('age in [18, 39]'): compare their words, in any order
        wanted = sorted(words(" ".join(item.expected_constraints or [])))
        return any(any(same_text(m["content"], c) for c in expected) or (
            bool(wanted) and sorted(words(m["constraints"])) == wanted) for m in steps)
    return any(same_text(text, c) for c in expected)


def run_baseline(model: WritesAnswers, items: Sequence[ClinicianItem]) -> list[ClinicianResult]:
    """The baseline's answer to every item, scored."""
    contents: dict[str, str] = {}
    for guideline, version in sorted({(i.guideline, i.version) for i in items}):
        contents.update(box_contents(guideline, version))
    texts = model.greedy([i.question for i in items]) if items else []
    return [ClinicianResult(id=item.id, guideline=item.guideline, type=item.type,
                            correct=score_text(item, text, contents), answered=bool(text.strip()),
                            answer_boxes=[b for b in item.expected_box_ids if same_text(text, contents.get(b, ""))],
                            verdict="yes" if verdict_in(text) == "yes" else "no" if verdict_in(text) == "no" else None,
                            path="baseline")
            for item, text in zip(items, texts, strict=True)]
