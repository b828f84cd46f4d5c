"""The form of a clinician's question is read where it asks (issue #17 own wordings): a word such as
'acceptable' or 'recommended' inside a statement of facts does not make an advise question."""

from __future__ import annotations

import pytest

from dkg.lexicon.clinical import asks, out_of_scope, with_treatment_names


@pytest.mark.parametrize("question", [
    "Ewing sarcoma of the femur. The tumour is resectable with acceptable function. Local control?",
    "Stage III RCC; the recommended staging was done last week. What next?",
])
def test_a_cue_word_in_a_statement_is_no_advise_question(question: str) -> None:
    assert not asks(question, "advise")


@pytest.mark.parametrize("question", [
    "Wide complex tachycardia, HR 170, stable: what is recommended?",
    "Ph+ ALL after induction, CR, MRD negative. What would be reasonable now?",
    "Which is recommended for a 22-year-old with Ph- B-ALL?",
])
def test_asking_what_is_recommended_asks_for_the_step(question: str) -> None:
    assert not asks(question, "advise")


@pytest.mark.parametrize("question", [
    "Localised Ewing sarcoma of the tibia, 25 yo. Is wide resection acceptable?",
    "Ph+ ALL, what is recommended: is dasatinib appropriate?",
    "Would nivo/ipi be reasonable first line for IMDC poor-risk ccRCC",
    "Ph+ ALL in CR. Should we give blinatumomab.",
    "Would we give blinatumomab to a 45 yo with Ph- B-ALL in CR1, MRD positive?",
    "Ph-neg B-ALL, 45, CR1 but MRD+. Do we give blinatumomab?",
])
def test_an_advise_question_is_still_read(question: str) -> None:
    assert asks(question, "advise")


KNOWN = ["cabozantinib", "palliative radiotherapy", "denosumab", "zoledronic acid", "cd19-directed car t-cell therapy",
         "car t-cell therapy", "blinatumomab", "tki + corticosteroids", "tki + blinatumomab"]


@pytest.mark.parametrize(("question", "treatment"), [
    # the drug the patient is on is a fact; the one asked about is in the asking sentence
    ("62F, papillary RCC, stage IV, bone mets, on cabozantinib. Is denosumab appropriate for the bone disease?",
     "denosumab"),
    # fact words inside a treatment's own name ('T-cell' of CAR T-cell therapy) do not hide it
    ("Is CAR-T an option for a 19yo with relapsed Ph-negative B-ALL?", "car t-cell therapy"),
    # a drug class written short ('steroids') is read by its full name
    ("Should we give a TKI with steroids to an 81-year-old with Ph-positive ALL?", "corticosteroids"),
])
def test_the_treatment_asked_about(question: str, treatment: str) -> None:
    from dkg.lexicon.clinical import with_treatment_names
    from dkg.qa.grounding import asked_treatment

    found = asked_treatment(with_treatment_names(question), KNOWN)
    assert found is not None and treatment in found


@pytest.mark.parametrize("question", [
    "Would inotuzumab be right for a 50 year old whose Ph+ ALL has relapsed?",
    "Would MAP be the right choice for a 12-year-old with localised high-grade osteosarcoma?",
    "Is it sensible to give cabozantinib here?",
])
def test_would_x_be_right_for_is_an_advise_question(question: str) -> None:
    # second wordings set (w2-ALL-08, w2-bone-14 ...): 'right for' asks whether the treatment fits
    assert asks(question, "advise")


@pytest.mark.parametrize(("question", "regimen"), [
    ("would map be right for a 12-year-old with localised high-grade osteosarcoma?", "map"),
    ("19m, localized high-grade os of the femur. is map appropriate upfront?", "map"),
    ("ph- b-all in cr1: is pomp maintenance appropriate?", "pomp"),
])
def test_a_regimen_typed_in_lower_case_is_the_regimen(question: str, regimen: str) -> None:
    # development questions typed in lower case (bench/qa_robustness.py): the capitals rule needs MAP, POMP
    from dkg.qa.grounding import asked_treatment

    known = ["neoadjuvant map", "wide excision", "pomp maintenance for 2-3 years", "clinical trial"]
    assert asked_treatment(question, known) is None
    assert asked_treatment(with_treatment_names(question), known) == regimen


def test_a_verb_names_its_option() -> None:
    # w2-bone-15 'is it reasonable to just observe ...': the option is 'observation'
    assert "[observation]" in with_treatment_names("Is it reasonable to just observe a 3 cm grade 1 chondrosarcoma?")


@pytest.mark.parametrize("question", [
    "Can you book the next bone marrow for Mr J (Ph+ ALL in CR1) on Thursday and let the ward know?",
    "Can you remind me what time the bone sarcoma MDT meets on Wednesday?",
    "Please draft a letter to Mr P's insurer explaining why he needs sunitinib for his kidney cancer.",
])
def test_an_administrative_task_is_out_of_scope(question: str) -> None:
    assert out_of_scope(question) is not None and "administrative" in str(out_of_scope(question))


def test_an_administrative_word_in_a_case_summary_is_no_request() -> None:
    assert out_of_scope("Ph+ ALL in CR1; the letter to the GP was sent. Maintenance?") is None


@pytest.mark.parametrize("question", [
    "Adrenocortical carcinoma invading the upper pole of the left kidney, 5 cm, 50M - what surgery?",
    "Phaeochromocytoma on top of the right kidney: what operation?",
])
def test_an_adrenal_tumour_beside_the_kidney_is_another_disease(question: str) -> None:
    # first wordings set w-kidney-24: the kidney is named, the disease is not a kidney cancer
    assert out_of_scope(question) is not None


@pytest.mark.parametrize("question", [
    "Could we offer SBRT for a painful bone metastasis of chondrosarcoma?",
    "Can we give pazopanib to a patient with metastatic chondrosarcoma?",
])
def test_could_we_offer_x_is_an_advise_question(question: str) -> None:
    assert asks(question, "advise")


@pytest.mark.parametrize("question", [
    "Which Ph-negative patients are offered POMP maintenance with intrathecal prophylaxis?",  # w3-ALL-12
    "What older, frail pts get blinatumomab?",
    "Which patients get nephrectomy?",
])
def test_which_patients_may_say_which_ones(question: str) -> None:
    assert asks(question, "conditions")


@pytest.mark.parametrize("question", [
    "Which regimen for patients with Ph+ ALL?",
    "What treatment do patients with RCC get?",
    "What is the next step for this patient?",
])
def test_which_regimen_for_patients_asks_for_a_regimen(question: str) -> None:
    assert not asks(question, "conditions")
