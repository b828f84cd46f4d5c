"""Arrows closing a loop are marked so the QA walks stay acyclic (dkg/graph/loops.py, cypher/qa.cypher)."""

from pathlib import Path

import networkx as nx

from dkg.graph.build_input import read_constrained_csv
from dkg.graph.loops import loop_arrows

HEADER = "head,head_constraints,tail,tail_constraints\n"


def test_acyclic_flowchart_has_no_loop_arrows() -> None:
    assert loop_arrows(["a", "b", "c"], [("a", "b"), ("a", "c"), ("b", "c")]) == frozenset()


def test_the_arrow_back_to_an_earlier_box_is_the_loop() -> None:
    arrows = [("start", "check"), ("check", "cpr"), ("cpr", "check"), ("check", "stop")]
    assert loop_arrows(["start", "check", "cpr", "stop"], arrows) == {("cpr", "check")}


def test_an_arrow_back_to_the_root_keeps_the_root() -> None:
    # the root keeps no other parent: the search starts there, so the arrow into it is the loop
    assert loop_arrows(["root", "a", "b"], [("root", "a"), ("a", "b"), ("b", "root")]) == {("b", "root")}


def test_every_box_a_root_reaches_stays_reachable() -> None:
    # two roots entering one cycle from either side: only one arrow of the cycle goes
    nodes = ["r1", "r2", "a", "b", "c", "d"]
    arrows = [("r1", "a"), ("r2", "b"), ("a", "b"), ("b", "a"), ("b", "c"), ("c", "d"), ("d", "b")]
    loops = loop_arrows(nodes, arrows)
    kept = nx.DiGraph([e for e in arrows if e not in loops])
    assert nx.is_directed_acyclic_graph(kept)
    reached = set().union(*(nx.descendants(kept, r) | {r} for r in ("r1", "r2")))
    assert reached == set(nodes)
    assert len(loops) == 2


def test_a_cycle_no_root_reaches_loses_one_arrow() -> None:
    assert len(loop_arrows(["x", "y", "z"], [("x", "y"), ("y", "z"), ("z", "x")])) == 1


def _build(tmp_path: Path, body: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "edges.csv"
    path.write_text(HEADER + body, encoding="utf-8")
    return read_constrained_csv(path, "T", "1")


def test_builder_marks_only_the_loop_arrow(tmp_path: Path) -> None:
    build = _build(tmp_path, "Start,NULL,Rhythm check,NULL\nRhythm check,NULL,CPR 2 min,NULL\n"
                             "CPR 2 min,NULL,Rhythm check,NULL\nRhythm check,NULL,Post-arrest care,NULL\n")
    text = {key: node.content for key, node in build.nodes.items()}
    marked = {(text[r["head"].split("|")[-1]], text[r["tail"].split("|")[-1]]): r["props"]["closes_loop"]
              for r in build.relation_rows({})}
    assert [k for k, v in marked.items() if v] == [("CPR 2 min", "Rhythm check")]
    assert sum(v is None for v in marked.values()) == 3  # unset (not False) on the others: the walks test IS NULL


def test_a_loop_changes_the_source_hash_only_when_there_is_one(tmp_path: Path) -> None:
    straight = _build(tmp_path, "A,NULL,B,NULL\nB,NULL,C,NULL\n")
    looped = _build(tmp_path, "A,NULL,B,NULL\nB,NULL,C,NULL\nC,NULL,B,NULL\n")
    assert straight.loop_arrows() == frozenset()
    assert looped.loop_arrows() != frozenset()
    assert straight.source_sha() != looped.source_sha()
