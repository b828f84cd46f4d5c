"""A question stating an impossible fact is refused with a note naming it, never answered for another patient."""

from __future__ import annotations

from dkg.qa.service import TextToCypherService


def _screen(question: str, options: tuple[str, ...] = ()) -> str | None:
    # screen() reads the question and the named guideline's treatment options; no model or graph is needed
    service = TextToCypherService.__new__(TextToCypherService)
    service.versions = {}
    service.version_of = lambda guideline: "1.2026"  # type: ignore[method-assign]
    service.treatments = lambda guideline, version: list(options)  # type: ignore[method-assign]
    return service.screen(question)


def test_impossible_age_is_named_in_the_refusal() -> None:
    reason = _screen("What is the next step for a 1070-year-old man with Ph+ ALL?")
    assert reason is not None and reason.startswith("I could not use: age 1070 (allowed 0-120)")
    assert "70" not in reason.replace("1070", "")


def test_negative_age_is_named_in_the_refusal() -> None:
    reason = _screen("A -30-year-old woman with Ph-negative ALL: what treatment?")
    assert reason is not None and "age -30 (allowed 0-120)" in reason


def test_possible_age_is_not_refused() -> None:
    assert _screen("What is the next step for a 70-year-old man with Ph+ ALL?") is None


def test_an_option_the_graph_holds_is_no_dosing_request() -> None:
    option = "vdc/ie with dose adjustment and dexrazoxane"
    asked = "Ewing sarcoma, localized, 81 years old: is VDC/IE with dose adjustment and dexrazoxane advisable?"
    assert _screen(asked, (option,)) is None
    # the same words without the graph's option are a dosing question
    reason = _screen(asked)
    assert reason is not None and "drug dosing" in reason
    reason = _screen("Ewing sarcoma on VDC/IE: what dose adjustment of doxorubicin?", (option,))
    assert reason is not None and "drug dosing" in reason


def test_a_high_dose_regimen_is_no_dosing_request() -> None:
    # 'high-dose busulfan-melphalan ... of Ewing sarcoma' names a regimen; the graph's options are not needed
    assert _screen("Who should get high-dose busulfan-melphalan after resection of Ewing sarcoma?") is None
    reason = _screen("What is the high dose of methotrexate in mg/m2?")
    assert reason is not None and "drug dosing" in reason



def test_a_concentration_is_a_measurement_not_a_dose() -> None:
    # a lab value in mg/dL or mg/L states a finding ('glucose 55 mg/dL' on an onboarded stroke chart's
    # "Blood Glucose <70?"); mg, mg/kg and mg/m2 still ask for a dose
    from dkg.lexicon.clinical import out_of_scope

    assert out_of_scope("Acute stroke, glucose 55 mg/dL: next?") is None
    assert _screen("Ph+ ALL on steroids, glucose 250 mg/dL, creatinine 1.8 mg/dl, CRP 12 mg/L: what next?") is None
    for asked in ("Ewing sarcoma: how many mg of doxorubicin?", "Ph+ ALL: imatinib 600 mg or 400 mg?",
                  "Osteosarcoma: methotrexate 12 g/m2 is how much mg/kg?"):
        reason = _screen(asked)
        assert reason is not None and "drug dosing" in reason, asked
