"""Graph assembly on hand-made primitives (no PDF involved)."""

from __future__ import annotations

from dkg.parsing.assemble import assemble
from dkg.parsing.geometry import BBox
from dkg.parsing.models import PagePrimitives, Segment, Shape, Token


def rect(x0: float, top: float, x1: float, bottom: float) -> Shape:
    return Shape(((x0, top), (x1, top), (x1, bottom), (x0, bottom)), BBox(x0, top, x1, bottom), False, True, "rect")


def head(tip_x: float, tip_y: float) -> Shape:
    """A filled down-pointing arrowhead whose tip touches y = tip_y."""
    pts = ((tip_x - 3, tip_y - 7), (tip_x + 3, tip_y - 7), (tip_x, tip_y))
    return Shape(pts, BBox.around(pts), True, False, "polygon")


def text(s: str, x: float, y: float, size: float = 10) -> list[Token]:
    return [Token(c, BBox(x + i * 5, y, x + i * 5 + 5, y + size), size) for i, c in enumerate(s)]


def page(**kw: object) -> PagePrimitives:
    prims = PagePrimitives(1, 600, 800, "digital")
    for key, value in kw.items():
        setattr(prims, key, value)
    return prims


def edges(layout) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    names = {i: "".join(t.text for t in sorted(b.tokens, key=lambda t: t.bbox.x0)) for i, b in enumerate(layout.boxes)}
    return {(names[s], names[t]) for c in layout.connectors for s in c.sources for t in c.targets}


def test_branching_tree_with_labels_goes_to_every_target() -> None:
    boxes = [rect(200, 100, 300, 140), rect(50, 220, 150, 260), rect(350, 220, 450, 260)]
    segs = [Segment((250, 140), (250, 180)), Segment((100, 180), (400, 180)),
            Segment((100, 180), (100, 213)), Segment((400, 180), (400, 213))]
    prims = page(shapes=boxes, segments=segs, arrowheads=[head(100, 220), head(400, 220)],
                 tokens=text("Q", 240, 110) + text("A", 90, 230) + text("B", 390, 230)
                 + text("YES", 104, 195, 8) + text("NO", 404, 195, 8))
    layout = assemble(prims)
    assert edges(layout) == {("Q", "A"), ("Q", "B")}
    connector = layout.connectors[0]
    labels = {layout.boxes[t].tokens[0].text: [b.lines[0].plain for b in blocks]
              for t, blocks in connector.labels.items()}
    assert labels == {"A": ["YES"], "B": ["NO"]}


def test_whole_arrow_paths_do_not_cross_talk_when_they_share_a_stroke() -> None:
    # A->C and B->C drawn as separate paths whose last legs overlap; A->D shares A's first leg.
    boxes = [rect(50, 100, 150, 140), rect(350, 100, 450, 140), rect(200, 300, 300, 340),
             rect(50, 300, 150, 340)]
    segs = [Segment((100, 140), (100, 200), path=1), Segment((100, 200), (250, 200), path=1),
            Segment((250, 200), (250, 293), path=1),
            Segment((400, 140), (400, 200), path=2), Segment((400, 200), (250, 200), path=2),
            Segment((250, 200), (250, 293), path=2),
            Segment((100, 140), (100, 293), path=3)]
    prims = page(shapes=boxes, segments=segs, arrowheads=[head(250, 300), head(250, 300), head(100, 300)],
                 tokens=text("A", 90, 110) + text("B", 390, 110) + text("C", 240, 310) + text("D", 90, 310))
    assert edges(assemble(prims)) == {("A", "C"), ("B", "C"), ("A", "D")}


def test_side_box_without_connector_and_undirected_line() -> None:
    boxes = [rect(50, 100, 150, 140), rect(50, 200, 150, 240), rect(400, 100, 500, 140)]
    prims = page(shapes=boxes, segments=[Segment((100, 140), (100, 200))],
                 tokens=text("A", 90, 110) + text("B", 90, 210) + text("N", 440, 110))
    layout = assemble(prims)
    assert edges(layout) == {("A", "B")}
    assert any("no arrowhead" in w for w in layout.warnings)


def test_undirected_branching_line_runs_from_the_box_left_of_all_others() -> None:
    # a trunk from the left box branching to two boxes on the right, drawn without arrowheads
    boxes = [rect(50, 150, 150, 190), rect(250, 100, 350, 140), rect(250, 200, 350, 240)]
    segs = [Segment((150, 170), (200, 170), path=1), Segment((200, 120), (200, 220), path=1),
            Segment((200, 120), (250, 120), path=1), Segment((200, 220), (250, 220), path=1)]
    prims = page(shapes=boxes, segments=segs,
                 tokens=text("S", 90, 160) + text("T", 290, 110) + text("U", 290, 210))
    assert edges(assemble(prims)) == {("S", "T"), ("S", "U")}


def test_block_arrow_polygon_is_a_connector() -> None:
    boxes = [rect(50, 100, 150, 140), rect(50, 200, 150, 240)]
    arrow = ((94, 143), (106, 143), (106, 188), (112, 188), (100, 198), (88, 188), (94, 188))
    prims = page(shapes=boxes + [Shape(arrow, BBox.around(arrow), True, True, "polygon")],
                 tokens=text("A", 90, 110) + text("B", 90, 210))
    layout = assemble(prims)
    assert edges(layout) == {("A", "B")}
    assert layout.connectors[0].kind == "block"


def test_title_band_merges_into_its_box_and_frames_are_not_boxes() -> None:
    outer, band, other = rect(50, 100, 200, 180), rect(50, 100, 200, 118), rect(300, 100, 450, 180)
    frame = rect(10, 10, 590, 790)
    prims = page(shapes=[frame, outer, band, other],
                 tokens=text("Title", 60, 104) + text("Body", 60, 140) + text("X", 360, 140))
    layout = assemble(prims)
    assert len(layout.boxes) == 2
    assert sorted(len(b.tokens) for b in layout.boxes) == [1, 9]


def test_footer_code_found() -> None:
    prims = page(shapes=[rect(50, 100, 150, 140)], tokens=text("A", 90, 110) + text("ALL-7", 500, 770))
    assert assemble(prims).code == "ALL-7"


def word(s: str, x: float, y: float, size: float = 10) -> list[Token]:
    """One token per word, as the raster route makes them."""
    return [Token(s, BBox(x, y, x + 5 * len(s), y + size), size)]


def right_head(tip_x: float, tip_y: float) -> Shape:
    """A filled right-pointing arrowhead whose tip touches x = tip_x."""
    pts = ((tip_x - 7, tip_y - 3), (tip_x - 7, tip_y + 3), (tip_x, tip_y))
    return Shape(pts, BBox.around(pts), True, False, "polygon")


def test_merge_bus_sources_do_not_run_back_into_another_boxes_branch() -> None:
    # A's line runs right and down a bus into S. P splits: up and right into the bus, and down into R; R's
    # line also merges into the bus. Without drawing order (a scan), A could reach R by running back left
    # along P's upper branch; it must not.
    boxes = [rect(50, 40, 150, 80), rect(50, 120, 150, 160), rect(290, 160, 380, 200), rect(500, 230, 600, 270)]
    segs = [Segment((150, 60), (400, 60)), Segment((400, 60), (400, 250)),      # A's line and the bus
            Segment((150, 140), (200, 140)), Segment((200, 100), (200, 180)),   # P's stub and its split
            Segment((200, 100), (400, 100)), Segment((200, 180), (283, 180)),   # P's branches
            Segment((380, 180), (400, 180)),                                     # R's line into the bus
            Segment((400, 250), (493, 250))]                                     # bus into S
    tokens = word("Aa", 90, 50) + word("Pp", 90, 130) + word("Rr", 320, 170) + word("Ss", 540, 240)
    for source in ("digital", "ocr"):
        prims = page(shapes=boxes, segments=segs, arrowheads=[right_head(290, 180), right_head(500, 250)],
                     tokens=tokens)
        prims.source = source
        assert edges(assemble(prims)) == {("Aa", "Ss"), ("Pp", "Rr"), ("Pp", "Ss"), ("Rr", "Ss")}, source


def test_scanned_gap_at_a_dashed_elbow_corner_is_bridged() -> None:
    # the corner dash of a dashed elbow was lost as a glyph: the two free stroke ends 6 pt apart are joined
    boxes = [rect(50, 40, 150, 80), rect(300, 200, 400, 240)]
    segs = [Segment((150, 60), (200, 60)), Segment((200, 60), (200, 214)), Segment((205, 218), (293, 218))]
    tokens = word("Aa", 90, 50) + word("Bb", 340, 210)
    for source, expected in (("ocr", {("Aa", "Bb")}), ("digital", set())):
        prims = page(shapes=boxes, segments=segs, arrowheads=[right_head(300, 218)], tokens=tokens)
        prims.source = source
        assert edges(assemble(prims)) == expected, source


def test_scanned_area_holding_only_arrowhead_noise_is_not_a_box() -> None:
    boxes = [rect(50, 40, 150, 80), rect(300, 40, 400, 80), rect(180, 30, 260, 90)]
    segs = [Segment((150, 60), (293, 60))]
    tokens = (word("Start", 70, 50) + word("Next", 320, 50)
              + [Token("c", BBox(200, 50, 205, 58), 6), Token("<C", BBox(230, 50, 240, 58), 6)])
    prims = page(shapes=boxes, segments=segs, arrowheads=[right_head(300, 60)], tokens=tokens)
    prims.source = "ocr"
    layout = assemble(prims)
    assert len(layout.boxes) == 2
    assert edges(layout) == {("Start", "Next")}


def test_scanned_bus_whose_stem_was_lost_leaves_the_one_box_just_above_it() -> None:
    # Q's short stem down to the line is gone (blurred into Q's border); the line runs 8 pt below Q
    boxes = [rect(200, 100, 300, 140), rect(50, 220, 150, 260), rect(350, 220, 450, 260)]
    segs = [Segment((100, 148), (400, 148)), Segment((100, 148), (100, 213)), Segment((400, 148), (400, 213))]
    arrows = [head(100, 220), head(400, 220)]
    tokens = word("Qq", 240, 110) + word("Aa", 90, 230) + word("Bb", 390, 230)
    scanned = page(shapes=boxes, segments=segs, arrowheads=arrows, tokens=tokens, source="ocr")
    assert edges(assemble(scanned)) == {("Qq", "Aa"), ("Qq", "Bb")}
    # born-digital strokes are never lost: a line that starts at no box stays unexplained
    assert edges(assemble(page(shapes=boxes, segments=segs, arrowheads=arrows, tokens=tokens))) == set()
    # two boxes that close to the line: no guess
    boxes.append(rect(320, 100, 420, 141))
    scanned = page(shapes=boxes, segments=segs, arrowheads=arrows, tokens=tokens + word("Rr", 360, 110),
                   source="ocr")
    assert edges(assemble(scanned)) == set()


def scanned(boxes: list[Shape], segs: list[Segment], arrows: list[Shape], tokens: list[Token]) -> PagePrimitives:
    return page(shapes=boxes, segments=segs, arrowheads=arrows, tokens=tokens, source="ocr")


def test_scanned_line_crossing_another_sources_bus_runs_straight_on() -> None:
    # U's bus runs up into D1 and down into D2. M's line crosses the bus (the scan breaks it at the
    # crossing), runs on and drops onto the line into D2: M reaches D2 only, not D1 up the crossed bus.
    boxes = [rect(50, 120, 150, 140), rect(50, 170, 150, 190), rect(300, 40, 400, 80), rect(300, 200, 400, 240)]
    segs = [Segment((150, 130), (200, 130)), Segment((200, 60), (200, 220)),         # U's stem and bus
            Segment((200, 60), (293, 60)), Segment((200, 220), (293, 220)),          # into D1 and D2
            Segment((150, 180), (200, 180)), Segment((200, 180), (215, 180)),        # M's line, broken
            Segment((215, 180), (215, 220))]                                          # M's drop
    tokens = word("Uu", 90, 125) + word("Mm", 90, 175) + word("D1", 340, 55) + word("D2", 340, 215)
    layout = assemble(scanned(boxes, segs, [right_head(300, 60), right_head(300, 220)], tokens))
    assert edges(layout) == {("Uu", "D1"), ("Uu", "D2"), ("Mm", "D2")}


def test_scanned_line_joining_an_arrow_line_does_not_back_up_it() -> None:
    # S splits over a bus into T1 and T2. A's line joins T1's drop 6 pt below the bus (closer than the
    # wobble allowed against the reading direction): flow on a line ending in an arrowhead runs to the head.
    boxes = [rect(250, 100, 350, 120), rect(150, 220, 250, 260), rect(350, 220, 450, 260), rect(20, 60, 100, 80)]
    segs = [Segment((300, 120), (300, 150)), Segment((200, 150), (400, 150)),
            Segment((200, 150), (200, 213)), Segment((400, 150), (400, 213)),
            Segment((60, 80), (60, 156)), Segment((60, 156), (200, 156))]
    tokens = word("Ss", 290, 105) + word("T1", 190, 235) + word("T2", 390, 235) + word("Aa", 50, 65)
    layout = assemble(scanned(boxes, segs, [head(200, 220), head(400, 220)], tokens))
    assert edges(layout) == {("Ss", "T1"), ("Ss", "T2"), ("Aa", "T1")}


def test_scanned_branch_crossing_another_sources_bus_still_reaches_its_target() -> None:
    # L's branch into H crosses D's bus; a fragment of the branch ends on the bus. Whether the branch is
    # another source's line is followed along lines, not through the crossing: L reaches H, and D's flow
    # up its bus does not turn into L's branch.
    boxes = [rect(300, 20, 400, 60), rect(300, 80, 400, 120), rect(300, 140, 400, 180), rect(300, 240, 400, 280),
             rect(20, 190, 100, 210), rect(20, 220, 100, 240)]
    segs = [Segment((100, 200), (120, 200)), Segment((120, 200), (120, 40)), Segment((120, 40), (293, 40)),
            Segment((120, 160), (293, 160)), Segment((120, 160), (141, 160)),           # L and its branch
            Segment((100, 230), (140, 230)), Segment((140, 100), (140, 260)),
            Segment((140, 100), (293, 100)), Segment((140, 260), (293, 260))]           # D and its bus
    arrows = [right_head(300, y) for y in (40, 100, 160, 260)]
    tokens = (word("Ww", 340, 35) + word("Gg", 340, 95) + word("Hh", 340, 155) + word("Ee", 340, 255)
              + word("Ll", 50, 195) + word("Dd", 50, 225))
    layout = assemble(scanned(boxes, segs, arrows, tokens))
    assert edges(layout) == {("Ll", "Ww"), ("Ll", "Hh"), ("Dd", "Gg"), ("Dd", "Ee")}


def test_scanned_decisions_whose_no_lines_merge_each_keep_their_own_branch() -> None:
    # A and B each go straight down on YES; A's NO line leaves A's stem and drops into M; B's NO line joins
    # M's drop from the side. Every line here leads back to both sources, so "leads to another source" blocks
    # A's own NO line; what merges in is a line whose nearest source is another one.
    boxes = [rect(50, 40, 150, 80), rect(450, 40, 550, 80), rect(50, 220, 150, 260), rect(250, 220, 350, 260),
             rect(450, 220, 550, 260)]
    segs = [Segment((100, 80), (100, 213)), Segment((500, 80), (500, 213)),           # stems, YES
            Segment((100, 120), (300, 120)), Segment((300, 120), (300, 213)),         # A's NO and M's drop
            Segment((500, 140), (300, 140))]                                           # B's NO joins it
    tokens = (word("Aa", 90, 50) + word("Bb", 490, 50) + word("YA", 90, 235) + word("Mm", 290, 235)
              + word("YB", 490, 235))
    layout = assemble(scanned(boxes, segs, [head(100, 220), head(300, 220), head(500, 220)], tokens))
    assert edges(layout) == {("Aa", "YA"), ("Aa", "Mm"), ("Bb", "YB"), ("Bb", "Mm")}


def test_scanned_dashed_elbow_with_its_corner_lost_still_carries_its_sources_flow() -> None:
    # B's dashed line turns up into A's line into T; the scan lost the corner dash (its two stroke ends lie
    # 7 pt apart). With two sources in the tree each is followed on its own, and B's flow must round the gap.
    boxes = [rect(50, 100, 150, 140), rect(300, 100, 400, 140), rect(50, 200, 150, 240)]
    segs = [Segment((150, 120), (293, 120)),                                  # A's line into T
            Segment((150, 220), (245, 220)), Segment((250, 215), (250, 120))]  # B's elbow, corner lost
    tokens = word("Aa", 90, 110) + word("Tt", 340, 110) + word("Bb", 90, 210)
    layout = assemble(scanned(boxes, segs, [right_head(300, 120)], tokens))
    assert edges(layout) == {("Aa", "Tt"), ("Bb", "Tt")}


def test_scanned_arrow_into_a_branch_word_before_a_box_reaches_the_box_when_its_head_is_traced() -> None:
    # Q's arrow points down at the branch word NO standing just above box O (smog-46 scanned: "Chest Pain /
    # SOB / Dizziness?" → NO → "Observe"). The scan traced the arrowhead's outline as short strokes, so their
    # ends lie at the word as well as the shaft's; none of them leads on, so the arrow passes through the word
    # into O, labelled NO.
    from dkg.parsing.scan.settings import DEFAULT_SETTINGS as SCAN

    boxes = [rect(50, 40, 150, 80), rect(50, 188, 150, 228)]
    segs = [Segment((100, 80), (100, 160)),                                           # the shaft
            Segment((97, 160), (103, 160)), Segment((97, 160), (100, 167)), Segment((103, 160), (100, 167))]
    tokens = word("Qq", 90, 55) + word("NO", 95, 174, 8) + word("Oo", 90, 200)
    layout = assemble(scanned(boxes, segs, [head(100, 167)], tokens), SCAN.pipeline_assembly)
    assert edges(layout) == {("Qq", "Oo")}
    connector = layout.connectors[0]
    assert [b.lines[0].plain for blocks in connector.labels.values() for b in blocks] == ["NO"]


def test_a_lopsided_scanned_head_between_stacked_boxes_enters_the_box_it_touches() -> None:
    # smog-43 scanned at 200 dpi: "Normal Sinus Rhythm" over "BP >100" with a 3 pt stem and a head as wide as
    # long. The smallest triangle round the blurred head is lopsided; taking its shortest side for a base put the
    # tip at a back corner, pointing up, so the head entered the box above and the arrow was lost.
    from dkg.parsing.scan.settings import DEFAULT_SETTINGS as SCAN

    boxes = [rect(232, 334, 372, 354), rect(232, 362, 289, 378)]
    segs = [Segment((259.7, 354.0), (259.7, 356.6))]
    pts = ((263.5, 356.6), (256.1, 356.6), (259.2, 361.4))
    lopsided = Shape(pts, BBox(257.0, 356.6, 262.3, 360.0), True, False, "polygon")
    tokens = word("Above", 280, 340) + word("Below", 240, 365)
    layout = assemble(scanned(boxes, segs, [lopsided], tokens), SCAN.pipeline_assembly)
    assert edges(layout) == {("Above", "Below")}
