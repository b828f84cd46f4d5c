"""Query intent: cue words → section type, and the re-ranking term (pure logic)."""

from __future__ import annotations

import pytest

from dkg.retrieval.intent import TYPES, intent_penalty, query_intent, rerank_by_intent
from dkg.retrieval.types import Hit


@pytest.mark.parametrize(("question", "expected"), [
    ("What kinds of surgery or chemo are offered for liver cancer?", "treatment"),
    ("Would night sweats and itching be a sign of lymphoma?", "symptoms"),
    ("Which blood work and imaging confirm myeloma?", "exams and tests"),
    ("What is the life expectancy with mesothelioma?", "outlook"),
    ("Has the tumour spread beyond the kidney, and what does stage 3 mean?", "stages"),
    ("Are smokers more likely to develop bladder cancer?", "susceptibility"),
    ("Which experimental therapies are scientists studying for glioma?", "research"),
    ("How can I avoid getting skin cancer?", "prevention"),
    ("Is retinoblastoma hereditary?", "inheritance"),
    ("Which mutations drive this leukemia?", "genetic changes"),
    ("Explain what a thymoma is", "information"),
])
def test_strongest_intent(question: str, expected: str) -> None:
    intent = query_intent(question)
    assert max(intent, key=lambda t: (intent[t], t == expected)) == expected
    assert intent[expected] == 1.0
    assert set(intent) <= set(TYPES)


def test_specific_cue_overrides_what_is() -> None:
    intent = query_intent("What is the outlook for someone with bone cancer?")
    assert "information" not in intent and intent["outlook"] == 1.0


def test_research_outranks_plain_treatment() -> None:
    intent = query_intent("Are new treatments for sarcoma being tested in clinical trials?")
    assert intent["research"] == 1.0 and intent["treatment"] < 1.0


def test_no_cue_gives_no_intent() -> None:
    assert query_intent("neuroblastoma") == {}


def test_penalty_only_for_typed_nodes_with_other_types() -> None:
    intent = {"treatment": 1.0, "research": 0.5}
    assert intent_penalty(intent, "treatment", 0.1) == 0.0
    assert intent_penalty(intent, "research", 0.1) == pytest.approx(0.05)
    assert intent_penalty(intent, "symptoms", 0.1) == pytest.approx(0.1)
    assert intent_penalty(intent, None, 0.1) == 0.0
    assert intent_penalty(intent, "symptoms", 0.0) == 0.0


def test_rerank_moves_matching_section_up_and_keeps_untyped_scores() -> None:
    hits = [Hit("s-sym", 0.72, 0.72), Hit("box", 0.70, 0.70), Hit("s-trt", 0.66, 0.66)]
    types = {"s-sym": "symptoms", "s-trt": "treatment"}
    ranked = rerank_by_intent(hits, query_intent("how is it treated?"), types, 0.1, 3)
    assert [h.rid for h in ranked] == ["box", "s-trt", "s-sym"]
    assert ranked[0].score == pytest.approx(0.70)
    assert [h.rid for h in rerank_by_intent(hits, {}, types, 0.1, 2)] == ["s-sym", "box"]
    assert [h.rid for h in rerank_by_intent(hits, query_intent("how is it treated?"), types, 0.0, 3)] == \
        ["s-sym", "box", "s-trt"]


def test_recommendation_questions_favour_guideline_boxes() -> None:
    intent = query_intent("What do the guidelines recommend after induction failure?")
    assert intent["recommendation"] == 1.0
    types = {"box": "recommendation", "drug": "treatment", "sec": "information"}
    hits = [Hit("drug", 0.60, 0.60), Hit("sec", 0.58, 0.58), Hit("box", 0.55, 0.55)]
    assert [h.rid for h in rerank_by_intent(hits, intent, types, 0.2, 3)][0] == "box"
