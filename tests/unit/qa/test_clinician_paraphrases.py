"""Wordings of issue #17's failure classes written for these tests, independently of the clinician dev and
held-out files (history and response, shorthand, negation, staging, sizes with units, number words,
out-of-scope requests): the facts the clinical-language layer must read from each."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.lexicon.clinical import digit_text, implied_facts, negation, out_of_scope
from dkg.qa.facts import extract_facts


def facts(text: str) -> dict[str, float | str]:
    return implied_facts(extract_facts(text))


@pytest.mark.parametrize(("text", "key", "value"), [
    # history and response
    ("Achieved CR after induction but MRD now rising on serial monitoring", "mrd", "rising"),
    ("MRD remained positive at the end of consolidation", "mrd", "persistent"),
    ("MRD not detectable after induction", "mrd", "negative"),
    ("MRD came back negative after cycle 2", "mrd", "negative"),
    ("MRD < 0.01 percent by NGS", "mrd", "negative"),
    ("MRD of 0.3 percent at day 29", "mrd", "positive"),
    ("Disease progressed on nivolumab plus ipilimumab at first restaging", "response", "progression"),
    ("Disease progressed on nivolumab plus ipilimumab at first restaging", "prior_therapy", "immunotherapy"),
    ("now progressing on first-line pembrolizumab + axitinib", "prior_therapy", "immunotherapy"),
    ("He relapsed on dasatinib with a T315I mutation", "prior_therapy", "tki"),
    ("He relapsed on dasatinib with a T315I mutation", "disease_status", "relapsed"),
    ("following partial nephrectomy, margins negative", "prior_therapy", "surgery"),
    # shorthand and spelling variants
    ("34 year old female, Philadelphia chromosome positive B cell ALL", "ph", "+"),
    ("34 year old female, Philadelphia chromosome positive B cell ALL", "lineage", "b_cell"),
    ("Karnofsky 60%", "performance_status", 2.0),
    ("ECOG performance status of 1", "performance_status", 1.0),
    # number words
    ("Seventy-one yr old man with Ph negative B-ALL", "age", 71.0),
    ("twenty two year old with T-ALL", "age", 22.0),
    ("stage four clear cell kidney cancer", "stage", "IV"),
    ("ECOG performance status of one", "performance_status", 1.0),
    ("a two cm renal mass", "tumor_size", 2.0),
    # staging and sizes with units
    ("renal mass of 35 mm, cT1a", "tumor_size", 3.5),
    ("renal mass of 35 mm, cT1a", "stage", "I"),
    ("a 7 centimetre renal tumour", "tumor_size", 7.0),
    # negation (NegEx cues: 'no evidence of', 'denies', 'free of')
    ("no evidence of metastatic disease on PET", "metastasis", "none"),
    ("denies any significant comorbidities", "comorbidity", "none"),
    ("free of distant metastases on CT chest", "metastasis", "none"),
])
def test_own_wordings_give_the_fact(text: str, key: str, value: float | str) -> None:
    assert facts(text).get(key) == value, facts(text)


@pytest.mark.parametrize(("text", "key"), [
    ("no evidence of CNS involvement", "metastasis"),
])
def test_negated_wording_states_no_fact(text: str, key: str) -> None:
    assert key not in facts(text)


def test_negation_ends_with_the_clause() -> None:
    # the cue 'no' of 'no PMH' does not reach past the comma to Ph+ or B-ALL
    read = facts("no PMH, Ph+ B-ALL, ECOG 1")
    assert read["comorbidity"] == "none" and read["ph"] == "+" and read["lineage"] == "b_cell"


def test_negation_window_is_short() -> None:
    text = "no fever or night sweats reported in clinic today and MRD positive"
    assert not negation(text).negates(text.index("MRD"))


def test_number_words_only_next_to_a_fact() -> None:
    text = "Is nivolumab one of the options for stage four ccRCC?"
    assert digit_text(text).text == "Is nivolumab one of the options for stage 4 ccRCC?"


def test_number_word_spans_map_back_onto_the_question() -> None:
    from dkg.qa.facts import find_facts

    text = "Seventy-one yr old man"
    [age] = [f for f in find_facts(text) if f.key == "age"]
    assert text[age.start:age.end].lower().startswith("seventy-one")


@pytest.mark.parametrize(("text", "reason"), [
    ("How many milligrams of sunitinib for a 70 kg man with ccRCC?", "dosing"),
    ("Should the imatinib dose be reduced for grade 3 neutropenia in Ph+ ALL?", "dosing"),
    ("Can he get the shingles vaccine while on blinatumomab?", "vaccination"),
])
def test_own_out_of_scope_wordings(text: str, reason: str) -> None:
    assert reason in (out_of_scope(text) or "")


@pytest.mark.parametrize(("text", "key", "value"), [
    ("osteosarcoma resected: 95% necrosis, clear margins", "response", "good"),
    ("resection specimen shows 60% necrosis", "response", "poor"),
    ("3.2 cm renal mass, cT1a N0 M0", "metastasis", "none"),
    ("stage II clear cell RCC", "metastasis", "none"),
    ("an isolated lung relapse 30 months after diagnosis", "metastasis", "lung"),
    ("an isolated lung relapse 30 months after diagnosis", "disease_status", "relapsed"),
])
def test_implied_facts(text: str, key: str, value: str) -> None:
    assert facts(text)[key] == value


def test_a_risk_of_recurrence_is_no_recurrence() -> None:
    assert "disease_status" not in facts("s/p radical nephrectomy for ccRCC, pathology high risk for recurrence")
    assert facts("local recurrence of chondrosarcoma")["disease_status"] == "recurrent"


def test_a_numeric_implication_needs_a_comparison(tmp_path: Path) -> None:
    from dkg.lexicon.clinical import Implication

    with pytest.raises(ValueError, match="comparison"):
        Implication.model_validate({"when": {"necrosis": "lots"}, "then": {"response": "good"}})


def test_a_regimen_written_in_capitals_is_a_treatment() -> None:
    from dkg.qa.grounding import treatment_in_question

    known = ["pomp maintenance for 2–3 years with intrathecal prophylaxis", "tki maintenance for at least 2 years"]
    assert treatment_in_question("Is POMP appropriate for Ph-positive ALL in remission?", known) == "pomp"
    # imaging and shorthand in capitals are no treatment
    assert treatment_in_question("CT shows Ph-positive ALL in remission, MRD negative", known) is None


def test_an_advise_question_about_a_known_treatment_is_answered_as_advise() -> None:
    from dkg.qa.grounding import ground_sketch
    from dkg.qa.queries import QuerySketch, QuestionType

    question = "Would dexrazoxane be reasonable alongside doxorubicin for a 66 year old with localized Ewing sarcoma?"
    decoded = QuerySketch(QuestionType.NEXT_STEP, "bone", ("age", "histology", "metastasis"))
    known = ["vdc/ie with dose adjustment and dexrazoxane", "wide excision"]
    grounded = ground_sketch(decoded, question, known)
    assert grounded.sketch.qtype is QuestionType.ADVISE and grounded.sketch.treatment == "dexrazoxane"
    # without the advise form, the decoded next-step query stands
    plain = ground_sketch(decoded, "66 year old with localized Ewing sarcoma, dexrazoxane given: next?", known)
    assert plain.sketch.qtype is QuestionType.NEXT_STEP
