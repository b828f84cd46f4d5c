"""The scanned-page pipeline's steps on drawn pages: binarise/deskew → shapes → connectors and arrowheads,
text tokens from tesseract's word table, and the choice of reader (``dkg.parsing.scan``)."""

from __future__ import annotations

import dataclasses
from functools import partial

import cv2
import numpy as np
import pytest

from dkg.parsing.models import PagePrimitives
from dkg.parsing.scan import route as scan_route
from dkg.parsing.scan.binarise import binarise
from dkg.parsing.scan.connectors import find_connectors
from dkg.parsing.scan.settings import DEFAULT_SETTINGS, ScanRoute, ScanSettings
from dkg.parsing.scan.shapes import find_shapes
from dkg.parsing.scan.text import words_to_tokens
from tests.unit.ocr_primitives import add_box
from tests.unit.scan_images import DrawingScale

SCALE = DrawingScale(300)
PPT = SCALE.ppt
WIDTH_PT, HEIGHT_PT = 300.0, 300.0


_px = SCALE.px


def _page(skew_deg: float = 0.0) -> np.ndarray:
    """A grey-filled box without outline (text black, fill fading to white at its top, a drop shadow) above
    an outlined white box, joined by a thin vertical connector ending in a small solid arrowhead; JPEG noise."""
    w, h = _px(WIDTH_PT), _px(HEIGHT_PT)
    img = np.full((h, w), 248, np.uint8)
    x0, y0, x1, y1 = _px(60), _px(40), _px(240), _px(100)
    cv2.rectangle(img, (x0 + _px(3), y0 + _px(3)), (x1 + _px(3), y1 + _px(3)), 150, -1)  # drop shadow
    for y in range(y0, y1):  # graded fill: 244 at the top to 200 at the bottom
        img[y, x0:x1] = int(244 - 44 * (y - y0) / (y1 - y0))
    cv2.putText(img, "Assess rhythm", (x0 + _px(10), y0 + _px(35)), cv2.FONT_HERSHEY_SIMPLEX, 1.6, 0, 4)
    bx0, by0, bx1, by1 = _px(60), _px(170), _px(240), _px(230)
    cv2.rectangle(img, (bx0, by0), (bx1, by1), 20, 3)
    cv2.putText(img, "Treat cause", (bx0 + _px(10), by0 + _px(35)), cv2.FONT_HERSHEY_SIMPLEX, 1.6, 0, 4)
    cx = _px(150)
    cv2.line(img, (cx, y1 + _px(4)), (cx, by0 - _px(6)), 10, 3)
    head = np.array([[cx - _px(3), by0 - _px(7)], [cx + _px(3), by0 - _px(7)], [cx, by0 - 1]], np.int32)
    cv2.fillPoly(img, [head], 10)
    if skew_deg:
        matrix = cv2.getRotationMatrix2D((w / 2, h / 2), skew_deg, 1.0)
        img = cv2.warpAffine(img, matrix, (w, h), borderValue=248)
    rng = np.random.default_rng(7)
    img = np.clip(img.astype(np.int16) + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 55])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)


@pytest.mark.parametrize("skew", [0.0, 1.2])
def test_shapes_find_the_graded_filled_box_and_the_outlined_box(skew: float) -> None:
    page = binarise(_page(skew), WIDTH_PT, DEFAULT_SETTINGS)
    shapes = sorted(find_shapes(page, DEFAULT_SETTINGS), key=lambda s: s.rect[1])
    assert len(shapes) == 2
    filled, outlined = shapes
    assert filled.filled and not outlined.filled
    # the filled box reaches its pale top (grown over the faint end of the fill), not just its dark half
    assert abs(filled.rect[1] / PPT - 40) <= 6 and abs(filled.rect[3] / PPT - 100) <= 6
    assert abs(outlined.rect[1] / PPT - 170) <= 4 and abs(outlined.rect[3] / PPT - 230) <= 4
    if skew:
        assert abs(page.skew_deg + skew) <= 0.3  # the rotation that undoes the skew


def test_connectors_find_the_stroke_and_its_arrowhead_between_the_boxes() -> None:
    page = binarise(_page(), WIDTH_PT, DEFAULT_SETTINGS)
    shapes = find_shapes(page, DEFAULT_SETTINGS)
    found = find_connectors(page, shapes, [], DEFAULT_SETTINGS)
    upright = [s for s in found.strokes if abs(s.a[0] - s.b[0]) < 2 and abs(s.a[1] - s.b[1]) > _px(20)]
    assert len(upright) == 1
    assert abs(upright[0].a[0] / PPT - 150) <= 2
    assert len(found.heads) == 1
    hx0, hy0, hx1, hy1 = found.heads[0].rect
    assert hx0 / PPT <= 150 <= hx1 / PPT and 160 <= hy1 / PPT <= 171


def test_box_text_is_not_taken_for_connector_strokes() -> None:
    page = binarise(_page(), WIDTH_PT, DEFAULT_SETTINGS)
    shapes = find_shapes(page, DEFAULT_SETTINGS)
    found = find_connectors(page, shapes, [], DEFAULT_SETTINGS)
    for stroke in found.strokes:  # every stroke lies in the gap between the boxes, none inside a box
        for shape in shapes:
            x0, y0, x1, y1 = shape.rect
            mid = ((stroke.a[0] + stroke.b[0]) / 2, (stroke.a[1] + stroke.b[1]) / 2)
            assert not (x0 < mid[0] < x1 and y0 < mid[1] < y1)


def _word_table(words: list[tuple[str, float, int, int, int, int, int]]) -> dict[str, list[object]]:
    keys = ("text", "conf", "left", "top", "width", "height", "line_num")
    table: dict[str, list[object]] = {k: [w[i] for w in words] for i, k in enumerate(keys)}
    table["block_num"] = [1] * len(words)
    table["par_num"] = [1] * len(words)
    return table


def test_words_become_tokens_with_one_size_per_line_spaces_and_bullets() -> None:
    table = _word_table([
        ("e", 90.0, 0, 10, 8, 8, 1), ("Heart", 95.0, 20, 0, 60, 30, 1), ("block", 95.0, 90, 0, 60, 30, 1),
        ("|", 20.0, 200, 0, 4, 40, 1), ("noise", 5.0, 0, 50, 40, 30, 2),
    ])
    tokens = words_to_tokens(table, (100, 200), 2.0, min_conf=10.0)
    texts = [t.text for t in tokens]
    assert texts == ["\u2022", " ", "Heart", " ", "block"]  # the bar and the unsure word are dropped
    assert {t.size for t in tokens} == {15.0}
    assert tokens[2].bbox.x0 == (100 + 20) / 2.0 and tokens[2].bbox.top == 200 / 2.0


def test_scan_route_from_environment_names_what_is_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(scan_route.ROUTE_ENV, "pipeline")
    assert scan_route.settings_from_env().route is ScanRoute.PIPELINE
    monkeypatch.setenv(scan_route.ROUTE_ENV, "magic")
    with pytest.raises(ValueError, match="pipeline, legacy, hybrid"):
        scan_route.settings_from_env()


def test_hybrid_route_reads_a_page_the_legacy_reader_fails_on_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    import dkg.parsing.raster as raster

    def broken(*_: object) -> PagePrimitives:
        raise IndexError("index 287 is out of bounds for axis 1 with size 287")

    piped = PagePrimitives(1, WIDTH_PT, HEIGHT_PT, "ocr")
    monkeypatch.setattr(raster, "raster_primitives", broken)
    monkeypatch.setattr(scan_route, "pipeline_primitives", lambda *a, **k: piped)
    prims, issues = scan_route.scanned_primitives(np.zeros((4, 4), np.uint8), 1, WIDTH_PT, HEIGHT_PT,
                                                  ScanSettings(route=ScanRoute.HYBRID))
    assert prims is piped
    assert len(issues) == 1 and "IndexError: index 287" in issues[0] and "scan pipeline" in issues[0]
    with pytest.raises(IndexError):
        scan_route.scanned_primitives(np.zeros((4, 4), np.uint8), 1, WIDTH_PT, HEIGHT_PT,
                                      dataclasses.replace(DEFAULT_SETTINGS, route=ScanRoute.LEGACY))


def test_a_box_whose_outline_runs_into_a_chevron_is_a_box_pointing_down() -> None:
    w, h = _px(WIDTH_PT), _px(HEIGHT_PT)
    img = np.full((h, w), 250, np.uint8)
    x0, y0, x1, y1 = _px(60), _px(40), _px(240), _px(90)
    cx, tip = _px(150), _px(104)
    outline = np.array([[x0, y0], [x1, y0], [x1, y1], [cx + _px(14), y1], [cx, tip], [cx - _px(14), y1],
                        [x0, y1]], np.int32)
    cv2.polylines(img, [outline], True, 40, 4)
    cv2.putText(img, "Initial steps", (x0 + _px(10), y0 + _px(32)), cv2.FONT_HERSHEY_SIMPLEX, 1.6, 0, 4)
    cv2.rectangle(img, (x0, _px(115)), (x1, _px(165)), 40, 4)
    cv2.putText(img, "Next step", (x0 + _px(10), _px(147)), cv2.FONT_HERSHEY_SIMPLEX, 1.6, 0, 4)
    page = binarise(img, WIDTH_PT, DEFAULT_SETTINGS)
    shapes = sorted(find_shapes(page, DEFAULT_SETTINGS), key=lambda s: s.rect[1])
    assert len(shapes) == 2
    upper, lower = shapes
    assert abs(upper.rect[3] / PPT - 90) <= 3  # the body only, not the chevron under it
    assert upper.pointer is not None and abs(upper.pointer[0] / PPT - 150) <= 3
    assert abs(upper.pointer[1] / PPT - 104) <= 3
    assert lower.pointer is None


def test_border_remnants_at_word_ends_are_dropped_but_dashes_of_words_kept() -> None:
    table = _word_table([("_Signs", 90.0, 0, 0, 50, 20, 1), ("of|", 90.0, 60, 0, 20, 20, 1),
                         ("-(Consider", 90.0, 0, 30, 80, 20, 2), ("-or-", 90.0, 0, 60, 30, 20, 3),
                         ("x", 90.0, 40, 60, 10, 20, 3)])
    texts = [t.text for t in words_to_tokens(table, (0, 0), 1.0, min_conf=10.0) if t.text.strip()]
    assert texts == ["Signs", "of", "(Consider", "-or-", "x"]


def _stacked_pipeline_page() -> PagePrimitives:
    """What the pipeline reads from a real scan of two boxes stacked edge to edge, each with its own outline
    and one line of text ("CPR 2 min" on "IV access"), with an arrow from a box above into the upper one: box
    insides grown by a border each, so the two shapes overlap by two borders (2 pt)."""
    from dkg.parsing.geometry import BBox
    from dkg.parsing.models import Segment, Shape

    prims = PagePrimitives(1, WIDTH_PT, HEIGHT_PT, "ocr")

    box = partial(add_box, prims, char_width=8.0)

    box(80, 30, 200, 60, ["Start", "CPR"])
    box(80, 100, 200, 124, ["CPR", "2", "min"])
    box(80, 122, 200, 142, ["IV", "access"])
    prims.segments.append(Segment((140, 60), (140, 99)))
    prims.arrowheads.append(Shape(((136, 94), (144, 94), (140, 100)), BBox(136, 94, 144, 100), True, False))
    return prims


def test_boxes_stacked_edge_to_edge_on_a_pipeline_page_stay_two_boxes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real scans (smog-48: "CPR 2 min" on "IV / IO access") stack boxes that touch; the pipeline's shapes
    overlap by two borders there, so assembling them with the rule-based reader's ``piece_gap`` merged them
    into one box and lost the edge between them."""
    from pathlib import Path

    from dkg.parsing import parse_pdf

    monkeypatch.setenv(scan_route.ROUTE_ENV, "pipeline")
    monkeypatch.setattr(scan_route, "pipeline_primitives", lambda *a, **k: _stacked_pipeline_page())
    pdf = Path(__file__).resolve().parent.parent / "fixtures" / "pdfs" / "basic_rect_arrows-scanned.pdf"
    page = parse_pdf(pdf, pages="1").pages[0]
    assert page.source == "ocr"
    pairs = {(e.head, e.tail) for e in page.edges}
    assert pairs == {("Start CPR", "CPR 2 min"), ("CPR 2 min", "IV access")}


def test_a_word_tesseract_boxes_too_wide_is_still_followed_by_a_space() -> None:
    """On blurred scans tesseract boxes some words out to the end of their line (cbrn-12: "disinfection"
    boxed over "or decontamination"), so the next word starts inside the box before it; without a space
    token there the box read "disinfectionor decontamination"."""
    from dkg.parsing.textlayout import build_lines

    table = _word_table([
        ("need", 96.0, 0, 0, 40, 20, 1), ("disinfection", 96.0, 50, 2, 400, 16, 1), ("or", 96.0, 170, 0, 20, 20, 1),
        ("decontamination", 96.0, 200, 2, 250, 16, 1),
    ])
    lines = build_lines(words_to_tokens(table, (0, 0), 4.0, min_conf=10.0))
    assert [line.plain for line in lines] == ["need disinfection or decontamination"]


def test_a_stroke_thickened_where_it_leaves_a_box_is_not_an_arrowhead() -> None:
    """A scanned stem is often thicker for a stretch where it leaves a box's shadow (smog-41: the arrow from
    "Transcutaneous Pacing" down to "Continuous Monitoring"); that stretch survived the opening that finds
    solid heads, so the arrow had a head at each end and joined no boxes. A head is about as wide as long."""
    w, h = _px(WIDTH_PT), _px(HEIGHT_PT)
    img = np.full((h, w), 250, np.uint8)
    cv2.rectangle(img, (_px(90), _px(60)), (_px(210), _px(100)), 20, 3)
    cv2.rectangle(img, (_px(90), _px(170)), (_px(210), _px(210)), 20, 3)
    for box_y in (60, 170):
        cv2.putText(img, "Step one", (_px(100), _px(box_y + 26)), cv2.FONT_HERSHEY_SIMPLEX, 1.6, 0, 4)
    cx = _px(150)
    cv2.line(img, (cx, _px(100)), (cx, _px(163)), 10, 4)  # the stem
    cv2.rectangle(img, (cx - _px(1.1), _px(101)), (cx + _px(1.1), _px(108)), 10, -1)  # thickened stretch
    head = np.array([[cx - _px(3), _px(163)], [cx + _px(3), _px(163)], [cx, _px(169)]], np.int32)
    cv2.fillPoly(img, [head], 10)
    page = binarise(img, WIDTH_PT, DEFAULT_SETTINGS)
    found = find_connectors(page, find_shapes(page, DEFAULT_SETTINGS), [], DEFAULT_SETTINGS)
    assert len(found.heads) == 1
    assert found.heads[0].rect[3] / PPT >= 165  # the real head, at the lower box


def test_a_box_with_bold_text_near_its_broken_border_is_found() -> None:
    """smog-46 "Sinus Tach": bold text a few pixels under the top border, and a border the scan broke near a
    corner. Closing the dash gaps of the whole ink glued the text to the border, so the box's hole hugged the
    text and only its empty lower part looked like a box (then dropped as fenced in by connectors)."""
    w, h = _px(WIDTH_PT), _px(HEIGHT_PT)
    img = np.full((h, w), 250, np.uint8)
    x0, y0, x1, y1 = _px(60), _px(100), _px(200), _px(130)
    cv2.rectangle(img, (x0, y0), (x1, y1), 20, 3)
    img[y1 - _px(2.0): y1 + 2, x0 - 2: x0 + _px(1.5)] = 250  # the scan broke the border at a corner
    cv2.putText(img, "Sinus Tach", (x0 + _px(8), y0 + _px(11)), cv2.FONT_HERSHEY_SIMPLEX, 1.5, 0, 7)
    page = binarise(img, WIDTH_PT, DEFAULT_SETTINGS)
    shapes = find_shapes(page, DEFAULT_SETTINGS)
    assert len(shapes) == 1
    rx0, ry0, rx1, ry1 = (v / PPT for v in shapes[0].rect)
    assert abs(rx0 - 60) <= 3 and abs(ry0 - 100) <= 3 and abs(rx1 - 200) <= 3 and abs(ry1 - 130) <= 3


def test_a_pale_box_whose_fill_only_darkens_towards_its_bottom_is_found() -> None:
    """smog-48 "Rhythm shockable?" scanned: no border, a fill graded from the paper's own tone at the top to a
    light grey at the bottom. Noise lets only some pixels of the upper rows pass the fill threshold, so the
    fill's component is ragged and was dropped as not rectangular."""
    w, h = _px(WIDTH_PT), _px(HEIGHT_PT)
    img = np.full((h, w), 248, np.uint8)
    x0, y0, x1, y1 = _px(60), _px(100), _px(240), _px(136)
    for y in range(y0, y1):
        img[y, x0:x1] = int(248 - 34 * (y - y0) / (y1 - y0))
    img[y1: y1 + _px(1.5), x0 + _px(2): x1 + _px(2)] = 170  # the drop shadow's bottom edge
    cv2.putText(img, "Rhythm shockable?", (x0 + _px(20), y0 + _px(16)), cv2.FONT_HERSHEY_SIMPLEX, 1.3, 0, 4)
    cv2.putText(img, "Confirm in two leads", (x0 + _px(16), y0 + _px(30)), cv2.FONT_HERSHEY_SIMPLEX, 1.3, 40, 3)
    rng = np.random.default_rng(7)
    img = np.clip(img.astype(np.int16) + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 55])
    assert ok
    page = binarise(cv2.imdecode(data, cv2.IMREAD_GRAYSCALE), WIDTH_PT, DEFAULT_SETTINGS)
    shapes = find_shapes(page, DEFAULT_SETTINGS)
    assert len(shapes) == 1 and shapes[0].filled
    rx0, ry0, rx1, ry1 = (v / PPT for v in shapes[0].rect)
    assert abs(rx0 - 60) <= 3 and abs(ry0 - 100) <= 6 and abs(rx1 - 240) <= 3 and abs(ry1 - 136) <= 3


def test_hybrid_route_keeps_the_pipeline_where_the_rule_based_reader_finds_a_stray_edge_or_two(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On real scans (smog-50, cbrn-12) the rule-based reader finds one or two stray edges; the hybrid route
    kept them because they were "connected", and never read the page with the pipeline, which finds more."""
    import dkg.parsing.raster as raster

    piped = _stacked_pipeline_page()  # two edges
    legacy = _stacked_pipeline_page()
    legacy.shapes.pop()  # the lower stacked box: one edge left
    legacy.tokens[:] = [t for t in legacy.tokens if t.text not in ("IV", "access")]
    monkeypatch.setattr(raster, "raster_primitives", lambda *a: legacy)
    monkeypatch.setattr(scan_route, "pipeline_primitives", lambda *a, **k: piped)
    hybrid = ScanSettings(route=ScanRoute.HYBRID)
    read = scan_route.read_scanned_page(np.zeros((4, 4), np.uint8), 1, WIDTH_PT, HEIGHT_PT, hybrid)
    assert read.prims is piped and read.assembly == hybrid.pipeline_assembly
    # a page the rule-based reader reads with enough edges keeps its reading (the own corpus)
    enough = dataclasses.replace(hybrid, hybrid_legacy_edges=1, hybrid_legacy_edge_share=0.0)
    assert scan_route.read_scanned_page(np.zeros((4, 4), np.uint8), 1, WIDTH_PT, HEIGHT_PT, enough).prims is legacy


def test_hybrid_route_reads_a_sparse_rule_based_reading_with_the_pipeline_too(monkeypatch: pytest.MonkeyPatch
                                                                              ) -> None:
    """cbrn-12 scanned at 150 dpi: the rule-based reader found 8 edges, enough to be kept, but among 15 boxes,
    most of them unconnected; the pipeline found 26 among 31. A reading with fewer edges than
    ``hybrid_legacy_edge_share`` of its boxes is compared with the pipeline's, and the one with more edges kept."""
    import dkg.parsing.raster as raster

    piped = _stacked_pipeline_page()  # two edges among three boxes
    legacy = _stacked_pipeline_page()
    legacy.shapes.pop()
    legacy.tokens[:] = [t for t in legacy.tokens if t.text not in ("IV", "access")]
    for top in (200, 260, 320):  # boxes the rule-based reader found but connected to nothing
        add_box(legacy, 80, top, 200, top + 30, ["Note", str(top)], char_width=8.0)
    monkeypatch.setattr(raster, "raster_primitives", lambda *a: legacy)
    monkeypatch.setattr(scan_route, "pipeline_primitives", lambda *a, **k: piped)
    sparse = ScanSettings(route=ScanRoute.HYBRID, hybrid_legacy_edges=1)  # one edge among five boxes
    read = scan_route.read_scanned_page(np.zeros((4, 4), np.uint8), 1, WIDTH_PT, HEIGHT_PT, sparse)
    assert read.prims is piped
    off = dataclasses.replace(sparse, hybrid_legacy_edge_share=0.0)
    assert scan_route.read_scanned_page(np.zeros((4, 4), np.uint8), 1, WIDTH_PT, HEIGHT_PT, off).prims is legacy
