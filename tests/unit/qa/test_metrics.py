"""QA metrics wrap rouge-score and nltk and behave on edge cases."""

from __future__ import annotations

import pytest

from dkg.qa.metrics import accuracy, bleu, jaccard, rouge1, same_text, text_scores


def test_identical_texts_score_one() -> None:
    text = "Clinical trial or hyper-CVAD + TKI with CNS prophylaxis"
    assert rouge1(text, text)["rouge1_f"] == pytest.approx(1.0)
    assert bleu(text, text) == pytest.approx(1.0)
    assert jaccard(text, text) == 1.0


def test_partial_overlap() -> None:
    r = rouge1("imatinib plus chemotherapy", "imatinib and chemotherapy then transplant")
    assert r["rouge1_p"] == pytest.approx(2 / 3)
    assert r["rouge1_r"] == pytest.approx(2 / 5)
    assert jaccard("a b c", "b c d") == pytest.approx(0.5)
    assert 0 < bleu("imatinib plus chemotherapy today", "imatinib plus chemotherapy then") < 1
    assert bleu("", "x") == 0.0


def test_aggregates() -> None:
    scores = text_scores(["a b", "c"], ["a b", "d"])
    assert scores["jaccard"] == pytest.approx(0.5)
    assert accuracy([True, False, True, True]) == 0.75
    assert same_text("Yes: imatinib.", "yes imatinib")
    with pytest.raises(ValueError):
        text_scores(["a"], [])
