"""Edges scored between boxes matched by position (dkg.parsing.evaluate.box_edge_prf)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.errors import ParseError
from dkg.parsing.evaluate import box_edge_prf, match_boxes, pooled_box_prf, prf, read_gold_boxes
from dkg.parsing.geometry import BBox

# two questions of the same text, each with its own YES arrow to its own "CPR 2 min" box
GOLD_BOXES = {"R1": BBox(0, 0, 50, 20), "C1": BBox(0, 40, 50, 60), "R2": BBox(100, 0, 150, 20),
              "C2": BBox(100, 40, 150, 60)}
GOLD = [{"head": "Rhythm shockable?", "tail": "CPR 2 min", "label": "YES", "head_box_id": "R1", "tail_box_id": "C1"},
        {"head": "Rhythm shockable?", "tail": "CPR 2 min", "label": "YES", "head_box_id": "R2", "tail_box_id": "C2"}]
FOUND = {"p1-b1": BBox(1, 1, 50, 21), "p1-b2": BBox(0, 41, 49, 60), "p1-b3": BBox(100, 0, 151, 20),
         "p1-b4": BBox(100, 40, 150, 61)}


def test_boxes_of_one_text_are_told_apart() -> None:
    found_once = [{"head": "Rhythm shockable?", "tail": "CPR 2 min", "label": "YES", "head_box_id": "p1-b1",
                   "tail_box_id": "p1-b2"}]
    assert prf(found_once, GOLD)["recall"] == 1.0  # by text, one edge stands for its twin
    scores = box_edge_prf(found_once, FOUND, GOLD, GOLD_BOXES)
    assert (scores["precision"], scores["recall"]) == (1.0, 0.5)


def test_an_edge_to_the_wrong_twin_is_wrong() -> None:
    crossed = [{"head": "Rhythm shockable?", "tail": "CPR 2 min", "label": "YES", "head_box_id": "p1-b1",
                "tail_box_id": "p1-b4"}]
    scores = box_edge_prf(crossed, FOUND, GOLD, GOLD_BOXES)
    assert scores["matched"] == 0.0 and scores["f1"] == 0.0


def test_labels_are_counted_on_matched_edges_only() -> None:
    pred = [{"head_box_id": "p1-b1", "tail_box_id": "p1-b2", "label": "NO"},
            {"head_box_id": "p1-b3", "tail_box_id": "p1-b4", "label": "yes"}]
    scores = box_edge_prf(pred, FOUND, GOLD, GOLD_BOXES)
    assert (scores["matched"], scores["labelled"], scores["label_accuracy"]) == (2.0, 1.0, 0.5)


def test_a_box_merging_two_gold_boxes_stands_for_one() -> None:
    merged = {"p1-b1": BBox(0, 0, 50, 60), "p1-b3": BBox(100, 0, 150, 20)}
    match = match_boxes(GOLD_BOXES, merged)
    assert list(match.values()).count("p1-b1") == 1
    assert match["R2"] == "p1-b3"


def test_boxes_overlapping_too_little_do_not_match() -> None:
    assert match_boxes({"a": BBox(0, 0, 10, 10)}, {"b": BBox(8, 0, 18, 10)}) == {}


def test_self_loops_are_not_edges_and_pooling_sums_pages() -> None:
    pred = [{"head_box_id": "p1-b1", "tail_box_id": "p1-b1", "label": ""}]
    page = box_edge_prf(pred, FOUND, GOLD, GOLD_BOXES)
    assert page["pred"] == 0.0
    pooled = pooled_box_prf([page, box_edge_prf([], {}, [], {})])
    assert (pooled["gold"], pooled["recall"], pooled["precision"]) == (2.0, 0.0, 0.0)


def test_gold_box_file_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="does not exist"):
        read_gold_boxes(tmp_path / "none.csv")
    bad = tmp_path / "p-nodes.csv"
    bad.write_text("id,x0,top\na,1,2\n", encoding="utf-8")
    with pytest.raises(ParseError, match="bottom, x1"):
        read_gold_boxes(bad)
    good = tmp_path / "q-nodes.csv"
    good.write_text("id,x0,top,x1,bottom,text\na,1,2,3,4,A\n", encoding="utf-8")
    assert read_gold_boxes(good) == {"a": BBox(1.0, 2.0, 3.0, 4.0)}
