"""A dose asked that a chart box gives (dkg/qa/dose_in_box.py)."""

from __future__ import annotations

import pytest

from dkg.lexicon.clinical import asks_dose
from dkg.qa.dose_in_box import answer_dose_in_box, dose_boxes, dosed_words
from dkg.qa.named_step import Box

# a made-up emergency chart (not from any guideline): an adult page and a paediatric page
ADULT, ADULT_TITLE = ("1",), ("ADULT SLOW HEART RATE",)
CHILD, CHILD_TITLE = ("2",), ("PEDIATRIC SLOW HEART RATE",)
BOXES = [
    Box("look", "Look for a cause: fluids if dry", ADULT, True, ADULT_TITLE),
    Box("drug", "Glycopyrrolate IV 0.2mg, may repeat (MAX 1mg)", ADULT, True, ADULT_TITLE),
    Box("pace", "External pacing (Consider analgesia: Ketamine 0.5-1mg/kg IV)", ADULT, True, ADULT_TITLE),
    Box("kid", "Glycopyrrolate IV 4mcg/kg", CHILD, True, CHILD_TITLE),
    Box("kid_shock", "If no IV access or glycopyrrolate fails, Cardioversion 1J/kg", CHILD, False, CHILD_TITLE),
]


def _uids(question: str) -> list[str]:
    return [box.uid for box in dose_boxes(question, BOXES).boxes]


@pytest.mark.parametrize(("question", "asked"), [
    ("What's the max glycopyrrolate dose?", True),
    ("Pacing now. What can I give for pain and how much?", True),
    ("How many J/kg for the shock?", True),
    ("Glycopyrrolate 0.2 mg given twice, HR still 38. Next?", False),  # a dose reported, not asked
    ("What next after pacing?", False),
])
def test_a_dose_is_asked_only_in_an_asking_sentence(question: str, asked: bool) -> None:
    assert asks_dose(question) is asked


def test_a_box_doses_the_words_shortly_before_a_dose_in_its_clause() -> None:
    assert {"glycopyrrol"} <= dosed_words(BOXES[1].content)
    assert dosed_words(BOXES[2].content) == {"extern", "pace", "analgesia", "ketamin"}
    # "if glycopyrrolate fails, Cardioversion 1J/kg" doses the cardioversion, not the drug that failed
    assert "glycopyrrol" not in dosed_words(BOXES[4].content)
    assert dosed_words(BOXES[0].content) == set()


def test_the_box_giving_the_asked_drug_answers_narrowed_by_the_population() -> None:
    assert _uids("Adult with HR 35, hypotensive: max glycopyrrolate dose?") == ["drug"]
    assert _uids("4 yo, HR 50 and mottled: glycopyrrolate dose?") == ["kid"]
    assert _uids("We are pacing him, he is in pain. Ketamine dose?") == ["pace"]


def test_a_dose_no_box_gives_or_only_the_other_population_gets_is_not_answered_from_a_box() -> None:
    assert _uids("What is the alteplase dose for a stroke?") == []
    assert _uids("HR 38 after two doses. Next?") == []
    other = answer_dose_in_box("Adult in shock: cardioversion dose in joules?", BOXES, "g", "1")
    assert other is not None and other.answer == "" and other.matched_nodes == []
    assert '"PEDIATRIC SLOW HEART RATE"' in (other.no_answer_reason or "")


def test_the_answer_quotes_each_box_once_and_cites_it() -> None:
    answer = answer_dose_in_box("Max glycopyrrolate dose for an adult?", BOXES, "g", "1")
    assert answer is not None
    assert answer.matched_nodes == ["drug"]
    assert answer.answer.count('"Glycopyrrolate IV 0.2mg, may repeat (MAX 1mg)"') == 1
    assert [e.node_uid for e in answer.evidence] == ["drug"]
    assert "check it against" in answer.answer
