"""Flowchart conventions of other publishers, on hand-made primitives (no PDF involved)."""

from __future__ import annotations

import pytest

from dkg.parsing.assemble import assemble, drop_shadows
from dkg.parsing.geometry import BBox
from dkg.parsing.models import PagePrimitives, Segment, Shape, Token
from dkg.parsing.settings import AssemblySettings


def rect(x0: float, top: float, x1: float, bottom: float, filled: bool = False) -> Shape:
    return Shape(((x0, top), (x1, top), (x1, bottom), (x0, bottom)), BBox(x0, top, x1, bottom), filled, True,
                 "rect")


def head_down(tip_x: float, tip_y: float) -> Shape:
    pts = ((tip_x - 3, tip_y - 7), (tip_x + 3, tip_y - 7), (tip_x, tip_y))
    return Shape(pts, BBox.around(pts), True, False, "polygon")


def head_up(tip_x: float, tip_y: float) -> Shape:
    pts = ((tip_x - 3, tip_y + 7), (tip_x + 3, tip_y + 7), (tip_x, tip_y))
    return Shape(pts, BBox.around(pts), True, False, "polygon")


def text(s: str, x: float, y: float, size: float = 10) -> list[Token]:
    return [Token(c, BBox(x + i * 5, y, x + i * 5 + 5, y + size), size) for i, c in enumerate(s)]


def page(**kw: object) -> PagePrimitives:
    prims = PagePrimitives(1, 600, 800, "digital")
    for key, value in kw.items():
        setattr(prims, key, value)
    return prims


def names(layout) -> dict[int, str]:  # type: ignore[no-untyped-def]
    return {i: "".join(t.text for t in sorted(b.tokens, key=lambda t: (t.bbox.top, t.bbox.x0)))
            for i, b in enumerate(layout.boxes)}


def edges(layout) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    n = names(layout)
    return {(n[s], n[t]) for c in layout.connectors for s in c.sources for t in c.targets}


def labels(layout) -> dict[str, str]:  # type: ignore[no-untyped-def]
    n = names(layout)
    return {n[t]: " ".join(b.lines[0].plain for b in blocks)
            for c in layout.connectors for t, blocks in c.labels.items()}


def test_branch_label_box_on_a_connector_is_the_edge_label_not_a_node() -> None:
    # Q ──[YES]──▶ A : the label box interrupts the line
    prims = page(shapes=[rect(100, 100, 160, 130), rect(190, 108, 215, 122), rect(260, 100, 320, 130)],
                 segments=[Segment((160, 115), (190, 115)), Segment((215, 115), (253, 115))],
                 arrowheads=[Shape(((253, 112), (253, 118), (260, 115)), BBox(253, 112, 260, 118), True, False)],
                 tokens=text("Q", 120, 110) + text("YES", 193, 110, 8) + text("A", 280, 110))
    layout = assemble(prims)
    assert edges(layout) == {("Q", "A")}
    assert labels(layout) == {"A": "YES"}
    assert [b.tokens[0].text for b in layout.label_boxes] == ["Y"]


def test_free_branch_text_breaking_a_line_joins_its_two_halves() -> None:
    # Q ──▶ NO ──┐ then down into A: the line is broken for the word
    prims = page(shapes=[rect(100, 100, 160, 130), rect(260, 200, 340, 230)],
                 segments=[Segment((160, 115), (193, 115)), Segment((218, 115), (300, 115)),
                           Segment((300, 115), (300, 193))],
                 arrowheads=[Shape(((193, 112), (193, 118), (199, 115)), BBox(193, 112, 199, 118), True, False),
                             head_down(300, 200)],
                 tokens=text("Q", 120, 110) + text("NO", 202, 110) + text("A", 290, 210))
    layout = assemble(prims)
    assert edges(layout) == {("Q", "A")}
    assert labels(layout) == {"A": "NO"}


def test_drop_shadow_is_not_a_second_box() -> None:
    shadow = rect(102, 102, 162, 132, filled=True)
    box = rect(100, 100, 160, 130)
    assert drop_shadows([shadow, box]) == [box]
    # two boxes side by side are not each other's shadow
    assert len(drop_shadows([rect(100, 100, 160, 130, True), rect(200, 100, 260, 130)])) == 2


def test_arrowhead_pointing_away_from_a_box_does_not_enter_it() -> None:
    # Q's stem carries a down-pointing head onto a bar that fans out to A and B
    prims = page(shapes=[rect(200, 100, 300, 140), rect(50, 200, 150, 240), rect(350, 200, 450, 240)],
                 segments=[Segment((250, 140), (250, 143)), Segment((100, 150), (400, 150)),
                           Segment((100, 150), (100, 193)), Segment((400, 150), (400, 193))],
                 arrowheads=[head_down(250, 150), head_down(100, 200), head_down(400, 200)],
                 tokens=text("Q", 240, 110) + text("A", 90, 210) + text("B", 390, 210))
    assert edges(assemble(prims)) == {("Q", "A"), ("Q", "B")}


def test_stacked_boxes_follow_in_reading_order_only_on_the_chart() -> None:
    prims = page(shapes=[rect(100, 100, 200, 130), rect(100, 160, 200, 190), rect(100, 193, 200, 230),
                         rect(400, 100, 500, 130), rect(400, 133, 500, 170)],
                 segments=[Segment((150, 130), (150, 153))], arrowheads=[head_down(150, 160)],
                 tokens=text("Q", 140, 110) + text("A", 140, 170) + text("B", 140, 205)
                 + text("S", 440, 110) + text("T", 440, 145))
    layout = assemble(prims)
    assert edges(layout) == {("Q", "A"), ("A", "B")}  # S above T: side boxes no connector reaches
    stacked = [c for c in layout.connectors if c.kind == "stacked"]
    assert len(stacked) == 1 and not stacked[0].directed


def test_headless_rule_along_box_tops_is_no_connector() -> None:
    prims = page(shapes=[rect(100, 100, 200, 160), rect(205, 100, 300, 160)],
                 segments=[Segment((90, 100), (202, 100)), Segment((203, 100), (310, 100))],
                 tokens=text("S", 140, 120) + text("T", 240, 120))
    assert edges(assemble(prims)) == set()


def test_one_line_bands_abutting_are_one_box_but_a_gap_makes_two() -> None:
    pieces = page(shapes=[rect(100, 100, 200, 112, True), rect(100, 112, 200, 124, True)],
                  tokens=text("AB", 110, 101) + text("CD", 110, 113))
    assert len(assemble(pieces).boxes) == 1
    two = page(shapes=[rect(100, 100, 200, 112, True), rect(100, 114, 200, 126, True)],
               tokens=text("AB", 110, 101) + text("CD", 110, 115))
    assert len(assemble(two).boxes) == 2


def test_settings_validate_themselves() -> None:
    with pytest.raises(ValueError, match="head_reach"):
        AssemblySettings(head_reach=-1)
    settings = AssemblySettings()
    assert settings.is_branch_label("If yes") and settings.is_branch_label("No improvement")
    assert not settings.is_branch_label("Observe and reassess in 5 minutes")
    assert not settings.is_branch_label("No 2")
    # a label reached no further than head_reach: with a tiny reach the arrow misses its box
    near = page(shapes=[rect(100, 100, 160, 130), rect(100, 200, 160, 230)],
                segments=[Segment((130, 130), (130, 185))], arrowheads=[head_down(130, 192)],
                tokens=text("Q", 120, 110) + text("A", 120, 210))
    assert edges(assemble(near)) == {("Q", "A")}
    assert edges(assemble(near, AssemblySettings(head_reach=2.0))) == set()


def test_band_with_a_chevron_pointer_is_a_box_and_a_block_arrow_into_the_next() -> None:
    # a full-width band whose outline has a chevron below it, pointing into the next band
    band = ((50, 100), (550, 100), (550, 140), (315, 140), (300, 158), (285, 140), (50, 140))
    prims = page(shapes=[Shape(band, BBox.around(band), True, True, "polygon"), rect(50, 150, 550, 190, True)],
                 tokens=text("FIRST", 100, 110) + text("NEXT", 100, 165))
    layout = assemble(prims)
    assert edges(layout) == {("FIRST", "NEXT")}
    first = next(b for b in layout.boxes if b.tokens[0].text == "F")
    assert first.bbox.bottom == 140  # the pointer is not part of the box


def test_pointer_into_a_table_header_row_enters_every_column() -> None:
    band = ((50, 100), (550, 100), (550, 140), (315, 140), (300, 162), (285, 140), (50, 140))
    columns = [rect(50, 160, 200, 300, True), rect(200.4, 160, 350, 300, True), rect(350.4, 160, 550, 300, True)]
    prims = page(shapes=[Shape(band, BBox.around(band), True, True, "polygon"), *columns],
                 tokens=text("TOP", 100, 110) + text("A", 60, 170) + text("B", 210, 170) + text("C", 360, 170))
    assert edges(assemble(prims)) == {("TOP", "A"), ("TOP", "B"), ("TOP", "C")}


def test_cell_shaded_line_by_line_is_one_box_and_its_grid_no_connector() -> None:
    # a column: text-less background with one shaded strip per text line, and a rule across its top
    strips = [rect(60, 200 + 15 * i, 190, 215 + 15 * i, True) for i in range(3)]
    prims = page(shapes=[rect(50, 195, 200, 260, True), *strips, rect(205, 195, 350, 260, True)],
                 segments=[Segment((50, 205), (200, 205)), Segment((200, 205), (350, 205))],
                 tokens=text("A", 70, 202) + text("B", 70, 217) + text("C", 70, 232) + text("X", 250, 220))
    layout = assemble(prims)
    assert sorted(names(layout).values()) == ["ABC", "X"]
    assert edges(layout) == set()


def test_text_overflowing_a_box_bottom_belongs_to_the_box() -> None:
    prims = page(shapes=[rect(100, 100, 200, 125)], tokens=text("TOP", 110, 105) + text("RUN", 110, 121))
    assert names(assemble(prims)) == {0: "TOPRUN"}


def test_tick_stopping_short_of_a_fan_out_bar_joins_it() -> None:
    # Q ──[YES] , a tick down from the label stops 6 pt above the bar joining A and B (no arrowheads)
    prims = page(shapes=[rect(100, 100, 180, 130), rect(250, 108, 275, 122), rect(200, 160, 240, 190),
                         rect(310, 160, 350, 190)],
                 segments=[Segment((180, 115), (250, 115)), Segment((262, 122), (262, 169)),
                           Segment((240, 175), (310, 175))],
                 tokens=text("Q", 130, 110) + text("YES", 252, 110, 8) + text("A", 210, 170) + text("B", 320, 170))
    layout = assemble(prims)
    assert edges(layout) == {("Q", "A"), ("Q", "B")}
    assert labels(layout) == {"A": "YES", "B": "YES"}


def test_box_under_two_stacked_boxes_is_not_joined_to_either() -> None:
    # Q -> S; A and B stand side by side under S, and C under both A and B
    prims = page(shapes=[rect(100, 50, 300, 80), rect(120, 120, 280, 150), rect(100, 153, 195, 190),
                         rect(205, 153, 300, 190), rect(100, 194, 300, 220)],
                 segments=[Segment((200, 80), (200, 113))], arrowheads=[head_down(200, 120)],
                 tokens=text("Q", 190, 60) + text("S", 190, 130) + text("A", 140, 165) + text("B", 250, 165)
                 + text("C", 190, 200))
    assert edges(assemble(prims)) == {("Q", "S"), ("S", "A"), ("S", "B")}


def test_line_with_an_arrowhead_at_each_end_runs_both_ways() -> None:
    prims = page(shapes=[rect(100, 100, 160, 130), rect(100, 200, 160, 230)],
                 segments=[Segment((93, 115), (80, 115)), Segment((80, 115), (80, 215)), Segment((80, 215), (93, 215))],
                 arrowheads=[Shape(((93, 112), (93, 118), (100, 115)), BBox(93, 112, 100, 118), True, False),
                             Shape(((93, 212), (93, 218), (100, 215)), BBox(93, 212, 100, 218), True, False)],
                 tokens=text("A", 120, 110) + text("B", 120, 210))
    layout = assemble(prims)
    assert edges(layout) == {("A", "B"), ("B", "A")}
    assert any("each end" in warning for warning in layout.warnings)


def test_arrow_through_a_label_standing_apart_from_the_line_ends() -> None:
    # B ◀── YES ◀── A : both arrow pieces stop 9 pt short of the word
    prims = page(shapes=[rect(60, 100, 120, 130), rect(240, 100, 300, 130)],
                 segments=[Segment((240, 115), (233, 115)), Segment((194, 115), (127, 115))],
                 arrowheads=[Shape(((233, 112), (233, 118), (227, 115)), BBox(227, 112, 233, 118), True, False),
                             Shape(((127, 112), (127, 118), (121, 115)), BBox(121, 112, 127, 118), True, False)],
                 tokens=text("B", 80, 110) + text("YES", 203, 110, 10) + text("A", 260, 110))
    layout = assemble(prims)
    assert edges(layout) == {("A", "B")}
    assert labels(layout) == {"B": "YES"}


def test_squat_block_arrow_between_two_bands_joins_them() -> None:
    # a separate down-pointing block arrow, wider than it is long, from one full-width band to the next
    arrow = ((290, 142), (310, 142), (310, 160), (320, 160), (300, 178), (280, 160), (290, 160))
    prims = page(shapes=[rect(50, 100, 550, 140, True), Shape(arrow, BBox.around(arrow), True, False, "polygon"),
                         rect(50, 181, 550, 220, True)],
                 tokens=text("FIRST", 100, 110) + text("NEXT", 100, 190))
    layout = assemble(prims)
    assert edges(layout) == {("FIRST", "NEXT")}
    assert [c.kind for c in layout.connectors] == ["block"]


def test_branch_word_on_a_broken_line_whose_arrowhead_is_further_along_labels_it() -> None:
    # smog-50: a stub leaves Q's bottom, YES stands under it, a line leaves YES to the right and turns down
    # into A; the arrowhead is at A, far from the word
    prims = page(shapes=[rect(100, 100, 220, 130), rect(200, 200, 300, 230)],
                 segments=[Segment((160, 130), (160, 136)), Segment((168, 142), (250, 142)),
                           Segment((250, 142), (250, 193))],
                 arrowheads=[head_down(250, 200)],
                 tokens=text("Q", 120, 110) + text("YES", 150, 138, 8) + text("A", 240, 210))
    layout = assemble(prims)
    assert edges(layout) == {("Q", "A")}
    assert labels(layout) == {"A": "YES"}



def test_arrow_into_the_first_of_a_gapped_column_of_boxes_fans_out_to_the_list() -> None:
    # H ▼ [I1] [I2] [I3]: one box per bullet, 4 pt apart, none with a connector of its own
    items = [rect(100, 160, 300, 180), rect(100, 184, 300, 204), rect(100, 208, 300, 228)]
    prims = page(shapes=[rect(100, 100, 300, 130), *items], segments=[Segment((200, 130), (200, 153))],
                 arrowheads=[head_down(200, 160)],
                 tokens=text("H", 190, 110) + text("I1", 190, 165) + text("I2", 190, 189) + text("I3", 190, 213))
    layout = assemble(prims)
    assert edges(layout) == {("H", "I1"), ("H", "I2"), ("H", "I3")}
    assert {c.kind for c in layout.connectors} == {"line", "list"}


def test_boxes_touching_edge_to_edge_under_an_arrow_stay_steps_in_reading_order() -> None:
    # (two lines each: one-line bands abutting with no gap would be one box filled in pieces)
    steps = [rect(100, 160, 300, 190), rect(100, 190, 300, 220), rect(100, 220, 300, 250)]
    prims = page(shapes=[rect(100, 100, 300, 130), *steps], segments=[Segment((200, 130), (200, 153))],
                 arrowheads=[head_down(200, 160)],
                 tokens=text("H", 190, 110) + [t for top, word in ((163, "S1"), (193, "S2"), (223, "S3"))
                                               for t in text(word, 190, top) + text("x", 190, top + 13)])
    assert edges(assemble(prims)) == {("H", "S1x"), ("S1x", "S2x"), ("S2x", "S3x")}


def test_a_gapped_column_whose_last_box_leads_on_is_not_a_list() -> None:
    steps = [rect(100, 160, 300, 180), rect(100, 184, 300, 204), rect(100, 208, 300, 228)]
    prims = page(shapes=[rect(100, 100, 300, 130), *steps, rect(100, 260, 300, 290)],
                 segments=[Segment((200, 130), (200, 153)), Segment((200, 228), (200, 253))],
                 arrowheads=[head_down(200, 160), head_down(200, 260)],
                 tokens=text("H", 190, 110) + text("S1", 190, 165) + text("S2", 190, 189) + text("S3", 190, 213)
                 + text("E", 190, 270))
    assert ("H", "S2") not in edges(assemble(prims)) and ("H", "S3") not in edges(assemble(prims))


def test_arrow_into_one_of_a_row_of_sibling_boxes_enters_them_all() -> None:
    # P ▼ into the middle of [L] [M] [R] (10 pt apart); L and R send arrows of their own but none enters them
    row = [rect(50, 160, 200, 190), rect(210, 160, 360, 190), rect(370, 160, 520, 190)]
    below = [rect(50, 230, 200, 250), rect(210, 230, 360, 250), rect(370, 230, 520, 250)]
    prims = page(shapes=[rect(210, 100, 360, 130), *row, *below],
                 segments=[Segment((285, 130), (285, 153))] + [Segment((x, 190), (x, 223)) for x in (125, 285, 445)],
                 arrowheads=[head_down(285, 160)] + [head_down(x, 230) for x in (125, 285, 445)],
                 tokens=text("P", 280, 110) + text("L", 120, 170) + text("M", 280, 170) + text("R", 440, 170)
                 + text("L1", 120, 235) + text("M1", 280, 235) + text("R1", 440, 235))
    found = edges(assemble(prims))
    assert {("P", "L"), ("P", "M"), ("P", "R")} <= found


def test_a_box_beside_the_entered_one_that_sends_no_arrow_is_no_sibling() -> None:
    row = [rect(50, 160, 200, 190), rect(210, 160, 360, 190)]
    prims = page(shapes=[rect(210, 100, 360, 130), *row, rect(210, 230, 360, 250)],
                 segments=[Segment((285, 130), (285, 153)), Segment((285, 190), (285, 223))],
                 arrowheads=[head_down(285, 160), head_down(285, 230)],
                 tokens=text("P", 280, 110) + text("SIDE", 100, 170) + text("M", 280, 170) + text("M1", 280, 235))
    assert edges(assemble(prims)) == {("P", "M"), ("M", "M1")}


def test_text_hidden_between_two_stacked_boxes_belongs_to_neither() -> None:
    # the upper box's last line runs 4 pt past its bottom and the box stacked 2 pt under it covers its lower half
    prims = page(shapes=[rect(100, 30, 300, 60), rect(100, 100, 300, 144), rect(100, 146, 300, 190),
                         rect(20, 194, 580, 260)],
                 segments=[Segment((200, 60), (200, 93))], arrowheads=[head_down(200, 100)],
                 tokens=text("TOP", 190, 40) + text("U", 190, 110) + text("HID", 190, 140)
                 + text("L", 190, 160) + text("END", 190, 187))  # END overflows L; a page-wide panel covers its foot
    layout = assemble(prims)
    assert {"U", "LEND"} <= set(names(layout).values())
    assert edges(layout) == {("TOP", "U"), ("U", "LEND")}
    assert labels(layout) == {}  # the hidden text labels no connector
    assert any(block.lines[0].plain == "HID" for block in layout.other)


LOOP_ARROWS = AssemblySettings(loop_arrows=True)  # the rules under test, whatever the default


def head_left(tip_x: float, tip_y: float) -> Shape:
    pts = ((tip_x + 7, tip_y - 3), (tip_x + 7, tip_y + 3), (tip_x, tip_y))
    return Shape(pts, BBox.around(pts), True, False, "polygon")


def head_right(tip_x: float, tip_y: float) -> Shape:
    pts = ((tip_x - 7, tip_y - 3), (tip_x - 7, tip_y + 3), (tip_x, tip_y))
    return Shape(pts, BBox.around(pts), True, False, "polygon")


def test_small_filled_rectangle_holding_a_branch_word_is_a_label_not_an_arrowhead() -> None:
    # R ─[NO]─┐ (a white label background 14 × 12 pt right beside R) running up and into C
    prims = page(shapes=[rect(220, 100, 300, 130), rect(204, 109, 218, 121, filled=True), rect(200, 30, 280, 50)],
                 segments=[Segment((220, 115), (150, 115)), Segment((150, 115), (150, 40)),
                           Segment((150, 40), (193, 40))],
                 arrowheads=[head_right(200, 40)],
                 tokens=text("R", 250, 110) + text("NO", 205, 110, 8) + text("C", 230, 35))
    layout = assemble(prims, LOOP_ARROWS)
    assert edges(layout) == {("R", "C")}
    assert labels(layout) == {"C": "NO"}


def test_arrow_onto_a_bus_beside_an_arrow_back_into_its_box_leads_where_the_bus_goes() -> None:
    # Q ──▶│ the bus from R runs up into C; a dashed arrow leaves the bus 5 pt lower, back into Q
    prims = page(shapes=[rect(100, 100, 200, 140), rect(310, 290, 400, 310), rect(310, 30, 400, 50)],
                 segments=[Segment((310, 300), (300, 300)), Segment((300, 300), (300, 40)),
                           Segment((300, 40), (303, 40)),
                           Segment((200, 115), (293, 115)), Segment((300, 120), (207, 120), dashed=True)],
                 arrowheads=[head_right(310, 40), head_right(300, 115), head_left(200, 120)],
                 tokens=text("Q", 140, 110) + text("R", 350, 295) + text("C", 350, 35))
    found = edges(assemble(prims, LOOP_ARROWS))
    assert ("Q", "C") in found and ("R", "C") in found
