"""FHIR export against the real Neo4j: every shipped guideline version exports a bundle that validates, and the
exported FHIRPath conditions, evaluated with fhirpathpy on a FHIR patient made from each scenario of the CPG-QA
test split, select the same next step as the DKG's own next-step query on the graph."""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from pathlib import Path

import pytest
from fhir.resources.R4B.bundle import Bundle
from typer.testing import CliRunner

from dkg.cli.main import app
from dkg.corpus.model import discover, load_guideline
from dkg.fhir.codes import load_code_map
from dkg.fhir.evaluate import Plan
from dkg.fhir.export import check_plan, effective_period, export_version
from dkg.fhir.graph_view import loaded_versions
from dkg.fhir.patients import patient_bundle
from dkg.fhir.settings import load_fhir_settings
from dkg.graph.builder import build
from dkg.graph.db import Graph
from dkg.graph.sources import input_from_source
from dkg.qa.dataset import QAItem, load_dataset
from dkg.qa.queries import QuerySketch, QuestionType
from dkg.types import EffectivePeriod

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def shipped(graph: Graph) -> Graph:
    build(graph, [input_from_source(g, v) for g, v, _ in discover()])
    return graph


def test_every_shipped_version_exports_a_valid_bundle(shipped: Graph) -> None:
    shipped_versions = {(g, v) for g, v, _ in discover()}
    exported = set()
    for info in loaded_versions(shipped):
        if (info.guideline, info.version) not in shipped_versions:
            continue
        result = export_version(shipped, info.guideline, info.version)
        Bundle.model_validate(result.bundle)
        plan = result.bundle["entry"][0]["resource"]
        assert plan["resourceType"] == "PlanDefinition" and check_plan(plan) == []
        assert plan["version"] == info.version and "cpg-pathwaydefinition" in plan["meta"]["profile"][0]
        nodes = shipped.read("MATCH (:GuidelineVersion {guideline: $g, version: $v})-[:CONTAINS]->(n) "
                             "RETURN count(n) AS n", {"g": info.guideline, "v": info.version})[0]["n"]
        assert result.report.actions == len(plan["action"]) == nodes
        assert result.report.unmapped == [], "the shipped mapping covers every shipped constraint"
        assert result.report.conditions > 0 and result.report.treatments == len(plan["contained"])
        exported.add((info.guideline, info.version))
    assert exported == shipped_versions


def test_each_shipped_plan_carries_its_source_effective_period(shipped: Graph) -> None:
    dated = 0
    for g, v, path in discover():
        period = load_guideline(path).effective
        plan = export_version(shipped, g, v).bundle["entry"][0]["resource"]
        assert plan.get("effectivePeriod") == (effective_period(period) if period else None), f"{g} {v}"
        dated += period is not None
    assert dated >= 6, "the shipped illustrative versions are dated"


def test_a_changed_effective_period_is_rebuilt_and_exported(shipped: Graph) -> None:
    source = input_from_source("ALL", "1.2026")
    probe = dataclasses.replace(source, version="9.9999", effective=EffectivePeriod(start=date(2030, 1, 1)))
    try:
        build(shipped, [probe])
        moved = dataclasses.replace(probe, effective=EffectivePeriod(start=date(2030, 2, 1), end=date(2030, 3, 31)))
        [report] = build(shipped, [moved])
        assert not report.skipped, "a new period is a change of the version"
        plan = export_version(shipped, "ALL", "9.9999").bundle["entry"][0]["resource"]
        assert plan["effectivePeriod"] == {"start": "2030-02-01", "end": "2030-03-31"}
        [report] = build(shipped, [dataclasses.replace(moved, effective=None)])
        assert not report.skipped
        assert "effectivePeriod" not in export_version(shipped, "ALL", "9.9999").bundle["entry"][0]["resource"]
    finally:
        shipped.write("MATCH (n:Node {guideline: 'ALL', version: '9.9999'}) DETACH DELETE n")
        shipped.write("MATCH (g:GuidelineVersion {guideline: 'ALL', version: '9.9999'}) DETACH DELETE g")


def _test_scenarios() -> list[QAItem]:
    scenarios: dict[str, QAItem] = {}
    for item in load_dataset():
        if item.split in ("test", "test_unseen") and item.question_type is QuestionType.NEXT_STEP:
            scenarios.setdefault(item.scenario_id, item)
    return list(scenarios.values())


def test_round_trip_selects_the_dkg_next_step_for_every_test_scenario(shipped: Graph) -> None:
    codes = load_code_map(load_fhir_settings().codes_file)
    scenarios = _test_scenarios()
    assert len(scenarios) > 250
    plans: dict[tuple[str, str], Plan] = {}
    mismatches = []
    answered = 0
    for item in scenarios:
        key = (item.guideline, item.version)
        if key not in plans:
            plans[key] = Plan.from_bundle(export_version(shipped, *key).bundle, codes)
        facts = {k: v for k, v in item.params.items() if k not in ("guideline", "version")}
        sketch = QuerySketch(QuestionType.NEXT_STEP, item.guideline, tuple(sorted(facts)))
        dkg = sorted(r["uid"] for r in shipped.read(sketch.cypher(), sketch.params(facts, item.version)))
        evaluation = plans[key].evaluate(patient_bundle(facts, codes))
        fhir = sorted(f"{item.guideline}|{item.version}|{s.action_id.removeprefix('node-')}" for s in evaluation.steps)
        # the session's graph is shared: a curation test elsewhere may have changed a step, so a scenario may
        # reach no step; the export must then select none either
        answered += bool(dkg)
        if fhir != dkg:
            mismatches.append((item.scenario_id, facts, fhir, dkg))
    assert mismatches == [], f"{len(mismatches)} of {len(scenarios)} scenarios differ: {mismatches[:3]}"
    assert answered >= 0.95 * len(scenarios), f"only {answered} of {len(scenarios)} scenarios reach a step"


def test_a_curated_constraint_changes_the_exported_condition(shipped: Graph) -> None:
    from dkg.graph.curation import Curator

    row = shipped.read("MATCH (n:Decision {guideline: 'ALL', version: '1.2026'}) "
                       "WHERE NOT n.content ENDS WITH '?' AND NOT any(c IN n.constraints WHERE c STARTS WITH 'perf') "
                       "RETURN n.uid AS uid, n.constraints AS c ORDER BY n.uid LIMIT 1")
    uid, before = row[0]["uid"], list(row[0]["c"])
    curator = Curator(shipped, who="fhir-test")
    change = curator.set(uid, [*before, "performance_status<=2"], reason="FHIR export test")
    try:
        plan = export_version(shipped, "ALL", "1.2026").bundle["entry"][0]["resource"]
        action = next(a for a in plan["action"] if a["id"] == "node-" + uid.split("|")[2])
        texts = [c["expression"]["description"] for c in action["condition"]]
        assert "performance_status<=2" in texts
        ecog = next(c for c in action["condition"] if c["expression"]["description"] == "performance_status<=2")
        assert "89247-1" in ecog["expression"]["expression"] and "<= 2" in ecog["expression"]["expression"]
    finally:
        curator.rollback(change.id)


def test_cli_writes_the_bundle_and_names_an_unknown_version(shipped: Graph, tmp_path: Path) -> None:
    out, report = tmp_path / "bundle.json", tmp_path / "report.json"
    result = CliRunner().invoke(app, ["export", "fhir", "kidney", "2.2026", "-o", str(out), "--report", str(report)])
    assert result.exit_code == 0, result.output
    bundle = json.loads(out.read_text())
    assert bundle["resourceType"] == "Bundle" and bundle["entry"][0]["resource"]["version"] == "2.2026"
    assert json.loads(report.read_text())["unmapped"] == []
    missing = CliRunner().invoke(app, ["export", "fhir", "kidney", "9.9999", "-o", str(tmp_path / "x.json")])
    assert missing.exit_code == 1 and "not loaded" in missing.output and "kidney 2.2026" in missing.output
    assert not (tmp_path / "x.json").exists()
