"""The CDS Hooks service in a real ``dkg serve`` process on the real Neo4j, called the way an EHR calls it:
discovery, a patient-view request whose prefetch holds a Patient and an Observation search Bundle (built with
fhirclient's models), and the errors the CDS Hooks specification names."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import date
from typing import Any

import httpx
import pytest
from fhirclient.models.bundle import Bundle as FcBundle
from fhirclient.models.condition import Condition as FcCondition
from fhirclient.models.observation import Observation as FcObservation
from fhirclient.models.patient import Patient as FcPatient

from dkg import MEDICAL_DISCLAIMER
from dkg.api.testing import CURATOR_TOKEN, READER_TOKEN, serve_process
from dkg.corpus.model import discover
from dkg.fhir.cds import CdsRequest, CdsService
from dkg.fhir.codes import CodeMap, load_code_map
from dkg.fhir.patients import patient_bundle
from dkg.fhir.settings import load_fhir_settings
from dkg.graph.builder import build
from dkg.graph.db import Graph
from dkg.graph.sources import input_from_source
from dkg.qa.queries import QuerySketch, QuestionType

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]
PORT = int(os.environ.get("DKG_FHIR_TEST_API_PORT", "8737"))
READER = {"Authorization": f"Bearer {READER_TOKEN}"}
ALL_PATIENT = {"age": 25.0, "comorbidity": "none", "lineage": "b_cell", "ph": "+"}


@pytest.fixture(scope="module")
def codes() -> CodeMap:
    return load_code_map(load_fhir_settings().codes_file)


@pytest.fixture(scope="module")
def base(graph: Graph, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    build(graph, [input_from_source(g, v) for g, v, _ in discover()])  # the CDS route needs no retrieval index
    env = {"DKG_HOME": str(graph.settings.home), "DKG_NEO4J_BOLT_PORT": str(graph.settings.neo4j_bolt_port),
           "DKG_RETRIEVAL_MODEL": "lsa", "DKG_API_LOAD_QA_MODEL": "false",
           "DKG_API_READ_TOKENS": f"reader:{READER_TOKEN}", "DKG_API_REQUIRE_READ_TOKEN": "true",
           "DKG_API_CURATOR_TOKENS": f"tester:{CURATOR_TOKEN}",  # the start-up health check sends it
           "DKG_API_QRELS_DIR": str(tmp_path_factory.mktemp("qrels"))}
    with serve_process(PORT, env) as server:
        yield server.base


@pytest.fixture(scope="module")
def client(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=120.0, headers=READER) as c:
        yield c


def ehr_request(facts: dict[str, float | str], codes: CodeMap, patient_id: str = "pat-1",
                diagnosis: str | None = "C91.0") -> dict[str, Any]:
    """A patient-view request as an EHR sends it: Patient read, Observation and Condition searches (searchset
    Bundles); the Condition carries the ICD-10 ``diagnosis``."""
    made = patient_bundle(facts, codes, today=date.today(), patient_id=patient_id)
    patient = FcPatient(made["entry"][0]["resource"])
    observations = [FcObservation(e["resource"]) for e in made["entry"][1:]]
    search = FcBundle({"resourceType": "Bundle", "type": "searchset", "total": len(observations),
                       "entry": [{"fullUrl": f"https://ehr.example.org/fhir/Observation/{o.id}",
                                  "resource": o.as_json(), "search": {"mode": "match"}} for o in observations]})
    conditions = [FcCondition({"resourceType": "Condition", "id": f"{patient_id}-dx",
                               "subject": {"reference": f"Patient/{patient_id}"},
                               "code": {"coding": [{"system": "http://hl7.org/fhir/sid/icd-10", "code": diagnosis}]}})
                  ] if diagnosis else []
    found = FcBundle({"resourceType": "Bundle", "type": "searchset", "total": len(conditions),
                      "entry": [{"resource": c.as_json(), "search": {"mode": "match"}} for c in conditions]})
    return {"hook": "patient-view", "hookInstance": str(uuid.uuid4()), "fhirServer": "https://ehr.example.org/fhir",
            "context": {"userId": "Practitioner/example", "patientId": patient_id},
            "prefetch": {"patient": patient.as_json(), "observations": search.as_json(),
                         "conditions": found.as_json()}}


def test_discovery_lists_the_patient_view_service(client: httpx.Client) -> None:
    r = client.get("/cds-services")
    assert r.status_code == 200
    (service,) = r.json()["services"]
    assert service["id"] == "dkg-next-step" and service["hook"] == "patient-view"
    assert service["title"] and service["description"]
    assert service["prefetch"] == {"patient": "Patient/{{context.patientId}}",
                                   "observations": "Observation?subject={{context.patientId}}",
                                   "conditions": "Condition?subject={{context.patientId}}"}


def test_a_patient_gets_the_dkg_next_step_as_a_card(client: httpx.Client, graph: Graph, codes: CodeMap) -> None:
    r = client.post("/cds-services/dkg-next-step", json=ehr_request(ALL_PATIENT, codes))
    assert r.status_code == 200, r.text
    cards = r.json()["cards"]
    sketch = QuerySketch(QuestionType.NEXT_STEP, "ALL", tuple(sorted(ALL_PATIENT)))
    versions = graph.read("MATCH (g:GuidelineVersion {guideline: 'ALL'}) RETURN g.version AS v")
    version = max((row["v"] for row in versions), key=lambda v: tuple(reversed([int(x) for x in v.split(".")])))
    (expected,) = graph.read(sketch.cypher(), sketch.params(ALL_PATIENT, version))
    ours = [c for c in cards if c["summary"].startswith("ALL: ")]
    assert len(ours) == 1, cards
    card = ours[0]
    assert card["indicator"] == "info" and len(card["summary"]) <= 140
    assert " ".join(expected["content"].split())[:60] in card["detail"]
    assert "url" not in card["source"], "no null fields: the optional url is left out"
    label = card["source"]["label"]
    assert "Acute Lymphoblastic" in label and version in label and "page ALL-" in label
    assert "satisfied: " in card["detail"] and "ph=+" in card["detail"] and MEDICAL_DISCLAIMER in card["detail"]
    link = client.get(card["links"][0]["url"].removeprefix(str(client.base_url)))
    assert link.status_code == 200 and link.json()["uid"] == expected["uid"]


def test_a_patient_missing_facts_gets_a_card_naming_them(client: httpx.Client, codes: CodeMap) -> None:
    r = client.post("/cds-services/dkg-next-step", json=ehr_request({"age": 30.0, "ph": "+"}, codes))
    assert r.status_code == 200, r.text
    (card,) = r.json()["cards"]  # the ALL diagnosis: only the ALL pathway is asked
    assert card["indicator"] == "warning" and card["summary"].startswith("Next step needs")
    assert len(card["summary"]) <= 140 and "`lineage`" in card["detail"] and MEDICAL_DISCLAIMER in card["detail"]
    assert "kidney" not in card["source"]["label"]


def test_without_a_coded_diagnosis_every_guideline_is_asked(client: httpx.Client, codes: CodeMap) -> None:
    r = client.post("/cds-services/dkg-next-step", json=ehr_request({"age": 30.0, "ph": "+"}, codes, diagnosis=None))
    assert r.status_code == 200, r.text
    assert [c["summary"].split(":")[0] for c in r.json()["cards"]] == ["kidney"]  # age alone reaches a kidney step


@pytest.mark.parametrize(("change", "status", "words"), [
    ("malformed", 400, "not JSON"),
    ("hook", 400, "not served here"),
    ("no_patient_id", 400, "context.patientId"),
    ("other_patient", 400, "context.patientId is"),
    ("not_an_observation", 400, "must hold Observation resources"),
    ("bad_observation", 400, "observations.entry.0.resource.status"),
    ("no_prefetch", 412, "no prefetched Patient"),
])
def test_bad_requests_get_the_status_the_spec_names(client: httpx.Client, codes: CodeMap, change: str, status: int,
                                                      words: str) -> None:
    body = ehr_request(ALL_PATIENT, codes)
    if change == "hook":
        body["hook"] = "order-sign"
    elif change == "no_patient_id":
        del body["context"]["patientId"]
    elif change == "other_patient":
        body["prefetch"]["patient"]["id"] = "someone-else"
    elif change == "not_an_observation":
        body["prefetch"]["observations"]["entry"][0]["resource"] = {"resourceType": "Patient", "id": "x"}
    elif change == "bad_observation":
        body["prefetch"]["observations"]["entry"][0]["resource"]["status"] = 7
    elif change == "no_prefetch":
        del body["prefetch"]
    if change == "malformed":
        r = client.post("/cds-services/dkg-next-step", content=b'{"hook": "patient-view",',
                        headers={"Content-Type": "application/json"})
    else:
        r = client.post("/cds-services/dkg-next-step", json=body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]["message"]


def test_unknown_service_and_missing_token(base: str, client: httpx.Client, codes: CodeMap) -> None:
    assert client.post("/cds-services/other", json=ehr_request(ALL_PATIENT, codes)).status_code == 404
    assert httpx.get(base + "/cds-services", timeout=30).status_code == 401


def test_the_service_answers_with_the_version_in_force_on_the_day(base: str, graph: Graph, codes: CodeMap) -> None:
    settings = load_fhir_settings()
    request = CdsRequest.model_validate(ehr_request(ALL_PATIENT, codes))
    for day, version in ((date(2026, 3, 1), "1.2026"), (date(2026, 12, 1), "2.2026")):
        service = CdsService(graph, settings, today=lambda day=day: day)
        assert {("ALL", version), ("kidney", version), ("bone", version)} <= {
            (v.guideline, v.version) for v in service.current_versions()}
        (card,) = [c for c in service.answer(request).cards if c.summary.startswith("ALL: ")]
        assert f" {version}, page ALL-" in card.source.label, card.source.label
