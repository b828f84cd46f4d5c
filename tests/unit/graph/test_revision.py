"""Revision diff on the shipped guideline sources (pure: no Neo4j)."""

import pytest

from dkg.corpus.model import load_guideline
from dkg.graph.build_input import BuildInput
from dkg.graph.revision import Revision, Snapshot, diff
from dkg.graph.sources import input_from_guideline, input_from_source, source_path
from dkg.types import Constraint


@pytest.mark.parametrize("guideline", ["ALL", "kidney", "bone"])
def test_v2_differs_from_v1_only_in_constraints(guideline: str) -> None:
    v1, v2 = input_from_source(guideline, "1.2026"), input_from_source(guideline, "2.2026")
    revision = diff(Snapshot.from_input(v1), Snapshot.from_input(v2))
    assert revision.structural == []
    changed_nodes = {op.node for op in revision.ops}
    assert 10 <= len(changed_nodes) <= 20
    assert all(op.op in ("set", "remove", "set_content") for op in revision.ops)


def test_diff_of_identical_versions_is_empty() -> None:
    v1 = input_from_source("ALL", "1.2026")
    revision = diff(Snapshot.from_input(v1), Snapshot.from_input(v1))
    assert revision.ops == [] and revision.structural == []


def test_structural_changes_are_flagged_not_hidden() -> None:
    v1 = input_from_source("kidney", "1.2026")
    v2 = input_from_guideline(load_guideline(source_path("kidney", "1.2026")))
    extra = v2.add_node("A brand-new step", [], "test")
    first = next(iter(v2.nodes))
    v2.add_edge(first, extra)
    revision = diff(Snapshot.from_input(v1), Snapshot.from_input(v2))
    assert any("box added" in s and "brand-new" in s for s in revision.structural)
    assert revision.ops == []


def test_revision_json_round_trip() -> None:
    v1, v2 = input_from_source("ALL", "1.2026"), input_from_source("ALL", "2.2026")
    revision = diff(Snapshot.from_input(v1), Snapshot.from_input(v2))
    again = Revision.from_json(revision.to_json())
    assert again.ops == revision.ops and again.new_version == "2.2026"


def test_reworded_decision_is_aligned_by_position() -> None:
    old = BuildInput("T", "1")
    root = old.add_node("Root", [], "t")
    a = old.add_node("Age < 65 years", [Constraint.parse("age<65")], "t")
    b = old.add_node("Age 65 or older", [Constraint.parse("age>=65")], "t")
    ta, tb = old.add_node("Treatment A", [], "t"), old.add_node("Treatment B", [], "t")
    for h, t in ((root, a), (root, b), (a, ta), (b, tb)):
        old.add_edge(h, t)
    new = BuildInput("T", "2")
    root2 = new.add_node("Root", [], "t")
    a2 = new.add_node("Age < 70 years", [Constraint.parse("age<70")], "t")
    b2 = new.add_node("Age 70 or older", [Constraint.parse("age>=70")], "t")
    ta2, tb2 = new.add_node("Treatment A", [], "t"), new.add_node("Treatment B", [], "t")
    for h, t in ((root2, a2), (root2, b2), (a2, ta2), (b2, tb2)):
        new.add_edge(h, t)
    revision = diff(Snapshot.from_input(old), Snapshot.from_input(new))
    assert revision.structural == []
    assert sorted((o.op, o.value) for o in revision.ops if o.op != "set_content") == [
        ("remove", "age<65"), ("remove", "age>=65"), ("set", "age<70"), ("set", "age>=70")]
