"""The CDS Hooks 2.0 service logic (``patient-view``): discovery document, request and card models, and the
answer: each loaded guideline's version in force today (by its effective period, else the newest), exported as
a PlanDefinition, is evaluated on the prefetched Patient and Observations; a recommended step becomes an info
card, facts the pathway needs a warning card.

The HTTP layer is dkg/api/routes_cds.py; this module knows nothing of HTTP beyond the spec's error cases
(:class:`CdsRequestError` = 400, :class:`PrefetchMissingError` = 412)."""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dkg import MEDICAL_DISCLAIMER
from dkg.fhir.codes import CodeMap, load_code_map
from dkg.fhir.errors import CdsRequestError, FhirError
from dkg.fhir.evaluate import Evaluation, Plan, StepResult
from dkg.fhir.export import build_bundle
from dkg.fhir.graph_view import VersionInfo, loaded_versions, read_version
from dkg.fhir.settings import FhirSettings
from dkg.graph.db import Graph
from dkg.types import version_order

HOOK = "patient-view"
SUMMARY_MAX = 140
# observations in these states are not facts about the patient
_NOT_FACTS = frozenset({"entered-in-error", "cancelled", "registered"})


class PrefetchMissingError(FhirError):
    """The request carries no prefetched Patient and this service does not query the EHR (HTTP 412)."""


# ---- request -------------------------------------------------------------------------------------------------
class PatientViewContext(BaseModel):
    model_config = ConfigDict(extra="allow")

    userId: str = Field(min_length=1, max_length=200, description="e.g. Practitioner/123")
    patientId: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9\-.]{1,64}$")
    encounterId: str | None = Field(default=None, max_length=64)


class CdsRequest(BaseModel):
    """A CDS Hooks 2.0 ``patient-view`` request (fields the spec defines; others are ignored)."""

    model_config = ConfigDict(extra="ignore")

    hook: str = Field(min_length=1, max_length=100)
    hookInstance: str = Field(min_length=1, max_length=100)
    fhirServer: str | None = Field(default=None, max_length=2000)
    fhirAuthorization: dict[str, Any] | None = None
    context: PatientViewContext
    prefetch: dict[str, Any] | None = None


# ---- response ------------------------------------------------------------------------------------------------
class Source(BaseModel):
    label: str = Field(min_length=1, max_length=200)
    url: str | None = None


class Link(BaseModel):
    label: str
    url: str
    type: Literal["absolute", "smart"] = "absolute"


class Card(BaseModel):
    uuid: str
    summary: str = Field(min_length=1, max_length=SUMMARY_MAX)
    detail: str
    indicator: Literal["info", "warning", "critical"]
    source: Source
    links: list[Link] = Field(default_factory=list)


class CdsResponse(BaseModel):
    cards: list[Card]


class DiscoveredService(BaseModel):
    hook: str
    title: str
    description: str
    id: str
    prefetch: dict[str, str]


class Discovery(BaseModel):
    services: list[DiscoveredService]


PREFETCH = {"patient": "Patient/{{context.patientId}}",
            "observations": "Observation?subject={{context.patientId}}",
            "conditions": "Condition?subject={{context.patientId}}"}
# conditions in these verification states are not diagnoses of the patient
_NOT_DIAGNOSES = frozenset({"refuted", "entered-in-error"})


def discovery(settings: FhirSettings) -> Discovery:
    """The discovery document (``GET /cds-services``)."""
    return Discovery(services=[DiscoveredService(
        hook=HOOK, id=settings.cds_service_id, title="DKG next step",
        description="The next step of each loaded guideline's pathway for the patient's age and coded observations "
                    "(decision support only, not a substitute for clinical judgement), or the facts it needs.",
        prefetch=PREFETCH)])


# ---- prefetch → patient bundle -------------------------------------------------------------------------------
def _problems(exc: ValidationError, where: str) -> str:
    return "; ".join(f"{where}.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])


def patient_data(request: CdsRequest, settings: FhirSettings) -> dict[str, Any]:
    """The prefetched Patient and its (valid, current) Observations as one Bundle, the latest per code.
    :class:`CdsRequestError` names what is malformed; :class:`PrefetchMissingError` when there is no Patient."""
    from fhir.resources.R4B.patient import Patient

    if request.hook != HOOK:
        raise CdsRequestError(f"hook {request.hook!r} is not served here; this service answers {HOOK!r}")
    prefetch = request.prefetch or {}
    unknown = sorted(set(prefetch) - set(PREFETCH))
    if unknown:
        raise CdsRequestError(f"unknown prefetch key(s) {', '.join(unknown)}; this service asks for "
                              f"{', '.join(PREFETCH)}")
    patient = prefetch.get("patient")
    if patient is None:
        raise PrefetchMissingError("no prefetched Patient: send prefetch.patient (Patient/{{context.patientId}}); "
                                   "this service does not query the FHIR server itself")
    if not isinstance(patient, dict) or patient.get("resourceType") != "Patient":
        raise CdsRequestError("prefetch.patient must be a FHIR Patient resource")
    try:
        Patient.model_validate(patient)
    except ValidationError as exc:
        raise CdsRequestError(f"prefetch.patient is not a valid FHIR Patient: {_problems(exc, 'patient')}") from exc
    if patient.get("id") != request.context.patientId:
        raise CdsRequestError(f"prefetch.patient has id {patient.get('id')!r} but context.patientId is "
                              f"{request.context.patientId!r}")
    observations = [o for o in _search_results(prefetch.get("observations"), "observations", "Observation",
                                               request.context.patientId, settings)
                    if o.get("status") not in _NOT_FACTS]
    return {"resourceType": "Bundle", "type": "collection",
            "entry": [{"resource": patient}] + [{"resource": o} for o in _latest_per_code(observations)]}


def diagnosed_guidelines(request: CdsRequest, codes: CodeMap, settings: FhirSettings) -> set[str]:
    """The guidelines whose diagnosis codes (mapping data) a prefetched Condition carries."""
    found: set[str] = set()
    conditions = _search_results((request.prefetch or {}).get("conditions"), "conditions", "Condition",
                                 request.context.patientId, settings)
    for condition in conditions:
        states = {c.get("code") for c in (condition.get("verificationStatus") or {}).get("coding", [])}
        if states & _NOT_DIAGNOSES:
            continue
        for coding in (condition.get("code") or {}).get("coding", []):
            found.update(codes.guidelines_of(str(coding.get("system")), str(coding.get("code"))))
    return found


def _search_results(found: object, name: str, resource_type: str, patient_id: str, settings: FhirSettings
                    ) -> list[dict[str, Any]]:
    """The resources of a prefetched search Bundle, each validated and about the patient (None = none)."""
    from fhir.resources.R4B.bundle import Bundle

    if found is None:
        return []
    if not isinstance(found, dict) or found.get("resourceType") != "Bundle":
        raise CdsRequestError(f"prefetch.{name} must be a FHIR Bundle (the result of the {resource_type} search)")
    try:
        Bundle.model_validate(found)
    except ValidationError as exc:
        raise CdsRequestError(f"prefetch.{name} is not a valid FHIR Bundle: {_problems(exc, name)}") from exc
    entries = found.get("entry") or []
    if len(entries) > settings.cds_max_observations:
        raise CdsRequestError(f"prefetch.{name} holds {len(entries)} entries; at most {settings.cds_max_observations} "
                              "are accepted (DKG_FHIR_CDS_MAX_OBSERVATIONS)")
    out = []
    for n, entry in enumerate(entries):
        resource = entry.get("resource") or {}
        if resource.get("resourceType") == "OperationOutcome":
            continue  # a search may carry warnings
        if resource.get("resourceType") != resource_type:
            raise CdsRequestError(f"prefetch.{name}.entry[{n}] is a {resource.get('resourceType')!r}; "
                                  f"prefetch.{name} must hold {resource_type} resources")
        subject = (resource.get("subject") or {}).get("reference")
        if subject not in (None, f"Patient/{patient_id}"):
            raise CdsRequestError(f"prefetch.{name}.entry[{n}] is about {subject!r}, not Patient/{patient_id}")
        out.append(resource)
    return out


def _when(obs: dict[str, Any]) -> str:
    return str(obs.get("effectiveDateTime") or (obs.get("effectivePeriod") or {}).get("end") or obs.get("issued") or "")


def _latest_per_code(observations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One observation per code (the latest by effective time): a fact has one current value."""
    latest: dict[tuple[tuple[str, str], ...], dict[str, Any]] = {}
    for obs in observations:
        codings = (obs.get("code") or {}).get("coding", [])
        code = tuple(sorted((str(c.get("system")), str(c.get("code"))) for c in codings))
        if code not in latest or _when(obs) >= _when(latest[code]):
            latest[code] = obs
    return list(latest.values())


# ---- the service ---------------------------------------------------------------------------------------------
def newest(versions: list[str]) -> str:
    """The newest of a guideline's versions ('2.2026' after '1.2026'; '1.2027' after '9.2026').

    >>> newest(["1.2026", "2.2026", "1.2025"])
    '2.2026'
    """
    return max(versions, key=version_order)


def in_force(infos: list[VersionInfo], today: date) -> VersionInfo:
    """The version of one guideline to answer with on ``today``: the newest whose effective period covers
    ``today``; else the newest without a period; else (every period expired or not begun) the newest."""
    covering = [i for i in infos if i.effective is not None and i.effective.covers(today)]
    undated = [i for i in infos if i.effective is None]
    pool = covering or undated or infos
    wanted = newest([i.version for i in pool])
    return next(i for i in pool if i.version == wanted)


def _clip(text: str, limit: int = SUMMARY_MAX) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class CdsService:
    """Answers ``patient-view`` requests from the graph's guideline versions (plans cached per graph snapshot)."""

    def __init__(self, graph: Graph, settings: FhirSettings, *, snapshot: Callable[[], str] | None = None,
                 today: Callable[[], date] = date.today) -> None:
        self.graph = graph
        self.today = today
        self.settings = settings
        self.codes: CodeMap = load_code_map(settings.codes_file)
        self.snapshot = snapshot or (lambda: "")
        self._plans: OrderedDict[tuple[str, str, str], Plan] = OrderedDict()
        self._lock = threading.Lock()

    def plan(self, info: VersionInfo, snapshot: str) -> Plan:
        key = (info.guideline, info.version, snapshot)
        with self._lock:
            cached = self._plans.get(key)
            if cached is not None:
                self._plans.move_to_end(key)
                return cached
        bundle, _ = build_bundle(read_version(self.graph, info.guideline, info.version), self.codes, self.settings)
        plan = Plan.from_bundle(bundle, self.codes, max_paths=self.settings.max_paths)
        with self._lock:
            self._plans[key] = plan
            while len(self._plans) > self.settings.cds_cache_size:
                self._plans.popitem(last=False)
        return plan

    def current_versions(self) -> list[VersionInfo]:
        """The version of each loaded guideline in force today (see :func:`in_force`)."""
        by_guideline: dict[str, list[VersionInfo]] = {}
        for info in loaded_versions(self.graph):
            by_guideline.setdefault(info.guideline, []).append(info)
        today = self.today()
        return [in_force(infos, today) for infos in by_guideline.values()]

    def answer(self, request: CdsRequest, *, node_url: Callable[[str], str] | None = None) -> CdsResponse:
        """The cards for one request (see the module docstring)."""
        data = patient_data(request, self.settings)
        diagnosed = diagnosed_guidelines(request, self.codes, self.settings)
        snapshot = self.snapshot()
        results: list[tuple[VersionInfo, Evaluation]] = []
        versions = self.current_versions()
        if any(v.guideline in diagnosed for v in versions):
            versions = [v for v in versions if v.guideline in diagnosed]
        for info in versions:
            results.append((info, self.plan(info, snapshot).evaluate(data)))
        cards = [step_card(info, ev, step, node_url) for info, ev in results for step in ev.steps]
        if not cards:
            cards = [missing_card(results)]
        return CdsResponse(cards=cards)


def _uid(info: VersionInfo, action_id: str) -> str:
    return f"{info.guideline}|{info.version}|{action_id.removeprefix('node-')}"


def step_card(info: VersionInfo, ev: Evaluation, step: StepResult, node_url: Callable[[str], str] | None) -> Card:
    """The info card of a recommended step: summary = the step, detail = its path with the constraints met."""
    pages = ", ".join(step.pages) or "no page"
    lines = [f"**Recommended next step** ({info.title} {info.version}, page {pages}):", "", step.title, ""]
    if step.treatments:
        lines += ["Treatment options: " + "; ".join(step.treatments), ""]
    lines.append("Path through the guideline:")
    for n, hop in enumerate(step.path, 1):
        via = f" ({hop.via})" if hop.via and hop.via != "next" else ""
        met = f" — satisfied: {', '.join(hop.satisfied)}" if hop.satisfied else ""
        lines.append(f"{n}. {hop.title}{via}{met}")
    lines += ["", f"Facts used from the record: {', '.join(ev.stated) or 'none'}.", "", f"_{MEDICAL_DISCLAIMER}_"]
    uid = _uid(info, step.action_id)
    links = [Link(label="This step in the DKG", url=node_url(uid))] if node_url else []
    return Card(uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, uid)), summary=_clip(f"{info.guideline}: {step.title}"),
                detail="\n".join(lines), indicator="info",
                source=Source(label=_clip(f"{info.title} {info.version}, page {pages}", 200)), links=links)


def missing_card(results: list[tuple[VersionInfo, Evaluation]]) -> Card:
    """The warning card when no guideline reaches a step: the facts each one needs, with the constraints."""
    needed = sorted({m.description for _, ev in results for m in ev.missing})
    summary = ("Next step needs: " + ", ".join(needed)) if needed else "No guideline step matches this record"
    lines = ["**No next step can be recommended from the record.**", ""]
    for info, ev in results:
        if ev.missing:
            lines.append(f"{info.title} {info.version} needs:")
            lines += [f"- {m.description} (`{m.key}`), for: {', '.join(m.needed_by)}" for m in ev.missing]
            lines.append("")
        else:
            lines += [f"{info.title} {info.version}: the recorded facts match no branch.", ""]
    lines.append(f"_{MEDICAL_DISCLAIMER}_")
    versions = ", ".join(f"{i.guideline} {i.version}" for i, _ in results) or "no guideline loaded"
    return Card(uuid=str(uuid.uuid4()), summary=_clip(summary), detail="\n".join(lines), indicator="warning",
                source=Source(label=_clip(f"DKG guidelines: {versions}", 200)))
