"""Generated Cypher is refused by its plan before it runs: nothing changes the graph or reads a file.

Keyword blocklists are bypassed easily, so every form below is checked by effect on the real Neo4j.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.config import Settings
from dkg.errors import GraphError, UnsafeQueryError
from dkg.graph.builder import build
from dkg.graph.db import Graph
from dkg.graph.sources import input_from_source
from dkg.qa.queries import QuerySketch, QuestionType
from dkg.qa.safety import SafeExecutor, check_plan

pytestmark = pytest.mark.neo4j

ATTACKS = {
    "create": "CREATE (n:Evil {x: 1}) RETURN n",
    "merge": "MERGE (n:Evil {x: 1}) RETURN n",
    "set": "MATCH (n:Node) WITH n LIMIT 1 SET n.pwned = true RETURN n.uid",
    "remove_label": "MATCH (n:Node) WITH n LIMIT 1 REMOVE n:Node RETURN n.uid",
    "delete_hidden_in_comment_and_case": "MATCH (n:Evil) /* harmless */ DeTaCh DeLeTe n",
    "delete_nodes": "MATCH (n:Node) WITH n LIMIT 3 DETACH DELETE n RETURN count(*)",
    "foreach_write": "MATCH (n:Node) WITH collect(n)[..3] AS ns FOREACH (x IN ns | SET x.pwned = true) RETURN 1",
    "call_subquery_write": "MATCH (n:Node) CALL { WITH n CREATE (:Evil) } RETURN count(*) AS c",
    "call_in_transactions": "MATCH (n:Node) CALL { WITH n SET n.pwned = 1 } IN TRANSACTIONS RETURN 1",
    "procedure_outside_allow_list": "CALL dbms.components() YIELD name RETURN name",
    "write_procedure": "CALL db.createLabel('Evil')",
    "schema_change": "CREATE INDEX evil_index IF NOT EXISTS FOR (n:Evil) ON (n.x)",
    "unicode_escaped_keyword": "MATCH (n:Node) WITH n LIMIT 1 \\u0053ET n.pwned = true RETURN 1",
    "union_with_write": "MATCH (n:Node) RETURN n.uid AS u LIMIT 1 UNION CREATE (e:Evil) RETURN 'x' AS u",
}


def _counts(graph: Graph) -> tuple[int, int, int]:
    row = graph.read("MATCH (n) WITH count(n) AS nodes "
                     "OPTIONAL MATCH ()-[r]->() WITH nodes, count(r) AS rels "
                     "OPTIONAL MATCH (p) WHERE p.pwned IS NOT NULL OR p:Evil RETURN nodes, rels, count(p) AS marked")[0]
    return row["nodes"], row["rels"], row["marked"]


@pytest.fixture(scope="module")
def loaded(graph: Graph) -> Graph:
    build(graph, [input_from_source("ALL", "1.2026")])
    return graph


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_unsafe_query_is_refused_and_changes_nothing(loaded: Graph, neo4j_settings: Settings, name: str) -> None:
    executor = SafeExecutor(loaded, neo4j_settings)
    before = _counts(loaded)
    with pytest.raises((UnsafeQueryError, GraphError)):
        executor.run(ATTACKS[name])
    assert executor.executed == 0
    assert _counts(loaded) == before
    assert before[2] == 0


def test_load_csv_is_refused_and_no_file_is_read(loaded: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    secret = tmp_path / "secret.csv"
    secret.write_text("token\nSECRET-123\n")
    executor = SafeExecutor(loaded, neo4j_settings)
    with pytest.raises(UnsafeQueryError, match="LoadCSV"):
        executor.run(f"LOAD CSV FROM 'file://{secret}' AS row RETURN row")
    with pytest.raises(UnsafeQueryError):  # even hidden in a CALL subquery
        executor.run(f"CALL {{ LOAD CSV FROM 'file://{secret}' AS row RETURN row }} RETURN row")
    assert executor.executed == 0


def test_read_mode_is_a_second_barrier(loaded: Graph) -> None:
    # Even if a write got past the plan check, the READ transaction would refuse it.
    before = _counts(loaded)
    with pytest.raises(GraphError):
        loaded.read("CREATE (n:Evil) RETURN n")
    assert _counts(loaded) == before


def test_generated_queries_pass_and_run(loaded: Graph, neo4j_settings: Settings) -> None:
    executor = SafeExecutor(loaded, neo4j_settings)
    sketch = QuerySketch(QuestionType.NEXT_STEP, "ALL", ("age", "comorbidity", "lineage", "ph"))
    check = check_plan(loaded, sketch.cypher(), sketch.params(
        {"age": 25.0, "comorbidity": "none", "lineage": "b_cell", "ph": "+"}, "1.2026"))
    assert check.safe and check.query_type == "r"
    rows = executor.run(sketch.cypher(), sketch.params(
        {"age": 25.0, "comorbidity": "none", "lineage": "b_cell", "ph": "+"}, "1.2026"))
    assert len(rows) == 1 and "pediatric-inspired" in rows[0]["content"]
    assert executor.executed == 1 and executor.refused == 0 and executor.unsafe_executed == 0
