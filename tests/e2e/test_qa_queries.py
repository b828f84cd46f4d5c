"""The query bodies on the real Neo4j: strict matching, strictness of numeric bounds, the lenient retry and
the conditions query."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dkg.graph.builder import build
from dkg.graph.db import Graph
from dkg.graph.sources import input_from_source
from dkg.qa.queries import QuerySketch, QuestionType

pytestmark = pytest.mark.neo4j
V = "1.2026"


@pytest.fixture(scope="module")
def loaded(graph: Graph) -> Graph:
    build(graph, [input_from_source("ALL", V), input_from_source("kidney", V)])
    return graph


def _run(graph: Graph, sketch: QuerySketch, facts: dict) -> list[dict]:
    return graph.read(sketch.cypher(), sketch.params(facts, V))


def test_next_step_follows_the_patient_path(loaded: Graph) -> None:
    s = QuerySketch(QuestionType.NEXT_STEP, "ALL", ("age", "comorbidity", "lineage", "ph"))
    young = _run(loaded, s, {"age": 25.0, "comorbidity": "none", "lineage": "b_cell", "ph": "+"})
    assert len(young) == 1 and "pediatric-inspired" in young[0]["content"]
    older = _run(loaded, s, {"age": 70.0, "comorbidity": "none", "lineage": "b_cell", "ph": "+"})
    assert len(older) == 1 and older[0]["uid"] != young[0]["uid"]
    # age 40 is the lower bound of "age in [40,64]": inclusive
    edge = _run(loaded, s, {"age": 40.0, "comorbidity": "none", "lineage": "b_cell", "ph": "+"})
    assert len(edge) == 1 and edge[0]["uid"] not in (young[0]["uid"], older[0]["uid"])


def test_strict_query_needs_every_condition_and_lenient_names_what_it_assumes(loaded: Graph) -> None:
    s = QuerySketch(QuestionType.NEXT_STEP, "ALL", ("age", "comorbidity", "ph"))
    facts = {"age": 25.0, "comorbidity": "none", "ph": "+"}
    assert _run(loaded, s, facts) == []  # lineage is not stated
    rows = _run(loaded, replace(s, lenient=True), facts)
    assert rows and "lineage" in rows[0]["assumed"]


def test_advise_and_conditions(loaded: Graph) -> None:
    facts = {"age": 25.0, "comorbidity": "none", "lineage": "b_cell", "ph": "+"}
    yes = _run(loaded, QuerySketch(QuestionType.ADVISE, "ALL", tuple(sorted(facts)), "hyper-cvad + tki"), facts)
    no = _run(loaded, QuerySketch(QuestionType.ADVISE, "ALL", tuple(sorted(facts)), "tki + corticosteroids"), facts)
    assert yes[0]["advisable"] is True and no[0]["advisable"] is False
    rows = _run(loaded, QuerySketch(QuestionType.CONDITIONS, "kidney", (), "thermal ablation"), {})
    assert rows and all(r["constraints"] for r in rows)
