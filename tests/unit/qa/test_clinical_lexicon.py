"""Clinical shorthand, negation and question forms read by dkg/lexicon/clinical.py (one test per entry kind
of dkg/lexicon/data/clinical_facts.yaml) and the facts QA derives from them (issue #17's failure classes)."""

from pathlib import Path

import pytest

from dkg.lexicon.clinical import (
    Implication,
    asks,
    implied_facts,
    load_clinical_lexicon,
    not_a_treatment,
    out_of_scope,
    with_treatment_names,
)
from dkg.lexicon.errors import LexiconError
from dkg.qa.facts import detect_guidelines, extract_facts, unknown_facts


@pytest.mark.parametrize(("text", "age"), [
    ("22F, new dx Ph+ B-ALL", 22.0), ("68M with ccRCC", 68.0), ("52 yo M, marrow", 52.0),
    ("53 y/o lady", 53.0), ("58yo woman", 58.0), ("a 22-month-old boy", 1.83),
])
def test_age_and_sex_shorthand(text: str, age: float) -> None:
    assert extract_facts(text)["age"] == age


def test_durations_are_no_age() -> None:
    facts = extract_facts("Osteosarcoma, limb-salvage surgery 2 yrs ago, 34M")
    assert facts["age"] == 34.0


@pytest.mark.parametrize(("text", "key", "value"), [
    ("Ph-pos pre-B ALL (p210 transcript)", "ph", "+"),
    ("FISH +ve for BCR-ABL1", "ph", "+"),
    ("Ph neg B-ALL", "ph", "-"),
    ("now in CR1", "response", "cr"),
    ("MRD-neg after consolidation", "mrd", "negative"),
    ("MRD 0.08 % by flow", "mrd", "positive"),
    ("MRD undetectable (<0.01%)", "mrd", "negative"),
    ("ECOG 2", "performance_status", 2.0),
    ("KPS 80", "performance_status", 1.0),
    ("IMDC intermediate", "risk", "intermediate"),
    ("3 IMDC factors", "risk", "poor"),
    ("stage V bilateral Wilms", "stage", "V"),
    ("pT3a N0 renal mass", "stage", "III"),
    ("cT1a renal mass", "stage", "I"),
    ("a 40 mm renal mass", "tumor_size", 4.0),
    ("9.5cm L renal mass", "tumor_size", 9.5),
    ("relapsed at 20 months", "time_to_relapse", 20.0),
    ("a lung relapse fourteen months later", "time_to_relapse", 14.0),
    ("s/p radical nephrectomy", "prior_therapy", "surgery"),
    ("a MUD has been identified", "transplant_eligible", "yes"),
    ("not resectable per two sarcoma surgeons", "resectable", "no"),
])
def test_shorthand_entries(text: str, key: str, value: float | str) -> None:
    assert extract_facts(text)[key] == value


@pytest.mark.parametrize("text", ["22F, new dx Ph+ B-ALL, no PMH", "no comorbs", "otherwise well",
                                  "fit and well otherwise", "zero past medical hx", "48F, fit"])
def test_absent_comorbidity_is_none(text: str) -> None:
    assert extract_facts(text)["comorbidity"] == "none"


def test_negated_fitness_is_substantial() -> None:
    assert extract_facts("58yo with B-ALL, clearly not fit for anything intensive")["comorbidity"] == "substantial"


def test_unreviewed_comorbidity_is_unknown_not_none() -> None:
    question = "52 yo M, B-lineage ALL. His comorbidities haven't been reviewed."
    assert "comorbidity" not in extract_facts(question)
    assert unknown_facts(question) == ["comorbidity"]


def test_negated_phrase_states_nothing() -> None:
    assert "comorbidity" not in extract_facts("metastatic chondrosarcoma, no lung disease, ECOG 2")


def test_specific_site_beats_any() -> None:
    assert extract_facts("metastatic ccRCC with 2 small bone mets")["metastasis"] == "bone"


def test_implications() -> None:
    assert implied_facts({"metastasis": "lung"})["stage"] == "IV"
    assert implied_facts({"metastasis": "lung", "stage": "III"})["stage"] == "III"
    assert implied_facts({"prior_therapy": "surgery"})["resectable"] == "yes"
    # the tumour taken out was resectable; whether a recurrence after it is, the surgery does not say
    assert "resectable" not in implied_facts({"prior_therapy": "surgery", "disease_status": "recurrent"})


def test_an_implication_cancelled_by_a_value_the_vocabulary_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match="disease_status"):
        Implication(when={"prior_therapy": ["surgery"]}, then={"resectable": "yes"},
                    unless={"disease_status": ["cured"]})


def test_treatment_aliases_are_appended() -> None:
    text = "Would nivo/ipi be the recommended first line?"
    assert with_treatment_names(text) == text + " [nivolumab + ipilimumab]"
    assert with_treatment_names("Is HDCT an option?").endswith("[high-dose chemotherapy]")


def test_ordinary_words_are_not_treatments() -> None:
    assert all(not_a_treatment(w) for w in ("marrow", "months", "function", "neoadjuvant"))
    assert not not_a_treatment("blinatumomab")


@pytest.mark.parametrize(("text", "kind"), [
    ("Is blinatumomab a reasonable re-induction?", "advise"),
    ("Would hyper-CVAD with dasatinib be an acceptable induction for her?", "advise"),
    ("Should dexrazoxane go alongside the doxorubicin?", "advise"),
    ("Which pts should get a nelarabine-based regimen?", "conditions"),
    ("In which situation does the algorithm recommend blina?", "conditions"),
])
def test_question_forms(text: str, kind: str) -> None:
    assert asks(text, kind)  # type: ignore[arg-type]


def test_a_next_step_question_asks_about_no_treatment() -> None:
    text = "22F Ph+ B-ALL confirmed on marrow yesterday, no PMH. Plan for induction?"
    assert not asks(text, "advise") and not asks(text, "conditions")


@pytest.mark.parametrize("text", ["What is the starting dose of dasatinib in mg?",
                                  "Pt with ALL on maintenance wants the yellow fever jab. OK to give a live vaccine?",
                                  "34F with tuberous sclerosis and a 6 cm renal angiomyolipoma",
                                  "high-grade urothelial carcinoma of the renal pelvis"])
def test_out_of_scope_requests_and_diseases(text: str) -> None:
    assert out_of_scope(text)


def test_in_scope_question_is_not_out_of_scope() -> None:
    assert out_of_scope("Wilms tumour, high-dose chemotherapy with stem cell rescue?") is None


def test_spread_words_imply_no_guideline() -> None:
    assert detect_guidelines("57M, stage IV ccRCC with 2 small bone mets, IMDC favourable") == ["kidney"]


def test_bad_lexicon_entry_names_the_problem(tmp_path: Path) -> None:
    bad = tmp_path / "clinical_facts.yaml"
    bad.write_text("numbers: {}\npatterns: []\nphrases: {stage: {VI: [stage 6]}}\nconcepts: []\n"
                   "unknown_cues: []\nnegation_cues: []\n")
    with pytest.raises(LexiconError, match="'VI' is not a value of 'stage'"):
        load_clinical_lexicon(bad)


@pytest.mark.parametrize(("question", "refused"), [
    ("Patient: 90 y/o gentleman. Diagnosis: ALL. Vaccinations are up to date. What is the next recommended step?",
     False),
    ("Had her flu vaccine last week. Ph+ ALL, 40F. Next step?", False),
    ("Should a 22F with Ph+ ALL in CR1 get the flu vaccine?", True),
    ("Ph+ ALL 45M after HSCT: when to vaccinate", True),
    ("22F Ph+ ALL on dasatinib. Starting dose in mg?", True),
])
def test_a_request_is_out_of_scope_only_where_it_is_asked(question: str, refused: bool) -> None:
    assert (out_of_scope(question) is not None) is refused
