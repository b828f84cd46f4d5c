"""CDS Hooks request handling without a server: the prefetch becomes one patient Bundle (latest value per code,
invalid states dropped), malformed requests are refused naming the problem, cards keep the spec's limits."""

from __future__ import annotations

from typing import Any

import pytest

from dkg import MEDICAL_DISCLAIMER
from dkg.fhir.cds import (
    SUMMARY_MAX,
    CdsRequest,
    PrefetchMissingError,
    diagnosed_guidelines,
    discovery,
    missing_card,
    newest,
    patient_data,
    step_card,
)
from dkg.fhir.codes import load_code_map
from dkg.fhir.errors import CdsRequestError
from dkg.fhir.evaluate import Evaluation, MissingFact, PathHop, StepResult
from dkg.fhir.graph_view import VersionInfo
from dkg.fhir.patients import patient_bundle
from dkg.fhir.settings import load_fhir_settings

SETTINGS = load_fhir_settings()
CODES = load_code_map(SETTINGS.codes_file)


def request(facts: dict[str, float | str], **prefetch: Any) -> CdsRequest:
    made = patient_bundle(facts, CODES, patient_id="p1")
    body: dict[str, Any] = {
        "hook": "patient-view", "hookInstance": "d1577c69-dfbe-44ad-ba6d-3e05e953b2ea",
        "context": {"userId": "Practitioner/1", "patientId": "p1"},
        "prefetch": {"patient": made["entry"][0]["resource"],
                     "observations": {"resourceType": "Bundle", "type": "searchset", "entry": made["entry"][1:]},
                     **prefetch}}
    return CdsRequest.model_validate(body)


def test_discovery_has_the_fields_the_spec_requires() -> None:
    (service,) = discovery(SETTINGS).model_dump()["services"]
    assert {"id", "hook", "title", "description", "prefetch"} <= set(service)
    assert service["prefetch"]["patient"] == "Patient/{{context.patientId}}"


def test_the_latest_observation_per_code_is_the_fact_and_errors_are_dropped() -> None:
    r = request({"ph": "-", "stage": "II"})
    observations = r.prefetch["observations"]["entry"]  # type: ignore[index]
    newer = {**observations[0]["resource"], "id": "newer", "effectiveDateTime": "2999-01-01",
             "valueCodeableConcept": {"coding": [CODES.value("ph", "+").model_dump(exclude_none=True)]}}
    wrong = {**observations[1]["resource"], "id": "wrong", "status": "entered-in-error",
             "effectiveDateTime": "2999-01-01"}
    observations += [{"resource": newer}, {"resource": wrong}]
    data = patient_data(r, SETTINGS)
    ids = sorted(e["resource"]["id"] for e in data["entry"])
    assert ids == ["newer", "p1", "p1-stage"]


@pytest.mark.parametrize(("change", "words"), [
    (lambda b: b.update({"hook": "order-select"}), "not served here"),
    (lambda b: b["prefetch"]["patient"].update({"id": "p2"}), "context.patientId is 'p1'"),
    (lambda b: b["prefetch"].update({"labs": {}}), "unknown prefetch key(s) labs"),
    (lambda b: b["prefetch"].update({"observations": {"resourceType": "Patient"}}), "must be a FHIR Bundle"),
    (lambda b: b["prefetch"]["observations"]["entry"][0]["resource"].update({"subject": {"reference": "Patient/x"}}),
     "is about 'Patient/x'"),
    (lambda b: b["prefetch"]["patient"].update({"birthDate": "yesterday"}), "not a valid FHIR Patient"),
])
def test_malformed_requests_are_refused_naming_the_problem(change, words: str) -> None:  # type: ignore[no-untyped-def]
    body = request({"ph": "+", "age": 30.0}).model_dump()
    change(body)
    with pytest.raises(CdsRequestError) as info:
        patient_data(CdsRequest.model_validate(body), SETTINGS)
    assert words in str(info.value)


def test_no_prefetched_patient_is_the_precondition_error() -> None:
    body = request({"ph": "+"}).model_dump()
    body["prefetch"] = None
    with pytest.raises(PrefetchMissingError, match="prefetch.patient"):
        patient_data(CdsRequest.model_validate(body), SETTINGS)


def test_a_refuted_diagnosis_does_not_choose_a_guideline() -> None:
    def condition(code: str, status: str) -> dict[str, Any]:
        return {"resource": {"resourceType": "Condition", "subject": {"reference": "Patient/p1"},
                             "verificationStatus": {"coding": [{"code": status}]},
                             "code": {"coding": [{"system": "http://hl7.org/fhir/sid/icd-10", "code": code}]}}}
    found = {"resourceType": "Bundle", "type": "searchset",
             "entry": [condition("C64.1", "confirmed"), condition("C91.00", "refuted")]}
    assert diagnosed_guidelines(request({"age": 3.0}, conditions=found), CODES, SETTINGS) == {"kidney"}


def test_cards_keep_the_summary_limit_and_carry_the_disclaimer() -> None:
    info = VersionInfo(guideline="demo", version="1.0", title="Demo guideline")
    step = StepResult(action_id="node-abc", title="A very long step " * 20, treatments=["x"], pages=["D-2"],
                      path=[PathHop(action_id="node-r", title="Root", via="", satisfied=[]),
                            PathHop(action_id="node-abc", title="Step", via="YES", satisfied=["ph=+"])])
    card = step_card(info, Evaluation(steps=[step], stated=["ph"]), step, lambda uid: f"https://x/{uid}")
    assert len(card.summary) <= SUMMARY_MAX and card.summary.endswith("…")
    assert card.indicator == "info" and "page D-2" in card.source.label and "(YES) — satisfied: ph=+" in card.detail
    assert MEDICAL_DISCLAIMER in card.detail and card.links[0].url == "https://x/demo|1.0|abc"
    warning = missing_card([(info, Evaluation(steps=[], stated=[], missing=[
        MissingFact(key="age", description="Patient age", needed_by=["age>=40"])]))])
    assert warning.indicator == "warning" and warning.summary == "Next step needs: Patient age"
    assert MEDICAL_DISCLAIMER in warning.detail


def test_the_newest_version_is_chosen_by_number_not_text() -> None:
    assert newest(["9.2026", "1.2027", "10.2026"]) == "1.2027"
    assert newest(["1.2026", "draft"]) == "1.2026"
