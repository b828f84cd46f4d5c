"""Builder, curation and revision against the real Neo4j."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from dkg.api.testing import CURATOR_TOKEN, serve_process
from dkg.errors import BuildError, ConstraintError, CurationError
from dkg.graph.build_input import read_constrained_csv
from dkg.graph.builder import build, graph_counts
from dkg.graph.curation import UNCHANGED, Curator, StaleChangeError, UnknownChangeError, UnknownNodeError
from dkg.graph.db import Graph
from dkg.graph.revision import Snapshot, apply_revision, diff, snapshots_equal
from dkg.graph.sources import input_from_source

pytestmark = pytest.mark.neo4j


def _reset(graph: Graph, guideline: str) -> None:
    graph.write("MATCH (n:Node {guideline: $g}) DETACH DELETE n", {"g": guideline})
    graph.write("MATCH (g:GuidelineVersion {guideline: $g}) DETACH DELETE g", {"g": guideline})
    graph.write("MATCH (c:Change) WHERE c.node_uid STARTS WITH $prefix DETACH DELETE c", {"prefix": guideline + "|"})


@pytest.fixture()
def kidney(graph: Graph) -> Graph:
    _reset(graph, "kidney")
    build(graph, [input_from_source("kidney", "1.2026")])
    return graph


def test_build_counts_and_typed_properties(kidney: Graph) -> None:
    source = input_from_source("kidney", "1.2026")
    assert graph_counts(kidney, "kidney", "1.2026") == source.counts()
    row = kidney.read("MATCH (n:Decision {guideline: 'kidney', version: '1.2026'}) WHERE n.age_min = 18 "
                      "RETURN n.constraints AS c, n.age_min_strict AS strict")[0]
    assert "age>=18" in row["c"] and row["strict"] is False
    offers = kidney.read("MATCH (:Action {guideline: 'kidney'})-[:OFFERS]->(t:Treatment) RETURN count(t) AS c")
    assert offers[0]["c"] > 10
    shape = kidney.read(
        "MATCH (g:GuidelineVersion {uid: 'kidney|1.2026'})-[:CONTAINS]->(n:Node) "
        "RETURN count(n) AS contained, sum(CASE WHEN n:Decision THEN 1 ELSE 0 END) AS decision, "
        "sum(CASE WHEN n:Action THEN 1 ELSE 0 END) AS action, "
        "sum(CASE WHEN n:Decision AND n:Action THEN 1 ELSE 0 END) AS both")[0]
    counts = source.counts()
    assert shape == {"contained": counts["nodes"], "decision": counts["decision"],
                     "action": counts["nodes"] - counts["decision"], "both": 0}
    options = sum(len(r["props"]["options"]) for r in source.node_rows({}))
    links = kidney.read("MATCH (:GuidelineVersion {uid: 'kidney|1.2026'})-[:CONTAINS]->(:Node)-[o:OFFERS]->() "
                        "RETURN count(o) AS c")
    assert links == [{"c": options}]


def test_rebuild_changes_nothing(kidney: Graph) -> None:
    before = Snapshot.from_graph(kidney, "kidney", "1.2026")
    reports = build(kidney, [input_from_source("kidney", "1.2026")])
    assert reports[0].skipped
    forced = build(kidney, [input_from_source("kidney", "1.2026")], force=True)
    assert not forced[0].skipped
    after = Snapshot.from_graph(kidney, "kidney", "1.2026")
    assert after.nodes == before.nodes and after.relations == before.relations
    revs = kidney.read("MATCH (n:Node {guideline: 'kidney'}) RETURN max(n.rev) AS r")
    assert revs[0]["r"] == 0


def test_bad_csv_writes_nothing(graph: Graph, tmp_path) -> None:
    _reset(graph, "badcsv")
    path = tmp_path / "bad.csv"
    path.write_text("head,head_constraints,tail,tail_constraints\na,ph=+,b,NULL\nc,age<abc,d,NULL\n")
    with pytest.raises(BuildError, match="line 3"):
        build(graph, [read_constrained_csv(path, "badcsv", "1")])
    assert graph.read("MATCH (n:Node {guideline: 'badcsv'}) RETURN count(n) AS c") == [{"c": 0}]


def test_curation_set_history_rollback(kidney: Graph) -> None:
    curator = Curator(kidney, "test-curator")
    node = curator.resolve("Renal mass in an adult", guideline="kidney", version="1.2026")
    change = curator.set(node.uid, ["age>=21"], "tighten for the test")
    assert curator.get(node.uid).constraints == ["age>=21"]
    assert kidney.read("MATCH (n:Node {uid: $u}) RETURN n.age_min AS a", {"u": node.uid}) == [{"a": 21.0}]
    history = curator.history(node.uid)
    assert [(h.op, h.who, h.before, h.after) for h in history] == [("set", "test-curator", ["age>=18"], ["age>=21"])]
    undo = curator.rollback(change.id)
    assert undo.rolls_back == change.id
    restored = curator.get(node.uid)
    assert restored.constraints == node.constraints and restored.rev == node.rev + 2
    assert kidney.read("MATCH (n:Node {uid: $u}) RETURN n.age_min AS a", {"u": node.uid}) == [{"a": 18.0}]
    with pytest.raises(StaleChangeError, match="roll back the later"):
        curator.rollback(change.id)


def test_remove_and_update(kidney: Graph) -> None:
    curator = Curator(kidney, "t")
    node = curator.resolve("Stage I–III, no distant metastases", guideline="kidney", version="1.2026")
    curator.remove(node.uid, ["metastasis"], "drop for test")
    assert not any(c.startswith("metastasis") for c in curator.get(node.uid).constraints)
    curator.update(node.uid, "stage in {I,II,III}", "stage in {I,II}", "regroup")
    assert "stage in {I,II}" in curator.get(node.uid).constraints
    with pytest.raises(CurationError, match="no constraint"):
        curator.update(node.uid, "stage=IV", "stage=III", "absent")


def test_stale_change_is_refused_and_nothing_is_lost(kidney: Graph) -> None:
    alice, bob = Curator(kidney, "alice"), Curator(kidney, "bob")
    node = alice.resolve("Renal mass in an adult", guideline="kidney", version="1.2026")
    bob.set(node.uid, ["age>=19"], "bob first", expected_rev=node.rev)
    with pytest.raises(StaleChangeError, match="revision"):
        alice.set(node.uid, ["age>=25"], "alice late", expected_rev=node.rev)
    assert alice.get(node.uid).constraints == ["age>=19"]
    assert [h.who for h in alice.history(node.uid)] == ["bob"]


@pytest.mark.parametrize(
    ("constraints", "error"),
    [(["colour=red"], ConstraintError), (["age<abc"], ConstraintError), (["ph=maybe"], ConstraintError),
     (["age>70", "age<20"], CurationError)],
)
def test_invalid_values_are_refused(kidney: Graph, constraints: list[str], error: type[Exception]) -> None:
    curator = Curator(kidney, "t")
    node = curator.resolve("Renal mass in an adult", guideline="kidney", version="1.2026")
    with pytest.raises(error):
        curator.set(node.uid, constraints, "bad value")
    assert curator.get(node.uid).rev == node.rev


def test_unknown_node(kidney: Graph) -> None:
    curator = Curator(kidney, "t")
    with pytest.raises(UnknownNodeError, match="no node with id"):
        curator.set("kidney|1.2026|doesnotexist", ["age<10"], "x")
    with pytest.raises(UnknownNodeError, match="no node's content"):
        curator.resolve("no such wording anywhere")


@pytest.mark.parametrize("guideline", ["ALL", "kidney", "bone"])
def test_applying_the_diff_to_v1_yields_exactly_v2(graph: Graph, guideline: str) -> None:
    _reset(graph, guideline)
    v1, v2 = input_from_source(guideline, "1.2026"), input_from_source(guideline, "2.2026")
    build(graph, [v1, v2])
    from_graphs = diff(Snapshot.from_graph(graph, guideline, "1.2026"), Snapshot.from_graph(graph, guideline, "2.2026"))
    from_sources = diff(Snapshot.from_input(v1), Snapshot.from_input(v2))
    assert from_graphs.ops == from_sources.ops and not from_graphs.structural
    assert not snapshots_equal(Snapshot.from_graph(graph, guideline, "1.2026"), Snapshot.from_input(v2))
    records = apply_revision(Curator(graph, "reviser"), from_graphs)
    assert len(records) == len({op.node for op in from_graphs.ops})
    assert snapshots_equal(Snapshot.from_graph(graph, guideline, "1.2026"), Snapshot.from_graph(graph, guideline,
                                                                                                  "2.2026"))
    assert graph.read("MATCH (g:GuidelineVersion {uid: $u}) RETURN g.current_revision AS r",
                      {"u": f"{guideline}|1.2026"}) == [{"r": "2.2026"}]


def test_revision_with_a_stale_node_applies_nothing(graph: Graph) -> None:
    _reset(graph, "ALL")
    v1, v2 = input_from_source("ALL", "1.2026"), input_from_source("ALL", "2.2026")
    build(graph, [v1])
    revision = diff(Snapshot.from_input(v1), Snapshot.from_input(v2))
    curator = Curator(graph, "t")
    from dkg.graph.revision import plan

    planned = plan(curator, revision, "r")
    # Somebody changes the last node after the plan was made: the whole batch must be refused.
    curator.set(planned[-1].uid, ["age<99"], "concurrent edit")
    before = Snapshot.from_graph(graph, "ALL", "1.2026")
    with pytest.raises(StaleChangeError):
        curator.apply(planned)
    assert Snapshot.from_graph(graph, "ALL", "1.2026").nodes == before.nodes


@pytest.mark.parametrize("path", ["set", "plan_and_apply"])
def test_parallel_changes_on_one_revision_commit_exactly_once(kidney: Graph, path: str) -> None:
    """Ten curators change one node at once, all based on the same revision: the revision check is a
    compare-and-set, so one change commits and the nine others are refused, with one audit record."""
    node = Curator(kidney, "reader").resolve("Renal mass in an adult", guideline="kidney", version="1.2026")
    workers = 10
    barrier = threading.Barrier(workers)

    def change(i: int) -> str:
        curator = Curator(kidney, f"curator-{i}")
        barrier.wait()
        try:
            if path == "set":
                curator.set(node.uid, [f"age>={20 + i}"], f"parallel {i}", expected_rev=node.rev)
            else:
                planned = curator.plan_replace(node.uid, [f"age>={20 + i}"], f"parallel {i}", expected_rev=node.rev)
                curator.apply([planned])
        except StaleChangeError:
            return "conflict"
        return "ok"

    with ThreadPoolExecutor(workers) as pool:
        outcomes = list(pool.map(change, range(workers)))
    assert sorted(outcomes) == ["conflict"] * (workers - 1) + ["ok"]
    after = Curator(kidney, "reader").get(node.uid)
    history = Curator(kidney, "reader").history(node.uid)
    assert after.rev == node.rev + 1
    assert [(h.rev_before, h.rev_after) for h in history] == [(node.rev, node.rev + 1)]
    assert after.constraints == history[0].after


def test_change_records_carry_their_time(kidney: Graph) -> None:
    curator = Curator(kidney, "t")
    node = curator.resolve("Renal mass in an adult", guideline="kidney", version="1.2026")
    record = curator.set(node.uid, ["age>=21"], "timed")
    at = datetime.fromisoformat(record.at)
    assert at.tzinfo is not None and at.utcoffset() == timedelta(0)
    assert abs(datetime.now(UTC) - at) < timedelta(minutes=5)
    assert curator.history(node.uid)[0].at == record.at
    undo = curator.rollback(record.id)
    assert datetime.fromisoformat(undo.at) >= at


def test_rolling_back_an_unknown_change_is_not_found(kidney: Graph) -> None:
    with pytest.raises(UnknownChangeError, match="no change with id 'no-such-change'"):
        Curator(kidney, "t").rollback("no-such-change")


@pytest.mark.parametrize("path", ["set", "replace"])
def test_a_change_that_changes_nothing_writes_nothing(kidney: Graph, path: str) -> None:
    curator = Curator(kidney, "t")
    node = curator.resolve("Renal mass in an adult", guideline="kidney", version="1.2026")
    assert node.constraints == ["age>=18"]
    if path == "set":
        record = curator.set(node.uid, ["age>=18"], "same again", expected_rev=node.rev)
    else:
        record = curator.apply([curator.plan_replace(node.uid, ["age>=18"], "same again", expected_rev=node.rev)])[0]
    assert (record.op, record.id, record.rev_before, record.rev_after) == (UNCHANGED, "", node.rev, node.rev)
    assert record.at
    assert curator.get(node.uid).rev == node.rev and curator.history(node.uid) == []
    curator.set(node.uid, ["age>=30"], "a real change")
    with pytest.raises(StaleChangeError):
        curator.set(node.uid, ["age>=30"], "stale no-op", expected_rev=node.rev)


@pytest.mark.parametrize("constraints", [["age>70", "age>=80"], ["age<20", "age<=10"], ["age in [15,39]", "age>20"],
                                         ["age=40", "age<50"]])
def test_two_bounds_on_one_side_are_refused(kidney: Graph, constraints: list[str]) -> None:
    curator = Curator(kidney, "t")
    node = curator.resolve("Renal mass in an adult", guideline="kidney", version="1.2026")
    with pytest.raises(CurationError, match="two (lower|upper) bounds on age"):
        curator.set(node.uid, constraints, "two bounds")
    assert curator.get(node.uid).rev == node.rev


def test_update_that_would_leave_two_lower_bounds_is_refused(kidney: Graph) -> None:
    curator = Curator(kidney, "t")
    node = curator.resolve("Renal mass in an adult", guideline="kidney", version="1.2026")
    curator.set(node.uid, ["age>=18", "age<65"], "add an upper bound")
    with pytest.raises(CurationError, match="two lower bounds on age: age>=18 and age>70"):
        curator.update(node.uid, "age<65", "age>70", "mistake")


API_PORT = int(os.environ.get("DKG_TEST_CURATION_API_PORT", "8741"))


@pytest.fixture()
def curation_api(kidney: Graph, tmp_path: Path) -> Iterator[httpx.Client]:
    """A real `dkg serve` process on the session's Neo4j (no question-answering model needed here)."""
    env = {"DKG_HOME": str(kidney.settings.home), "DKG_NEO4J_BOLT_PORT": str(kidney.settings.neo4j_bolt_port),
           "DKG_RETRIEVAL_MODEL": os.environ.get("DKG_RETRIEVAL_MODEL", "lsa"), "DKG_API_LOAD_QA_MODEL": "false",
           "DKG_API_CURATOR_TOKENS": f"tester:{CURATOR_TOKEN}", "DKG_API_QRELS_DIR": str(tmp_path)}
    with serve_process(API_PORT, env, log_path=tmp_path / "server.log") as srv, httpx.Client(
            base_url=srv.base, timeout=60.0, headers={"Authorization": f"Bearer {CURATOR_TOKEN}"}) as client:
        yield client


def test_parallel_http_changes_on_one_revision(kidney: Graph, curation_api: httpx.Client) -> None:
    node = Curator(kidney, "reader").resolve("Renal mass in an adult", guideline="kidney", version="1.2026")
    path = f"/api/nodes/{quote(node.uid, safe='')}/constraints/set"
    workers = 10
    barrier = threading.Barrier(workers)

    def post(i: int) -> int:
        barrier.wait()
        body = {"constraints": [f"age>={20 + i}"], "reason": f"parallel {i}", "expected_rev": node.rev}
        return curation_api.post(path, json=body).status_code

    with ThreadPoolExecutor(workers) as pool:
        statuses = list(pool.map(post, range(workers)))
    assert sorted(statuses) == [200] + [409] * (workers - 1)
    history = Curator(kidney, "reader").history(node.uid)
    assert [(h.rev_before, h.rev_after) for h in history] == [(node.rev, node.rev + 1)]
    assert Curator(kidney, "reader").get(node.uid).rev == node.rev + 1


def test_http_curation_details(kidney: Graph, curation_api: httpx.Client) -> None:
    missing = curation_api.post("/api/changes/no-such-change/rollback", json={"reason": "x"})
    assert missing.status_code == 404 and "no change with id" in missing.json()["error"]["message"]
    node = Curator(kidney, "reader").resolve("Renal mass in an adult", guideline="kidney", version="1.2026")
    path = f"/api/nodes/{quote(node.uid, safe='')}/constraints/set"
    same = curation_api.post(path, json={"constraints": ["age>=18"], "reason": "same", "expected_rev": node.rev})
    assert same.status_code == 200 and same.json()["op"] == UNCHANGED and same.json()["rev_after"] == node.rev
    changed = curation_api.post(path, json={"constraints": ["age>=21"], "reason": "real", "expected_rev": node.rev})
    assert changed.status_code == 200 and datetime.fromisoformat(changed.json()["at"]).utcoffset() == timedelta(0)
    two = curation_api.post(path, json={"constraints": ["age>70", "age>=80"], "reason": "two",
                                        "expected_rev": node.rev + 1})
    assert two.status_code == 422 and "two lower bounds on age" in two.json()["error"]["message"]
    for bad in ("age>=nan", "age<inf", "age>=1_0"):
        r = curation_api.post(path, json={"constraints": [bad], "reason": "bad", "expected_rev": node.rev + 1})
        assert r.status_code == 422 and "is not a number" in r.json()["error"]["message"], r.text
    put = curation_api.put(path.removesuffix("/set"), content=b'{"typed": {"age": {"minimum": NaN}}, "reason": "nan",'
                           b' "expected_rev": %d}' % (node.rev + 1), headers={"Content-Type": "application/json"})
    assert put.status_code == 422, put.text
    assert Curator(kidney, "reader").get(node.uid).rev == node.rev + 1
