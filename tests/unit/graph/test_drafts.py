"""Draft items from extracted edges, the build input of a reviewed draft, and draft isolation in cypher/."""

from __future__ import annotations

import copy
import re
import tempfile
from pathlib import Path

import pytest
import yaml

from dkg.constraints.io import ConstrainedEdge
from dkg.graph.db import CYPHER_DIR
from dkg.graph.drafts import ACCEPTED, REJECTED, DraftItem, OnboardingError, build_input_of, check_constraint
from dkg.graph.model import node_key
from dkg.graph.onboard import draft_items_of
from dkg.types import Constraint, HeadTailEdge
from dkg.vocabulary import GUIDELINE_FILE, GUIDELINES_ROOT, reload_vocabulary

DRAFT_LABELS = ("DraftVersion", "DraftItem", "ReviewAction")


def _row(head: str, tail: str, label: str = "", head_constraints: list[str] | None = None) -> ConstrainedEdge:
    return ConstrainedEdge(HeadTailEdge(head=head, tail=tail, label=label, page="1"),
                           [Constraint.parse(c) for c in head_constraints or []], [], None)


ROWS = [
    _row("Check glucose", "Blood Glucose <70?"),
    _row("Blood Glucose <70?", "Give dextrose", "YES"),
    _row("Blood Glucose <70?", "Rhythm shockable?", "NO"),
    _row("Rhythm shockable?", "Defibrillate", "Yes"),
    _row("Rhythm shockable?", "CPR 2 min", "No"),
    _row("Patient age >= 65 years", "SBP <100", head_constraints=["age>=65"]),
    _row("SBP <100", "Fluids"),
    _row("STABLE?", "Observe", "YES", head_constraints=["response=stable"]),
    _row("STABLE?", "Cardiovert", "NO", head_constraints=["response=stable"]),
    _row("Signs of Hemodynamic Compromise", "Pace", "YES"),
    _row("Signs of Hemodynamic Compromise", "Observe", "No"),
]


def _items_with_base_vocabulary(rows: list[ConstrainedEdge] = ROWS) -> list[DraftItem]:
    """``rows`` read with the base vocabulary only (a shipped onboarded guideline defines some of these keys):
    every condition key is a proposal."""
    with tempfile.TemporaryDirectory() as empty:
        reload_vocabulary(root=Path(empty))
        try:
            return draft_items_of(rows)
        finally:
            reload_vocabulary()


ITEMS = _items_with_base_vocabulary()


def test_items_of_a_question_flowchart() -> None:
    items = ITEMS
    nodes = {i.content: i for i in items if i.kind == "node"}
    edges = {(nodes_by_item(items)[i.head], nodes_by_item(items)[i.tail]): i for i in items if i.kind == "edge"}
    assert nodes["Blood Glucose <70?"].constraints == []  # a question box: its condition is on the branches
    assert edges[("Blood Glucose <70?", "Give dextrose")].constraints == ["blood_glucose<70"]
    assert edges[("Blood Glucose <70?", "Rhythm shockable?")].constraints == ["blood_glucose>=70"]
    assert edges[("Rhythm shockable?", "CPR 2 min")].constraints == ["rhythm_shockable=no"]
    assert nodes["SBP <100"].constraints == ["sbp<100"]  # no branches: the box keeps its condition
    assert nodes["Patient age >= 65 years"].constraints == ["age>=65"]  # extracted ones are kept
    # a YES/NO answer is about the question it leaves, not what the extractor read in the box
    assert nodes["STABLE?"].constraints == []
    assert edges[("STABLE?", "Cardiovert")].constraints == ["stable=no"]
    assert edges[("Signs of Hemodynamic Compromise", "Observe")].constraints == ["signs_of_hemodynamic_compromise=no"]
    assert sorted(i.content for i in items if i.kind == "key") == [
        "blood_glucose", "rhythm_shockable", "sbp", "signs_of_hemodynamic_compromise", "stable"]
    assert len({i.item for i in items}) == len(items)


def test_comparisons_answering_one_question_bound_its_subject() -> None:
    rows = [_row("QRS Width?", "Narrow QRS? <0.12 Second"), _row("QRS Width?", "Wide QRS? >0.12 Second"),
            _row("Narrow QRS? <0.12 Second", "Adenosine"), _row("Check SBP", "SBP <100"),
            _row("Check SBP", "Fluids"), _row("Heart rate?", "HR < 60/min", "YES")]
    items = _items_with_base_vocabulary(rows)
    nodes = {i.content: i for i in items if i.kind == "node"}
    assert nodes["Narrow QRS? <0.12 Second"].constraints == ["qrs_width<0.12"]
    assert nodes["Wide QRS? >0.12 Second"].constraints == ["qrs_width>0.12"]
    assert nodes["SBP <100"].constraints == ["sbp<100"]  # answers no question: keeps its own key
    keys = {i.content: yaml.safe_load(i.entry) for i in items if i.kind == "key"}
    assert "narrow_qrs" not in keys and "wide_qrs" not in keys
    assert keys["qrs_width"]["unit"] == "second" and keys["qrs_width"]["kind"] == "numeric"


def test_a_bare_comparison_answering_a_question_is_read_on_its_subject() -> None:
    rows = [_row("Age?", "<65 years"), _row("Age?", "≥ 65 years"), _row("<65 years", "Full dose"),
            _row("GCS?", "≤ 8"), _row("GCS?", "> 8"), _row("Start", "<2 hours")]
    items = _items_with_base_vocabulary(rows)
    nodes = {i.content: i for i in items if i.kind == "node"}
    assert nodes["<65 years"].constraints == ["age<65"] and nodes["≥ 65 years"].constraints == ["age>=65"]
    assert nodes["≤ 8"].constraints == ["gcs<=8"] and nodes["> 8"].constraints == ["gcs>8"]
    assert nodes["<2 hours"].constraints == []  # "Start" asks nothing: a bare comparison is left to the curator
    assert "gcs" in {i.content for i in items if i.kind == "key"}


def test_a_comparison_labelling_an_arrow_is_its_constraint() -> None:
    rows = [_row("Age?", "Full dose", "<65"), _row("Age?", "Half dose", "≥ 65"),
            _row("Check vitals", "Fluids", "SBP <90"), _row("Start", "Stop", "<2 hours"),
            _row("Check vitals", "Observe", "stable")]
    items = _items_with_base_vocabulary(rows)
    by_label = {i.content: i.constraints for i in items if i.kind == "edge"}
    assert by_label == {"<65": ["age<65"], "≥ 65": ["age>=65"], "SBP <90": ["sbp<90"], "<2 hours": [], "stable": []}


def nodes_by_item(items):  # type: ignore[no-untyped-def]
    return {i.item: i.content for i in items if i.kind == "node"}


@pytest.fixture
def with_keys(tmp_path: Path):  # type: ignore[no-untyped-def]
    """The shipped vocabularies plus a guideline file with the draft's keys."""
    for path in (p for p in GUIDELINES_ROOT.glob(f"*/{GUIDELINE_FILE}") if not (p.parent / "topic.yaml").is_file()):
        (tmp_path / path.parent.name).mkdir()
        (tmp_path / path.parent.name / GUIDELINE_FILE).write_text(path.read_text())
    (tmp_path / "g").mkdir()
    entries = {i.content: yaml.safe_load(i.entry) for i in ITEMS if i.kind == "key"}
    (tmp_path / "g" / GUIDELINE_FILE).write_text(yaml.safe_dump({"keys": entries}))
    reload_vocabulary(root=tmp_path)
    yield
    reload_vocabulary()


@pytest.mark.usefixtures("with_keys")
def test_build_input_leaves_out_rejected_items_and_the_constraints_of_rejected_keys() -> None:
    items = copy.deepcopy(ITEMS)
    for i in items:
        i.status = ACCEPTED
    key = next(i for i in items if i.content == "rhythm_shockable")
    key.status = REJECTED
    fluids = next(i for i in items if i.content == "Fluids")
    fluids.status = REJECTED
    build = build_input_of("g", "1.2026", "", items)
    assert {n.content for n in build.nodes.values()} == {i.content for i in items if i.kind == "node"} - {"Fluids"}
    constraints = sorted(str(c) for e in build.edges.values() for c in e.constraints)
    assert [c for c in constraints if not c.startswith(("stable", "signs"))] == ["blood_glucose<70",
                                                                                 "blood_glucose>=70"]
    assert len(build.edges) == len([i for i in items if i.kind == "edge"]) - 1


def test_boxes_of_one_text_stay_different_steps_when_published() -> None:
    """Two questions of one text, each with a YES arrow to its own "CPR 2 min": the published graph keeps four
    nodes, so the second question's arrows do not hang off the first (they did when a node was its text)."""
    items = [DraftItem("n1", "node", "Rhythm shockable?", page="5"), DraftItem("n2", "node", "CPR 2 min", page="5"),
             DraftItem("n3", "node", "Rhythm shockable?", page="5"), DraftItem("n4", "node", "CPR 2 min", page="5"),
             DraftItem("n5", "node", "Treat reversible causes", page="5"),
             DraftItem("e1", "edge", "YES", ["rhythm_shockable=yes"], head="n1", tail="n2"),
             DraftItem("e2", "edge", "", head="n2", tail="n3"),
             DraftItem("e3", "edge", "YES", ["rhythm_shockable=yes"], head="n3", tail="n4"),
             DraftItem("e4", "edge", "", head="n4", tail="n5")]
    for item in items:
        item.status = ACCEPTED
    build = build_input_of("g", "1.2026", "", items)
    assert len(build.nodes) == 5 and len(build.edges) == 4
    by_box = {box: node.key for node in build.nodes.values() for box in node.box_ids}
    assert by_box["n1"] != by_box["n3"] and by_box["n2"] != by_box["n4"]
    tails_of = {}
    for edge in build.edges.values():
        tails_of.setdefault(edge.head, []).append(edge.tail)
    assert tails_of[by_box["n4"]] == [by_box["n5"]] and by_box["n2"] not in tails_of.get(by_box["n2"], [])
    # a text that appears once keeps the key of its text, as every built guideline's nodes do
    single = next(node for node in build.nodes.values() if node.content == "Treat reversible causes")
    assert single.key == node_key("Treat reversible causes")


def test_one_text_on_two_pages_is_one_step() -> None:
    """A box continued on another page (a resolved link keeps the text of the box it points to) joins that page."""
    items = [DraftItem("n1", "node", "Assess airway", page="1"), DraftItem("n2", "node", "Post-arrest care", page="1"),
             DraftItem("n3", "node", "Post-arrest care", page="2"), DraftItem("n4", "node", "Cool to 36 C", page="2"),
             DraftItem("e1", "edge", "", head="n1", tail="n2"), DraftItem("e2", "edge", "", head="n3", tail="n4")]
    for item in items:
        item.status = ACCEPTED
    build = build_input_of("g", "1.2026", "", items)
    assert len(build.nodes) == 3
    care = node_key("Post-arrest care")
    assert {(e.head, e.tail) for e in build.edges.values()} == {(node_key("Assess airway"), care),
                                                               (care, node_key("Cool to 36 C"))}


def test_check_constraint() -> None:
    assert check_constraint("age >= 65", []) == "age>=65"
    assert check_constraint("blood_glucose < 70", ["blood_glucose"]) == "blood_glucose<70"
    with pytest.raises(OnboardingError, match=r"unknown key 'glucose'.*proposed in this draft \(blood_glucose\)"):
        check_constraint("glucose<70", ["blood_glucose"])
    with pytest.raises(OnboardingError, match="outside the allowed range"):
        check_constraint("age>500", [])
    with pytest.raises(OnboardingError, match="cannot read constraint"):
        check_constraint("glucose is low", [])


def test_only_the_onboarding_queries_name_draft_labels() -> None:
    for path in sorted(CYPHER_DIR.glob("*.cypher")):
        if path.name in ("onboard.cypher", "schema_onboard.cypher"):
            continue
        assert not any(label in path.read_text() for label in DRAFT_LABELS), path.name


def test_draft_nodes_share_no_property_name_with_published_nodes() -> None:
    text = (CYPHER_DIR / "onboard.cypher").read_text()
    published = r"(?:uid|guideline|version|content|constraints|title)"
    assert not re.search(rf"\((?:\w+)?:Draft\w+ \{{{published}:", text)
    assert not re.search(rf"\b[di]\.{published}\b", text)
