"""The question normaliser: facts, guideline detection and unknown diseases."""

from __future__ import annotations

import pytest

from dkg.qa.facts import detect_guidelines, extract_facts, refused_facts, unknown_diseases, worded_guidelines


@pytest.mark.parametrize(("text", "age"), [
    ("A 25-year-old woman with ALL", 25.0),
    ("a man aged 67 with renal cell carcinoma", 67.0),
    ("patient, 8 y/o, Wilms tumor", 8.0),
    ("a woman in her sixties with bone sarcoma", 64.0),
    ("a man in his early 70s", 71.0),
    ("a patient in their late 30s", 38.0),
])
def test_ages_as_numbers_and_bands(text: str, age: float) -> None:
    assert extract_facts(text)["age"] == age


def test_categorical_facts_use_canonical_values() -> None:
    facts = extract_facts("Philadelphia chromosome-negative B-cell ALL, MRD-positive, in complete remission, "
                          "no substantial comorbidities")
    assert facts == {"ph": "-", "lineage": "b_cell", "mrd": "positive", "response": "cr", "comorbidity": "none"}


def test_longest_phrase_wins_over_its_parts() -> None:
    assert extract_facts("non-clear cell RCC, not resectable")["histology"] == "non_clear_cell"
    assert extract_facts("non-clear cell RCC, not resectable")["resectable"] == "no"
    assert extract_facts("no distant metastases")["metastasis"] == "none"
    assert extract_facts("distant metastases")["metastasis"] == "any"


def test_numeric_keys() -> None:
    facts = extract_facts("ECOG 2, a 4.5 cm tumor, 95% necrosis, relapse 30 months after diagnosis")
    assert facts["performance_status"] == 2.0
    assert facts["tumor_size"] == 4.5
    assert facts["necrosis"] == 95.0
    assert facts["time_to_relapse"] == 30.0


def test_no_facts_in_small_talk() -> None:
    assert extract_facts("What's the weather like tomorrow?") == {}


def test_guideline_detection() -> None:
    assert detect_guidelines("Ph+ ALL in a 30 year old") == ["ALL"]
    assert detect_guidelines("who gets partial nephrectomy for RCC?") == ["kidney"]
    assert detect_guidelines("osteosarcoma of the femur") == ["bone"]
    # lower-case 'all' is an English word, not the disease
    assert detect_guidelines("is this true for all patients?") == []


def test_unknown_diseases_are_named() -> None:
    assert unknown_diseases("metastatic breast cancer, what next?") == ["breast cancer"]
    assert unknown_diseases("Ph+ ALL") == []


@pytest.mark.parametrize(("text", "note"), [
    ("A 1070-year-old man with Ph+ ALL", "age 1070 (allowed 0-120)"),
    ("A -30-year-old woman with ALL", "age -30 (allowed 0-120)"),
    ("a man aged 150 with renal cell carcinoma", "age 150 (allowed 0-120)"),
    ("Ph+ ALL, ECOG 7", "performance_status 7 (allowed 0-4)"),
])
def test_impossible_numbers_are_refused_not_rewritten(text: str, note: str) -> None:
    assert [r.note for r in refused_facts(text)] == [note]
    facts = extract_facts(text)
    assert note.split()[0] not in facts, facts


def test_possible_numbers_are_not_refused() -> None:
    for text, age in (("A 3.5-year-old with Wilms tumor", 3.5), ("a 107-year-old with ALL", 107.0),
                      ("A 70-year-old with ALL", 70.0)):
        assert refused_facts(text) == []
        assert extract_facts(text)["age"] == age


def test_values_stated_on_one_onboarded_guidelines_own_keys_imply_that_guideline() -> None:
    """No topic word or hint: two values on keys only the shipped onboarded guideline's vocabulary defines name
    it; one common word ('stable') does not."""
    assert detect_guidelines("Unstable with chest pain: next?") == ["cardiac-smog"]
    assert worded_guidelines("Unstable with chest pain: next?") == []  # no word of the question names it
    assert detect_guidelines("Is the patient stable enough for surgery?") == []
    assert detect_guidelines("What is the weather tomorrow?") == []
