"""FHIR R4 export of one guideline version: a Bundle holding a CPG pathway PlanDefinition (one action per node,
arrows nested as transitions, treatments as contained ActivityDefinitions) and the local CodeSystems its
conditions use. Built as plain JSON, then validated with ``fhir.resources`` (R4B models, which read R4
PlanDefinitions) and by :func:`check_plan` (references resolve, every FHIRPath compiles)."""

from __future__ import annotations

import hashlib
import re
import time
from collections import defaultdict
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dkg import MEDICAL_DISCLAIMER
from dkg.fhir.codes import CodeMap, load_code_map
from dkg.fhir.errors import FhirError
from dkg.fhir.fhirpath import syntax_errors, write
from dkg.fhir.graph_view import EdgeRecord, NodeRecord, VersionView, read_version
from dkg.fhir.settings import FhirSettings, load_fhir_settings
from dkg.graph.db import Graph
from dkg.types import EffectivePeriod, constraint_key

CPG_PATHWAY = "http://hl7.org/fhir/uv/cpg/StructureDefinition/cpg-pathwaydefinition"
CPG_COMPUTABLE = "http://hl7.org/fhir/uv/cpg/StructureDefinition/cpg-computableplandefinition"
PLAN_TYPE = "http://terminology.hl7.org/CodeSystem/plan-definition-type"
FHIRPATH = "text/fhirpath"
# what an action of the exported plan stands for (codes of <local_system>/dkg-action-kind)
Kind = Literal["decision", "step", "question", "transition", "treatment"]


def fhir_id(text: str) -> str:
    """``text`` as a FHIR id ([A-Za-z0-9-.]{1,64}).

    >>> fhir_id("bone_2|1.2026")
    'bone-2-1.2026'
    """
    return re.sub(r"[^A-Za-z0-9\-.]", "-", text)[:64]


def plan_id(guideline: str, version: str) -> str:
    return fhir_id(f"{guideline}-{version}")


def node_action_id(node_key: str) -> str:
    return f"node-{node_key}"


class Unmapped(BaseModel):
    """A constraint key (or one of its values) with no code in the mapping, and where it occurs."""

    model_config = ConfigDict(frozen=True)

    key: str
    value: str | None = None
    where: list[str] = Field(description="uids of the nodes (or 'head->tail' arrows) whose condition it is in")


class ExportReport(BaseModel):
    """What an export wrote, and what it could not express."""

    guideline: str
    version: str
    plan_url: str
    actions: int = Field(description="node actions")
    transitions: int
    conditions: int = Field(description="applicability conditions written (one per key per node or arrow)")
    treatments: int = Field(description="contained ActivityDefinitions")
    unmapped: list[Unmapped] = Field(description="keys/values with no code: their conditions have no expression")
    seconds: float


class ExportResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    bundle: dict[str, Any]
    report: ExportReport


class _Writer:
    def __init__(self, view: VersionView, codes: CodeMap, settings: FhirSettings) -> None:
        self.view = view
        self.codes = codes
        self.settings = settings
        self.kind_system = f"{codes.local_system}/dkg-action-kind"
        self.unmapped: dict[tuple[str, str | None], set[str]] = defaultdict(set)
        self.conditions = 0

    def _kind(self, *kinds: Kind) -> list[dict[str, Any]]:
        return [{"coding": [{"system": self.kind_system, "code": k} for k in kinds]}]

    def _conditions(self, constraints: list[str], typed: dict[str, Any], where: str) -> list[dict[str, Any]]:
        by_key: dict[str, list[str]] = {}
        for text in constraints:
            by_key.setdefault(constraint_key(text), []).append(text)
        out = []
        for key, texts in sorted(by_key.items()):
            written = write(key, typed, self.codes)
            expression: dict[str, Any] = {"language": FHIRPATH, "description": ", ".join(texts)}
            if written.key_unmapped:
                self.unmapped[(key, None)].add(where)
            for value in written.unmapped_values:
                self.unmapped[(key, value)].add(where)
            if written.expression is not None:
                expression["expression"] = written.expression
                self.conditions += 1
            out.append({"kind": "applicability", "expression": expression})
        return out

    def _documentation(self, node: NodeRecord) -> list[dict[str, Any]]:
        info = self.view.info
        return [{"type": "citation", "label": page, "display": f"{info.title} {info.version}, page {page}"}
                for page in node.pages]

    def _treatment_id(self, name: str) -> str:
        return "ad-" + hashlib.sha1(name.encode()).hexdigest()[:16]

    def node_action(self, node: NodeRecord, parents: list[str], edges: list[EdgeRecord],
                    keys: dict[str, str]) -> dict[str, Any]:
        kinds: list[Kind] = ["decision" if node.decision else "step"]
        if node.question:
            kinds.append("question")
        action: dict[str, Any] = {"id": node_action_id(node.key), "title": node.content[:250],
                                  "textEquivalent": node.content, "code": self._kind(*kinds)}
        if node.question and node.constraints:
            action["description"] = ("A question: the conditions are on its answers (transitions); it states "
                                     + ", ".join(node.constraints))
        documentation = self._documentation(node)
        if documentation:
            action["documentation"] = documentation
        if node.decision and not node.question:
            action["condition"] = self._conditions(node.constraints, node.typed, node.uid)
        elif node.decision and node.contrast_keys:  # as the DKG query does (cypher/qa.cypher, contrast_keys)
            own = [c for c in node.constraints if constraint_key(c) in node.contrast_keys]
            if own:
                action["condition"] = self._conditions(own, node.typed, node.uid)
        if parents:
            action["relatedAction"] = [{"actionId": node_action_id(keys[p]), "relationship": "after-end"}
                                       for p in parents]
        children = []
        for i, edge in enumerate(edges):
            child: dict[str, Any] = {"id": f"edge-{node.key}-{i}", "title": edge.label or "next",
                                     "code": self._kind("transition"),
                                     "relatedAction": [{"actionId": node_action_id(keys[edge.tail]),
                                                        "relationship": "before-start"}]}
            if edge.constraints:
                child["condition"] = self._conditions(edge.constraints, edge.typed, f"{edge.head}->{edge.tail}")
            children.append(child)
        for j, treatment in enumerate(node.treatments):
            children.append({"id": f"offer-{node.key}-{j}", "title": treatment.display,
                             "code": self._kind("treatment"),
                             "definitionCanonical": "#" + self._treatment_id(treatment.name)})
        if children:
            action["action"] = children
        return action

    def activity(self, name: str, display: str) -> dict[str, Any]:
        return {"resourceType": "ActivityDefinition", "id": self._treatment_id(name), "status": "draft",
                "name": "T" + hashlib.sha1(name.encode()).hexdigest()[:16], "title": display,
                "description": display}

    def code_systems(self, used: set[str]) -> list[dict[str, Any]]:
        out = []
        for url, codings in sorted(self.codes.local_codings().items()):
            if url not in used:
                continue
            name = fhir_id(url.rsplit("/", 1)[-1])
            concepts = {c.code: c for c in codings}
            out.append({"resourceType": "CodeSystem", "id": fhir_id(f"dkg-{name}"), "url": url, "status": "draft",
                        "name": "DKG" + re.sub(r"[^A-Za-z0-9]", "", name.title()), "content": "complete",
                        "caseSensitive": True,
                        "concept": [{"code": code, **({"display": c.display} if c.display else {})}
                                    for code, c in sorted(concepts.items())]})
        out.append({"resourceType": "CodeSystem", "id": "dkg-action-kind", "url": self.kind_system,
                    "status": "draft", "name": "DKGActionKind", "content": "complete", "caseSensitive": True,
                    "concept": [{"code": "decision", "display": "Decision box (has patient constraints)"},
                                {"code": "step", "display": "Step or treatment box (no constraints)"},
                                {"code": "question", "display": "Question box (its answers carry the conditions)"},
                                {"code": "transition", "display": "Arrow to the next box"},
                                {"code": "treatment", "display": "Treatment option of a step"}]})
        return out


def order_nodes(view: VersionView) -> list[NodeRecord]:
    """The nodes roots first, then breadth first along the arrows (ties by uid): the plan's reading order."""
    by_uid = {n.uid: n for n in view.nodes}
    children: dict[str, list[str]] = defaultdict(list)
    indegree = {n.uid: 0 for n in view.nodes}
    for e in view.edges:
        children[e.head].append(e.tail)
        indegree[e.tail] += 1
    queue = sorted(u for u, d in indegree.items() if d == 0)
    seen: set[str] = set(queue)
    ordered: list[str] = []
    while queue:
        uid = queue.pop(0)
        ordered.append(uid)
        for tail in sorted(set(children[uid])):
            if tail not in seen:
                seen.add(tail)
                queue.append(tail)
    ordered += sorted(set(by_uid) - seen)  # nodes no root reaches (none in a built graph) come last
    return [by_uid[u] for u in ordered]


def effective_period(period: EffectivePeriod) -> dict[str, str]:
    """FHIR ``Period`` of a version's effective dates (no ``end`` while the version is open-ended)."""
    return {"start": period.start.isoformat()} | ({"end": period.end.isoformat()} if period.end else {})


def build_bundle(view: VersionView, codes: CodeMap, settings: FhirSettings) -> tuple[dict[str, Any], ExportReport]:
    """The bundle (JSON) and report of one version view; pure (no graph access)."""
    started = time.perf_counter()
    info = view.info
    writer = _Writer(view, codes, settings)
    keys = {n.uid: n.key for n in view.nodes}
    parents: dict[str, list[str]] = defaultdict(list)
    out_edges: dict[str, list[EdgeRecord]] = defaultdict(list)
    for e in view.edges:
        if e.head not in parents[e.tail]:
            parents[e.tail].append(e.head)
        out_edges[e.head].append(e)
    actions = [writer.node_action(n, parents[n.uid], out_edges[n.uid], keys) for n in order_nodes(view)]
    treatments = {t.name: t.display for n in view.nodes for t in n.treatments}
    pid = plan_id(info.guideline, info.version)
    url = f"{settings.canonical_base}/PlanDefinition/{pid}"
    pages = sorted({p for n in view.nodes for p in n.pages})
    in_force = f", {info.effective.label()}" if info.effective else ""
    related: list[dict[str, Any]] = [
        {"type": "documentation", "label": f"version {info.version}",
         "display": f"{info.title}, version {info.version}{in_force}"}]
    if info.source_sha:
        related.append({"type": "derived-from", "label": "source",
                        "display": f"source document sha256 {info.source_sha}"})
    related += [{"type": "citation", "label": p, "display": f"{info.title} {info.version}, page {p}"} for p in pages]
    plan: dict[str, Any] = {
        "resourceType": "PlanDefinition", "id": pid,
        "meta": {"profile": [CPG_PATHWAY, CPG_COMPUTABLE]},
        "url": url, "identifier": [{"system": f"{settings.canonical_base}/guideline-version",
                                    "value": f"{info.guideline}|{info.version}"}],
        "version": info.version, "name": "DKG_" + re.sub(r"[^A-Za-z0-9]", "_", f"{info.guideline}_{info.version}"),
        "title": f"{info.title} {info.version}",
        "type": {"coding": [{"system": PLAN_TYPE, "code": "clinical-protocol", "display": "Clinical Protocol"}]},
        "status": "draft", "experimental": True, "publisher": settings.publisher,
        "description": f"Decision pathway of {info.title}, version {info.version}, exported from the DKG. "
                       "Each node is an action; a decision's patient constraints are FHIRPath applicability "
                       "conditions over a Bundle of the patient's Patient and Observation resources.",
        "usage": MEDICAL_DISCLAIMER,
        **({"effectivePeriod": effective_period(info.effective)} if info.effective else {}),
        "relatedArtifact": related,
        "contained": [writer.activity(name, display) for name, display in sorted(treatments.items())],
        "action": actions,
    }
    if not plan["contained"]:
        del plan["contained"]
    used_systems = {writer.kind_system} | {c.system for entry in codes.keys.values()
                                           for c in ([entry.code] if entry.code else []) + list(entry.values.values())}
    systems = writer.code_systems(used_systems)
    bundle = {"resourceType": "Bundle", "id": fhir_id(f"dkg-{pid}"), "type": "collection",
              "entry": [{"fullUrl": url, "resource": plan}]
              + [{"fullUrl": cs["url"], "resource": cs} for cs in systems]}
    report = ExportReport(
        guideline=info.guideline, version=info.version, plan_url=url, actions=len(actions),
        transitions=len(view.edges), conditions=writer.conditions, treatments=len(treatments),
        unmapped=[Unmapped(key=k, value=v, where=sorted(w)) for (k, v), w in sorted(
            writer.unmapped.items(), key=lambda item: (item[0][0], item[0][1] or ""))],
        seconds=round(time.perf_counter() - started, 4))
    validate_bundle(bundle)
    return bundle, report


def validate_bundle(bundle: dict[str, Any]) -> None:
    """Raise :class:`FhirError` unless ``bundle`` is a valid FHIR Bundle (``fhir.resources`` R4B models) whose
    plans pass :func:`check_plan`."""
    from fhir.resources.R4B.bundle import Bundle

    try:
        Bundle.model_validate(bundle)
    except ValidationError as exc:
        found = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
        raise FhirError(f"the exported bundle is not valid FHIR: {found}") from exc
    for entry in bundle.get("entry", []):
        if entry["resource"]["resourceType"] == "PlanDefinition":
            problems = check_plan(entry["resource"])
            if problems:
                raise FhirError("the exported PlanDefinition is inconsistent: " + "; ".join(problems[:5]))


def _all_actions(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for a in actions:
        out.append(a)
        out += _all_actions(a.get("action", []))
    return out


def check_plan(plan: dict[str, Any]) -> list[str]:
    """What the FHIR models do not check: action ids unique, every relatedAction and contained reference
    resolves, every FHIRPath condition parses by the FHIRPath grammar. Returns the problems (empty when none)."""
    problems = []
    actions = _all_actions(plan.get("action", []))
    ids = [a.get("id") for a in actions]
    if len(ids) != len(set(ids)) or None in ids:
        problems.append("action ids are missing or repeated")
    known = set(ids)
    contained = {f"#{r['id']}" for r in plan.get("contained", [])}
    for a in actions:
        for rel in a.get("relatedAction", []):
            if rel["actionId"] not in known:
                problems.append(f"action {a.get('id')}: relatedAction {rel['actionId']} does not exist")
        ref = a.get("definitionCanonical")
        if ref and ref.startswith("#") and ref not in contained:
            problems.append(f"action {a.get('id')}: {ref} is not a contained resource")
        for cond in a.get("condition", []):
            text = cond.get("expression", {}).get("expression")
            if text is None:
                continue
            errors = syntax_errors(text)
            if errors:
                problems.append(f"action {a.get('id')}: FHIRPath does not compile ({errors[0]}): {text[:80]}")
    return problems


def export_version(graph: Graph, guideline: str, version: str, settings: FhirSettings | None = None
                   ) -> ExportResult:
    """Export one loaded guideline version: the validated bundle and its report (time includes the graph reads)."""
    settings = settings or load_fhir_settings()
    started = time.perf_counter()
    codes = load_code_map(settings.codes_file)
    view = read_version(graph, guideline, version)
    bundle, report = build_bundle(view, codes, settings)
    report = report.model_copy(update={"seconds": round(time.perf_counter() - started, 4)})
    return ExportResult(bundle=bundle, report=report)
