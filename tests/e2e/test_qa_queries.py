"""The query bodies on the real Neo4j: strict matching, strictness of numeric bounds, the lenient retry and
the conditions query."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dkg.graph.build_input import BuildInput
from dkg.graph.builder import build
from dkg.graph.db import Graph, named_queries
from dkg.graph.sources import input_from_source
from dkg.qa.queries import QuerySketch, QuestionType, bodies
from dkg.types import parse_constraints

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


def test_a_question_box_beside_others_is_not_entered_against_its_own_condition(graph: Graph) -> None:
    # "History of Ewing sarcoma: recurrence confirmed?" stands beside the chondrosarcoma and osteosarcoma boxes;
    # a chondrosarcoma recurrence must not be routed through it to the Ewing relapse page (BONE-10)
    build(graph, [input_from_source("bone", V)])
    facts = {"comorbidity": "substantial", "disease_status": "recurrent", "grade": "low",
             "histology": "chondrosarcoma", "performance_status": 4.0, "tumor_size": 3.5}
    sketch = QuerySketch(QuestionType.NEXT_STEP, "bone", tuple(sorted(facts)))
    ewing_page = graph.read("MATCH (n:Node {guideline: 'bone', version: $v}) WHERE 'BONE-10' IN n.pages "
                            "RETURN collect(n.uid) AS uids", {"v": V})[0]["uids"]
    assert ewing_page
    for lenient in (False, True):
        rows = _run(graph, replace(sketch, lenient=lenient), facts)
        assert not {r["uid"] for r in rows} & set(ewing_page), rows


def _looped_guideline() -> BuildInput:
    """A start box, then six boxes each with an arrow to every other (30 arrows; trails through them number in
    the millions), then one conditional step."""
    g = BuildInput("looptest", "1")
    start = g.add_node("Start", [], "test")
    boxes = [g.add_node(f"Reassess {i}", [], "test") for i in range(6)]
    g.add_edge(start, boxes[0])
    for a in boxes:
        for b in boxes:
            if a != b:
                g.add_edge(a, b)
    treat = g.add_node("Treat the adult", [], "test")
    g.add_edge(boxes[-1], treat, "", parse_constraints("age>=18"))
    return g


def test_the_walk_does_not_go_round_loops(graph: Graph) -> None:
    looped = _looped_guideline()
    build(graph, [looped])
    try:
        marked = graph.read("MATCH (:Node {guideline: 'looptest'})-[r:NEXT_STEP]->() "
                            "RETURN count(r) AS all, count(r.closes_loop) AS loops")[0]
        assert marked["all"] == 32 and marked["loops"] == 15  # a tournament order keeps one arrow of each pair
        text = "WITH $guideline AS guideline, {age: $age} AS facts\n" + bodies()["next_step"]
        rows = graph.read(text, {"guideline": "looptest", "version": "1", "age": 40.0}, timeout_s=20)
        assert [r["content"] for r in rows] == ["Treat the adult"]
    finally:
        graph.write(named_queries("build")["delete_version"], {"gv": looped.uid})
        graph.write(named_queries("build")["delete_orphan_treatments"])
