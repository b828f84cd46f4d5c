"""The no-DKG baseline scored on the human-written clinician questions by the DKG route's rules, read off its
answer text (README with/without-DKG rows, issue #17 item 7)."""

from __future__ import annotations

from collections.abc import Sequence

from dkg.qa.baseline_eval import box_contents, run_baseline, score_text, verdict_in
from dkg.qa.clinician import DEV_PATH, ClinicianItem, ClinicianType, load_items


def _item(kind: ClinicianType, boxes: list[str], answer: str | None = None, constraints: list[str] | None = None
          ) -> ClinicianItem:
    return ClinicianItem(id="x", guideline="g", version="1", type=kind, question="q?",
                         expected_box_ids=boxes, expected_answer=answer, expected_constraints=constraints,
                         path=[], why="")


CONTENTS = {"b1": "TKI + chemotherapy", "b2": "Clinical trial"}


def test_next_step_needs_the_expected_box_text() -> None:
    assert score_text(_item("next_step", ["b1"]), "TKI + chemotherapy.", CONTENTS)
    assert not score_text(_item("next_step", ["b1"]), "Clinical trial", CONTENTS)


def test_advise_is_scored_by_its_verdict() -> None:
    assert verdict_in("Yes: x is among the recommended options.") == "yes"
    assert verdict_in("Recommended: x") is None
    assert score_text(_item("advise", ["b1"], "no"), "No: x is not recommended here. Recommended instead: y", CONTENTS)
    assert not score_text(_item("advise", ["b1"], "no"), "Yes: x is among the recommended options.", CONTENTS)


def test_conditions_match_the_step_or_the_constraints_in_any_order() -> None:
    item = _item("conditions", ["b2"], constraints=["age in [18, 39]", "ph=+"])
    assert score_text(item, "Clinical trial (conditions: none)", CONTENTS)
    assert score_text(item, "Other step (conditions: ph=+, age in [18, 39])", CONTENTS)
    assert not score_text(item, "Other step (conditions: ph=-)", CONTENTS)


def test_the_baseline_cannot_refuse_an_out_of_scope_question() -> None:
    assert not score_text(_item("out_of_scope", []), "Yes: x is among the recommended options.", CONTENTS)
    assert score_text(_item("out_of_scope", []), "", CONTENTS)


class _Echo:
    """Answers every question with the content of its first expected box (what a perfect baseline would say)."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers

    def greedy(self, questions: Sequence[str], max_new_tokens: int | None = None) -> list[str]:
        return [self.answers[q] for q in questions]


def test_a_baseline_that_writes_the_expected_box_scores_every_next_step_item() -> None:
    items = [i for i in load_items(DEV_PATH) if i.type == "next_step"]
    contents: dict[str, str] = {}
    for guideline, version in {(i.guideline, i.version) for i in items}:
        contents.update(box_contents(guideline, version))
    results = run_baseline(_Echo({i.question: contents[i.expected_box_ids[0]] for i in items}), items)
    assert results and all(r.correct and r.path == "baseline" for r in results)
