"""Layouts real flowcharts use (issue #16), each on a small born-digital PDF written by the test with reportlab
and read back through pdfplumber by the vector route: the whole digital path, not hand-made primitives."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dkg.parsing import parse_pdf
from dkg.parsing.digital import _arrow_in_one_path
from dkg.parsing.geometry import BBox
from dkg.parsing.models import ParsedPage
from tests.unit.reportlab_sheet import Sheet


def _parse(tmp_path: Path, draw: Callable[[Sheet], None]) -> ParsedPage:
    path = tmp_path / "layout.pdf"
    sheet = Sheet(path)
    sheet.text(72, 30, "A flowchart drawn by another publisher")
    draw(sheet)
    sheet.save()
    return parse_pdf(path, ocr="never").pages[0]


def _pairs(page: ParsedPage) -> set[tuple[str, str]]:
    return {(e.head, e.tail) for e in page.edges}


@pytest.fixture
def parse(tmp_path: Path) -> Iterator[Callable[[Callable[[Sheet], None]], ParsedPage]]:
    yield lambda draw: _parse(tmp_path, draw)


def test_nested_boxes_with_a_bulleted_three_column_fan_out(parse: Callable[..., ParsedPage]) -> None:
    # a header box; a bar fans out into three column boxes of bullets, all drawn inside one shaded frame
    def draw(s: Sheet) -> None:
        s.box(40, 80, 530, 260, fill=(0.93, 0.93, 0.98))
        s.box(200, 95, 210, 30, "Initial steps", fill=(1, 1, 1))
        s.line((305, 125), (305, 145))
        s.line((120, 145), (490, 145))
        for x, title in ((50, "Investigate"), (215, "Inform"), (380, "Request")):
            s.arrow_down(x + 70, 145, 170)
            s.box(x, 170, 160, 150, title, "\u2022 first point", "\u2022 second point", "\u2022 third point",
                  fill=(1, 1, 1))

    page = parse(draw)
    heads = {"Initial steps"}
    tails = {"Investigate \u2022 first point \u2022 second point \u2022 third point",
             "Inform \u2022 first point \u2022 second point \u2022 third point",
             "Request \u2022 first point \u2022 second point \u2022 third point"}
    assert _pairs(page) == {(h, t) for h in heads for t in tails}
    assert all("Investigate" not in b.text or "Inform" not in b.text for b in page.boxes)  # the frame is no box


def test_full_width_shaded_bands_joined_by_block_arrows(parse: Callable[..., ParsedPage]) -> None:
    def draw(s: Sheet) -> None:
        for top, words in ((80, "Prepare the team"), (160, "Recognise the event"), (240, "Respond")):
            s.box(40, top, 530, 40, words, fill=(0.85, 0.9, 1.0), stroke=False)
        for top in (120, 200):  # a block arrow (7 vertices) from the bottom of one band into the next
            s.polygon((295, top + 4), (315, top + 4), (315, top + 22), (325, top + 22), (305, top + 38),
                      (285, top + 22), (295, top + 22), fill=(0.3, 0.4, 0.7))

    page = parse(draw)
    assert _pairs(page) == {("Prepare the team", "Recognise the event"), ("Recognise the event", "Respond")}
    assert {c.direction for c in page.connectors} == {"block arrow"}


def test_stacked_boxes_touching_edge_to_edge_follow_in_reading_order(parse: Callable[..., ParsedPage]) -> None:
    def draw(s: Sheet) -> None:
        s.box(200, 80, 200, 30, "Check rhythm")
        s.arrow_down(300, 110, 140)
        s.box(200, 140, 200, 30, "CPR 2 min", "then")
        s.box(200, 170, 200, 30, "IV / IO access", "then")  # touching the box above, no connector
        s.box(200, 200, 200, 30, "Epinephrine", "every 3-5 min")

    page = parse(draw)
    assert _pairs(page) == {("Check rhythm", "CPR 2 min then"), ("CPR 2 min then", "IV / IO access then"),
                            ("IV / IO access then", "Epinephrine every 3-5 min")}
    assert any(c.direction == "reading order (stacked boxes, no connector)" for c in page.connectors)


def test_arrows_without_heads_run_in_reading_order_and_say_so(parse: Callable[..., ParsedPage]) -> None:
    def draw(s: Sheet) -> None:
        s.box(200, 80, 200, 30, "Assess patient")
        s.line((300, 110), (300, 150))
        s.box(200, 150, 200, 30, "Treat cause")
        s.line((400, 165), (450, 165))
        s.box(450, 150, 120, 30, "Reassess")

    page = parse(draw)
    assert _pairs(page) == {("Assess patient", "Treat cause"), ("Treat cause", "Reassess")}
    assert {c.direction for c in page.connectors} == {"reading order (no arrowhead)"}
    assert any("has no arrowhead" in issue.message for issue in page.issues)


def test_text_outside_any_box_labels_the_connector_it_stands_by(parse: Callable[..., ParsedPage]) -> None:
    def draw(s: Sheet) -> None:
        s.box(200, 80, 200, 30, "Give fluids")
        s.arrow_down(300, 110, 170)
        s.text(306, 132, "If no response in 10 min", size=8)
        s.box(200, 170, 200, 30, "Start vasopressor")

    page = parse(draw)
    [edge] = page.edges
    assert (edge.head, edge.tail, edge.label) == ("Give fluids", "Start vasopressor", "If no response in 10 min")


def _upward(draw_head: Callable[[Sheet], None]) -> Callable[[Sheet], None]:
    """Two steps, the arrow between them pointing up the page (against reading order), its head drawn by
    ``draw_head`` with its tip at (300, 110)."""

    def draw(s: Sheet) -> None:
        s.box(200, 80, 200, 30, "Upper step")
        s.box(200, 170, 200, 30, "Lower step")
        draw_head(s)

    return draw


def test_open_arrowhead_of_two_strokes_gives_the_direction(parse: Callable[..., ParsedPage]) -> None:
    def head(s: Sheet) -> None:
        s.line((300, 170), (300, 110))
        s.line((294, 119), (300, 110), (306, 119))  # a V, not a filled triangle

    page = parse(_upward(head))
    assert _pairs(page) == {("Lower step", "Upper step")}
    assert [c.direction for c in page.connectors] == ["arrowhead"]


def test_arrowhead_drawn_in_outline_only_is_an_arrowhead(parse: Callable[..., ParsedPage]) -> None:
    def head(s: Sheet) -> None:
        s.line((300, 170), (300, 118))
        path = s.c.beginPath()
        path.moveTo(295, s.height - 118)
        path.lineTo(305, s.height - 118)
        path.lineTo(300, s.height - 110)
        path.close()
        s.c.drawPath(path, stroke=1, fill=0)

    assert _pairs(parse(_upward(head))) == {("Lower step", "Upper step")}


def test_line_and_head_filled_as_one_path_is_an_arrow(parse: Callable[..., ParsedPage]) -> None:
    def head(s: Sheet) -> None:
        path = s.c.beginPath()
        for n, (x, y) in enumerate(((300, 170), (300, 118), (295, 118), (300, 110), (305, 118), (300, 118))):
            (path.moveTo if n == 0 else path.lineTo)(x, s.height - y)
        s.c.drawPath(path, stroke=1, fill=1)

    assert _pairs(parse(_upward(head))) == {("Lower step", "Upper step")}


def test_a_filled_star_pictogram_is_no_arrow_in_one_path() -> None:
    # a flat star (smog-48's "Shock" pictogram) is long, thin and encloses little of its box, like a line and
    # its head drawn as one path; its vertices stand all round, not on one line
    star = [(94.1, 331.3), (99.6, 331.3), (106.0, 328.5), (103.0, 331.3), (108.5, 331.3), (101.1, 333.0),
            (98.0, 335.7), (96.5, 334.0), (89.1, 335.7), (95.6, 333.0), (94.1, 331.3)]
    assert _arrow_in_one_path(star, BBox.around(star)) is None
    arrow = [(300, 170), (300, 118), (295, 118), (300, 110), (305, 118), (300, 118)]
    assert _arrow_in_one_path(arrow, BBox.around(arrow)) == (((300, 170), (300, 118)), ((300, 110), (295, 118),
                                                                                        (305, 118)))


def _four_lines(s: Sheet, x: float, top: float, w: float, h: float) -> None:
    s.line((x, top), (x + w, top))
    s.line((x + w, top), (x + w, top + h))
    s.line((x + w, top + h), (x, top + h))
    s.line((x, top + h), (x, top))


def test_box_drawn_as_four_separate_lines_is_a_box(parse: Callable[..., ParsedPage]) -> None:
    def draw(s: Sheet) -> None:
        _four_lines(s, 200, 80, 200, 30)
        s.text(210, 88, "Drawn with lines")
        s.arrow_down(300, 110, 150)
        _four_lines(s, 200, 150, 200, 30)
        s.text(210, 158, "Also lines")

    assert _pairs(parse(draw)) == {("Drawn with lines", "Also lines")}


def test_table_rules_running_past_the_cells_give_no_boxes() -> None:
    from dkg.parsing.digital import _line_boxes
    from dkg.parsing.models import Segment

    rules = [Segment((100, y), (400, y)) for y in (100, 130, 160)] + [Segment((x, 100), (x, 160))
                                                                       for x in (100, 250, 400)]
    kept, boxes = _line_boxes(rules)
    assert boxes == [] and kept == rules


def test_boxes_of_one_text_keep_each_their_own_arrows(parse: Callable[..., ParsedPage]) -> None:
    """Two columns that ask the same question and give the same step (smog-48: three "Rhythm Shockable?" boxes,
    five "CPR 2 min"): each box is its own step, so each arrow is its own edge, told apart by box id."""

    def draw(s: Sheet) -> None:
        for x in (100, 350):
            s.box(x, 80, 150, 30, "Rhythm shockable?")
            s.arrow_down(x + 75, 110, 160)
            s.box(x, 160, 150, 30, "CPR 2 min")

    page = parse(draw)
    edges = [(e.head, e.tail, e.head_box_id, e.tail_box_id) for e in page.edges]
    assert [e[:2] for e in edges] == [("Rhythm shockable?", "CPR 2 min")] * 2
    assert len({e[2] for e in edges}) == 2 and len({e[3] for e in edges}) == 2
