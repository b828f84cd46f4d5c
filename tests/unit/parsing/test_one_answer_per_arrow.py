"""Labels on connectors: an arrow answers its question one way (dkg.parsing.assemble._assign_labels)."""

from __future__ import annotations

from dkg.parsing.assemble import RawConnector, _assign_labels, branch_answer
from dkg.parsing.geometry import BBox
from dkg.parsing.models import Segment
from dkg.parsing.textlayout import Line, Piece, TextBlock


def _label(text: str, x0: float, top: float) -> TextBlock:
    bbox = BBox(x0, top, x0 + 8 * len(text), top + 10)
    return TextBlock([Line([Piece(text)], bbox, 10.0)])


def test_a_merging_arrow_keeps_the_answer_written_on_it_and_leaves_a_neighbours_yes() -> None:
    """smog-48: two questions' NO arrows merge into one line to ROSC?; the YES of the first question's other
    arrow (into CPR, straight down) stands a little closer to the merged line's start than to its own arrow."""
    merged = RawConnector(sources=[0, 1], targets=[2], kind="line",
                          segments=[Segment((100.0, 50.0), (140.0, 50.0)), Segment((140.0, 50.0), (140.0, 0.0)),
                                    Segment((140.0, 0.0), (200.0, 0.0))],
                          target_segments={2: {2}}, source_segments={0})
    down = RawConnector(sources=[0], targets=[3], kind="line", segments=[Segment((88.0, 60.0), (88.0, 120.0))],
                        target_segments={3: {0}}, source_segments={0})
    no = _label("NO", 110.0, 38.0)          # on the merged line
    yes = _label("YES", 96.0, 56.0)         # 6 pt under the merged line, 8 pt right of its own arrow
    left = _assign_labels([no, yes], [merged, down])
    assert left == []
    assert merged.labels[2] == [no]
    assert down.labels[3] == [yes]


def test_labels_that_agree_are_all_kept() -> None:
    line = RawConnector(sources=[0], targets=[1], kind="line", segments=[Segment((0.0, 0.0), (0.0, 100.0))],
                        target_segments={1: {0}}, source_segments={0})
    first, second = _label("NO", 4.0, 10.0), _label("No improvement", 4.0, 60.0)
    _assign_labels([first, second], [line])
    assert line.labels[1] == [first, second]


def test_branch_answers() -> None:
    assert [branch_answer(t) for t in ("YES", "y", "if no", "N", "OR", "else", "")] == \
        ["yes", "yes", "no", "no", None, None, None]
