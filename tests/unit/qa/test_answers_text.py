"""Answer text built from query rows (shared by the generator and the service)."""

from __future__ import annotations

from dkg.qa.answers_text import answer_text
from dkg.qa.queries import QuestionType


def test_next_step_and_advise_texts() -> None:
    rows = [{"uid": "u", "content": "Blinatumomab or clinical trial", "advisable": True}]
    assert answer_text(QuestionType.NEXT_STEP, rows) == "Blinatumomab or clinical trial"
    assert answer_text(QuestionType.ADVISE, rows, "blinatumomab").startswith("Yes: blinatumomab")
    rows[0]["advisable"] = False
    assert answer_text(QuestionType.ADVISE, rows, "imatinib").startswith("No: imatinib")
    assert answer_text(QuestionType.NEXT_STEP, []) == ""


def test_conditions_and_assumptions_are_spelled_out() -> None:
    rows = [{"uid": "d", "content": "Stage I, tumor 4 cm or smaller", "constraints": ["stage=I", "tumor_size<=4"]}]
    assert answer_text(QuestionType.CONDITIONS, rows) == \
        "Stage I, tumor 4 cm or smaller (conditions: stage=I, tumor_size<=4)"
    lenient = [{"uid": "t", "content": "Alternative TKI", "assumed": ["lineage", "response"]}]
    assert answer_text(QuestionType.NEXT_STEP, lenient).endswith(
        "(assuming conditions the question does not state: lineage, response)")


def test_an_option_named_only_in_a_footnote_is_said_so() -> None:
    rows = [{"uid": "u", "content": "Second-line chemotherapy (Options include irinotecan with temozolomide.)",
             "options": ["Second-line chemotherapy"], "option_details": ["irinotecan with temozolomide"],
             "advisable": True}]
    text = answer_text(QuestionType.ADVISE, rows, "irinotecan with temozolomide")
    assert text.startswith(
        "Yes: irinotecan with temozolomide is named in this step's options' parentheses or footnotes.")
    assert answer_text(QuestionType.ADVISE, rows, "second-line chemotherapy").startswith(
        "Yes: second-line chemotherapy is among the recommended options.")
