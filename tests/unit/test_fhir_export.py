"""The FHIR export and plan evaluation on a small hand-made guideline version (no graph): the bundle's shape
and validity, unmapped keys listed in the report, broken references caught, and the walk's choice of step."""

from __future__ import annotations

from typing import Any

import pytest

from dkg.fhir.codes import load_code_map
from dkg.fhir.errors import FhirError
from dkg.fhir.evaluate import Plan
from dkg.fhir.export import build_bundle, check_plan, validate_bundle
from dkg.fhir.graph_view import EdgeRecord, NodeRecord, Treatment, VersionInfo, VersionView
from dkg.fhir.patients import patient_bundle
from dkg.fhir.settings import load_fhir_settings
from dkg.graph.model import constraints_to_properties
from dkg.types import Constraint

SETTINGS = load_fhir_settings()
CODES = load_code_map(SETTINGS.codes_file)


def node(key: str, content: str, constraints: tuple[str, ...] = (), treatments: tuple[str, ...] = ()) -> NodeRecord:
    return NodeRecord(uid=f"demo|1.0|{key}", key=key, content=content, pages=["D-1"], constraints=list(constraints),
                      decision=bool(constraints), options=list(treatments),
                      treatments=[Treatment(name=t.lower(), display=t) for t in treatments],
                      typed=constraints_to_properties([Constraint.parse(c) for c in constraints]))


def edge(head: str, tail: str, label: str = "", constraints: tuple[str, ...] = ()) -> EdgeRecord:
    return EdgeRecord(head=f"demo|1.0|{head}", tail=f"demo|1.0|{tail}", label=label, constraints=list(constraints),
                      typed=constraints_to_properties([Constraint.parse(c) for c in constraints]))


def view(extra_nodes: tuple[NodeRecord, ...] = (), extra_edges: tuple[EdgeRecord, ...] = ()) -> VersionView:
    nodes = [node("root", "Presentation and workup"), node("q", "Ph-positive?", ("ph=+",)),
             node("young", "Age 15-39", ("age in [15,39]",)), node("old", "Age 40 or more", ("age>=40",)),
             node("a1", "Pediatric-inspired regimen + TKI", treatments=("Pediatric-inspired regimen + TKI",)),
             node("a2", "TKI + chemotherapy", treatments=("TKI + chemotherapy",)),
             node("a3", "Ph-negative regimen"), *extra_nodes]
    edges = [edge("root", "q"), edge("q", "young", "YES", ("ph=+",)), edge("q", "old", "YES", ("ph=+",)),
             edge("q", "a3", "NO", ("ph=-",)), edge("young", "a1"), edge("old", "a2"), *extra_edges]
    return VersionView(info=VersionInfo(guideline="demo", version="1.0", title="Demo guideline", source_sha="ab"),
                       nodes=nodes, edges=edges)


def plan_of(bundle: dict[str, Any]) -> dict[str, Any]:
    return bundle["entry"][0]["resource"]


def test_the_bundle_is_a_cpg_pathway_with_nested_ordered_actions() -> None:
    bundle, report = build_bundle(view(), CODES, SETTINGS)
    plan = plan_of(bundle)
    assert plan["meta"]["profile"][0].endswith("cpg-pathwaydefinition") and plan["version"] == "1.0"
    assert [a["id"] for a in plan["action"]][0] == "node-root"
    young = next(a for a in plan["action"] if a["id"] == "node-young")
    assert young["condition"][0]["kind"] == "applicability"
    assert young["condition"][0]["expression"]["language"] == "text/fhirpath"
    assert young["relatedAction"] == [{"actionId": "node-q", "relationship": "after-end"}]
    question = next(a for a in plan["action"] if a["id"] == "node-q")
    assert "condition" not in question, "a question's own condition is carried by its answers"
    assert [c["title"] for c in question["action"]] == ["YES", "YES", "NO"]
    a1 = next(a for a in plan["action"] if a["id"] == "node-a1")
    assert a1["action"][0]["definitionCanonical"].startswith("#ad-")
    assert {r["id"] for r in plan["contained"]} == {a["action"][0]["definitionCanonical"][1:]
                                                   for a in plan["action"] if a["id"] in ("node-a1", "node-a2")}
    assert any(r["type"] == "citation" and r["label"] == "D-1" for r in plan["relatedArtifact"])
    assert "never a substitute for clinical judgement" in plan["usage"]
    assert report.actions == 7 and report.transitions == 6 and report.unmapped == [] and report.treatments == 2
    assert {e["resource"]["resourceType"] for e in bundle["entry"]} == {"PlanDefinition", "CodeSystem"}


def test_unmapped_keys_and_values_are_listed_never_dropped() -> None:
    extra = node("odd", "Myxoid histology", ("histology=myxoid",))
    bundle, report = build_bundle(view((extra,), (edge("root", "odd"),)), CODES, SETTINGS)
    assert [(u.key, u.value, u.where) for u in report.unmapped] == [("histology", "myxoid", ["demo|1.0|odd"])]
    odd = next(a for a in plan_of(bundle)["action"] if a["id"] == "node-odd")
    assert odd["condition"] == [{"kind": "applicability",
                                 "expression": {"language": "text/fhirpath", "description": "histology=myxoid"}}]
    no_ph = CODES.model_copy(update={"keys": {k: v for k, v in CODES.keys.items() if k != "ph"}})
    _, report = build_bundle(view(), no_ph, SETTINGS)
    assert [(u.key, u.value) for u in report.unmapped] == [("ph", None)]


def test_broken_references_and_bad_fhirpath_are_caught() -> None:
    bundle, _ = build_bundle(view(), CODES, SETTINGS)
    plan = plan_of(bundle)
    plan["action"][1]["relatedAction"][0]["actionId"] = "node-missing"
    young = next(a for a in plan["action"] if a["id"] == "node-young")
    young["condition"][0]["expression"]["expression"] = "Bundle.entry.where("
    problems = check_plan(plan)
    assert any("node-missing does not exist" in p for p in problems)
    assert any("does not compile" in p for p in problems)
    with pytest.raises(FhirError, match="inconsistent"):
        validate_bundle(bundle)
    plan["status"] = None
    plan["id"] = "bad id!"
    with pytest.raises(FhirError, match="not valid FHIR"):
        validate_bundle(bundle)


@pytest.mark.parametrize(("facts", "step"), [
    ({"ph": "+", "age": 25.0}, "node-a1"), ({"ph": "+", "age": 39.0}, "node-a1"), ({"ph": "+", "age": 40.0}, "node-a2"),
    ({"ph": "-"}, "node-a3"), ({"ph": "-", "age": 70.0}, "node-a3")])
def test_the_walk_selects_the_step_the_facts_lead_to(facts: dict[str, float | str], step: str) -> None:
    plan = Plan.from_bundle(build_bundle(view(), CODES, SETTINGS)[0], CODES)
    result = plan.evaluate(patient_bundle(facts, CODES))
    assert [s.action_id for s in result.steps] == [step]
    assert result.steps[0].path[0].action_id == "node-root" and result.missing == []


def test_unstated_facts_stop_the_walk_and_are_named() -> None:
    plan = Plan.from_bundle(build_bundle(view(), CODES, SETTINGS)[0], CODES)
    result = plan.evaluate(patient_bundle({"ph": "+"}, CODES))
    assert result.steps == [] and [m.key for m in result.missing] == ["age"]
    assert result.missing[0].needed_by == ["age in [15,39]", "age>=40"]
    with pytest.raises(FhirError, match="Bundle"):
        plan.evaluate({"resourceType": "Patient"})
