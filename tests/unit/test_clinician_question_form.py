"""The form of a clinician's question is read where it asks (issue #17 own wordings): a word such as
'acceptable' or 'recommended' inside a statement of facts does not make an advise question."""

from __future__ import annotations

import pytest

from dkg.lexicon.clinical import asks


@pytest.mark.parametrize("question", [
    "Ewing sarcoma of the femur. The tumour is resectable with acceptable function. Local control?",
    "Stage III RCC; the recommended staging was done last week. What next?",
])
def test_a_cue_word_in_a_statement_is_no_advise_question(question: str) -> None:
    assert not asks(question, "advise")


@pytest.mark.parametrize("question", [
    "Localised Ewing sarcoma of the tibia, 25 yo. Is wide resection acceptable?",
    "Would nivo/ipi be reasonable first line for IMDC poor-risk ccRCC",
    "Ph+ ALL in CR. Should we give blinatumomab.",
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
