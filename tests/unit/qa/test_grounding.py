"""Grounding decoded queries in the question: literals must come from the question, slots get values."""

from __future__ import annotations

import pytest

from dkg.qa.grounding import GroundingError, asked_treatment, fallback_sketch, ground, ground_treatment


def test_slots_are_filled_from_the_question() -> None:
    g = ground("WITH 'ALL' AS guideline, {age: $age, ph: $ph} AS facts // next_step",
               "A 30-year-old with Ph-positive ALL")
    assert g.facts == {"age": 30.0, "ph": "+"}
    assert not g.repairs


def test_slot_without_value_is_dropped_or_rejected() -> None:
    g = ground("WITH 'ALL' AS guideline, {age: $age, mrd: $mrd} AS facts // next_step", "A 30-year-old with ALL")
    assert g.sketch.keys == ("age",) and any("mrd" in r for r in g.repairs)
    with pytest.raises(GroundingError, match=r"\$mrd"):
        ground("WITH 'ALL' AS guideline, {mrd: $mrd} AS facts // next_step", "What about ALL?")


def test_fallback_builds_the_query_from_the_question() -> None:
    known = ["a switch to ponatinib", "blinatumomab", "partial nephrectomy"]
    s = fallback_sketch("Should a 70-year-old with relapsed Ph+ ALL get ponatinib?", "ALL", known,
                        {"age": 70.0, "disease_status": "relapsed", "ph": "+"})
    assert s is not None and s.qtype.value == "advise" and s.treatment == "ponatinib"
    s = fallback_sketch("Which patients get partial nephrectomy?", "kidney", known, {})
    assert s is not None and s.qtype.value == "conditions"
    assert fallback_sketch("Tell me about kidney cancer", "kidney", known, {}) is None


def test_facts_the_model_missed_are_added() -> None:
    g = ground("WITH 'ALL' AS guideline, {age: $age} AS facts // next_step", "A 30-year-old with Ph+ ALL")
    assert g.sketch.keys == ("age", "ph")
    assert g.repairs


def test_wrong_guideline_is_repaired_from_the_question_or_rejected() -> None:
    g = ground("WITH 'bone' AS guideline, {age: $age} AS facts // next_step", "A 30-year-old with ALL")
    assert g.sketch.guideline == "ALL" and g.repairs
    with pytest.raises(GroundingError):
        ground("WITH 'bone' AS guideline, {age: $age} AS facts // next_step", "A 30-year-old patient")


def test_treatment_literal_must_appear_in_the_question() -> None:
    assert ground_treatment("blinatumomab", "Is Blinatumomab OK here?") == ("blinatumomab", None)
    phrase, note = ground_treatment("sunitinb", "who gets partial nephrectomy?", ["partial nephrectomy", "sunitinib"])
    assert phrase == "partial nephrectomy" and note
    with pytest.raises(GroundingError):
        ground_treatment("sunitinib", "who gets surgery?", ["sunitinib"])


def test_fallback_does_not_take_fact_words_for_a_treatment() -> None:
    known = ["resection of lung metastases", "metastasectomy"]
    s = fallback_sketch("A man with bone sarcoma and lung metastases. Guideline says to do what now?", "bone",
                        known, {"metastasis": "lung"})
    assert s is not None and s.qtype.value == "next_step"


_BONE_OPTIONS = ["clinical trial", "palliative radiotherapy", "best supportive care",
                 "pathology review of necrosis and margins", "school and work support during therapy",
                 "immediate local control by surgery"]


def test_a_stated_fact_is_never_the_treatment_found_instead() -> None:
    # the decoded treatment is not in the question: the one found instead is never a patient-fact word
    with pytest.raises(GroundingError, match="does not appear in the question"):
        ground("WITH 'bone' AS guideline, 'radiotherapy boost' AS treatment, {age: $age, histology: $histology, "
               "performance_status: $performance_status} AS facts // advise",
               "Would it be in line with the guideline for a person in their teens with Ewing sarcoma, "
               "ECOG performance status 3 and disease progression?", _BONE_OPTIONS + ["restaging of disease status"])


def test_a_stated_fact_is_never_the_treatment() -> None:
    g = ground("WITH 'bone' AS guideline, {age: $age, histology: $histology, necrosis: $necrosis} AS facts "
               "// next_step", "A woman aged 19 has osteosarcoma, necrosis of 15%, clear margins. What is the "
               "guideline-recommended approach?", _BONE_OPTIONS)
    assert g.sketch.qtype.value == "next_step" and g.sketch.treatment is None
    # a function word of an option's text names no option either
    g = ground("WITH 'bone' AS guideline, {age: $age, histology: $histology} AS facts // next_step",
               "A man of 17 with Ewing sarcoma and progressive disease. The patient asks about work during "
               "therapy. How would you proceed?", _BONE_OPTIONS)
    assert g.sketch.qtype.value == "next_step" and g.sketch.treatment is None


def test_a_word_describing_the_rhythm_is_no_treatment_asked_about() -> None:
    known = ["• attempt vagal maneuver, if rhythm is regular • consider adenosine if rhythm is regular",
             "*synchronized cardioversion: • narrow irregular, a-fib • narrow regular, svt"]
    question = "58F palpitations, HR 180 narrow and regular, alert. What should we try first?"
    assert asked_treatment(question, known) is None
    assert asked_treatment("Should we try adenosine? HR 180, narrow and regular.", known) == "adenosine"
