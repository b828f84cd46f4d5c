"""The LOAD CSV route builds exactly the graph the default UNWIND route builds, on the real Neo4j."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from dkg.config import Settings, load_settings
from dkg.errors import BuildError
from dkg.graph.build_input import BuildInput, read_constrained_csv
from dkg.graph.builder import build
from dkg.graph.db import Graph
from dkg.graph.load_csv import build_via_load_csv, import_dir
from dkg.graph.revision import Snapshot
from dkg.graph.sources import input_from_source
from dkg.types import format_constraints

pytestmark = pytest.mark.neo4j


def _write_constrained_csv(source: BuildInput, path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["head", "head_constraints", "tail", "tail_constraints", "label", "label_constraints"])
        for edge in source.edges.values():
            head, tail = source.nodes[edge.head], source.nodes[edge.tail]
            writer.writerow([head.content, format_constraints(head.constraints),
                             tail.content, format_constraints(tail.constraints),
                             edge.label, format_constraints(list(edge.constraints))])
    return path


def _drop(graph: Graph, guideline: str) -> None:
    graph.write("MATCH (g:GuidelineVersion {guideline: $g}) OPTIONAL MATCH (g)-[:CONTAINS]->(n) DETACH DELETE n, g",
                {"g": guideline})


def _shape(graph: Graph, gv: str) -> tuple[int, int, int]:
    row = graph.read("MATCH (:GuidelineVersion {uid: $gv})-[:CONTAINS]->(n:Node) OPTIONAL MATCH (n)-[o:OFFERS]->() "
                     "RETURN count(DISTINCT n) AS n, sum(CASE WHEN n:Decision THEN 1 ELSE 0 END) AS d, "
                     "count(o) AS o", {"gv": gv})[0]
    return row["n"], row["d"], row["o"]


def test_load_csv_route_equals_the_unwind_route(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    source = input_from_source("kidney", "1.2026")
    csv_path = _write_constrained_csv(source, tmp_path / "kidney.csv")
    via_csv = read_constrained_csv(csv_path, "kidneycsv", "1.2026")
    via_unwind = read_constrained_csv(csv_path, "kidneyunwind", "1.2026")
    _drop(graph, "kidneycsv")
    _drop(graph, "kidneyunwind")
    report = build_via_load_csv(graph, via_csv, neo4j_settings)
    build(graph, [via_unwind])
    assert not report.skipped and report.nodes == source.counts()["nodes"]
    loaded = Snapshot.from_graph(graph, "kidneycsv", "1.2026")
    expected = Snapshot.from_graph(graph, "kidneyunwind", "1.2026")
    assert loaded.nodes == expected.nodes and loaded.relations == expected.relations
    assert _shape(graph, "kidneycsv|1.2026") == _shape(graph, "kidneyunwind|1.2026")
    assert not list(import_dir(neo4j_settings).glob("*.csv"))  # the staged copy is removed
    assert build_via_load_csv(graph, via_csv, neo4j_settings).skipped  # unchanged input: nothing written


def test_load_csv_route_replaces_a_changed_version_whole(graph: Graph, neo4j_settings: Settings,
                                                         tmp_path: Path) -> None:
    source = input_from_source("kidney", "1.2026")
    csv_path = _write_constrained_csv(source, tmp_path / "kidney.csv")
    _drop(graph, "kidneyedit")
    build_via_load_csv(graph, read_constrained_csv(csv_path, "kidneyedit", "1.2026"), neo4j_settings)
    rows = list(csv.reader(csv_path.open(encoding="utf-8")))
    edited = tmp_path / "edited.csv"
    with edited.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows[:-5])  # five arrows fewer
    smaller = read_constrained_csv(edited, "kidneyedit", "1.2026")
    build_via_load_csv(graph, smaller, neo4j_settings)
    assert _shape(graph, "kidneyedit|1.2026")[0] == smaller.counts()["nodes"]
    arrows = graph.read("MATCH (:GuidelineVersion {uid: 'kidneyedit|1.2026'})-[:CONTAINS]->(:Node)-[r:NEXT_STEP]->() "
                        "RETURN count(r) AS c")
    assert arrows == [{"c": len(smaller.edges)}]


def test_load_csv_route_refuses_a_remote_server() -> None:
    remote = load_settings(neo4j_uri="bolt://db.example.org:7687")
    with pytest.raises(BuildError, match="needs the local Neo4j server"):
        import_dir(remote)
