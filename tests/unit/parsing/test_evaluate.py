from __future__ import annotations

import pytest

from dkg.parsing.evaluate import evaluate, misses, normalise, prf


def rows(*pairs: tuple[str, str], page: str = "P-1") -> list[dict[str, str]]:
    return [{"head": h, "tail": t, "page": page} for h, t in pairs]


def test_normalise_case_space_and_dashes() -> None:
    assert normalise("  Age 15\u201339   Years ") == "age 15-39 years"


def test_exact_scores() -> None:
    gold = rows(("A", "B"), ("B", "C"), ("C", "D"))
    pred = rows(("a ", "b"), ("B", "C"), ("X", "Y"))
    scores = prf(pred, gold)
    assert scores["precision"] == pytest.approx(2 / 3)
    assert scores["recall"] == pytest.approx(2 / 3)
    assert misses(pred, gold) == ([("x", "y")], [("c", "d")])


def test_fuzzy_tolerates_small_ocr_errors_only() -> None:
    gold = rows(("Induction chemotherapy with imatinib", "Consolidation therapy"))
    close = rows(("lnduction chemotherapy with imatinib", "Consolidation therapy"))
    far = rows(("Observation", "Consolidation therapy"))
    assert prf(close, gold)["f1"] == 0.0
    assert prf(close, gold, fuzzy=True)["f1"] == 1.0
    assert prf(far, gold, fuzzy=True)["f1"] == 0.0


def test_per_page_breakdown_and_empty_cases() -> None:
    result = evaluate(rows(("A", "B")) + rows(("C", "D"), page="P-2"), rows(("A", "B")))
    assert result["page:P-1"]["f1"] == 1.0
    assert result["page:P-2"]["precision"] == 0.0
    assert prf([], [])["f1"] == 1.0
