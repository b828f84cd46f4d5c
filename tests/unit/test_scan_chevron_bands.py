"""Bands drawn with thick grey outlines, each running on into a chevron that points into the next band, the last
into a table's header row (cbrn-12 Figure 5, scanned): the scan pipeline reads one arrow per chevron, the last
entering every column, as the digital route does (issue #16)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from dkg.parsing.assemble import assemble
from dkg.parsing.geometry import BBox
from dkg.parsing.models import PagePrimitives, Shape, Token
from dkg.parsing.scan.binarise import binarise
from dkg.parsing.scan.settings import DEFAULT_SETTINGS
from dkg.parsing.scan.shapes import find_shapes
from tests.unit.scan_images import DrawingScale, as_scanned

SCALE = DrawingScale(200)  # a 200 dpi scan
PPT = SCALE.ppt
WIDTH_PT, HEIGHT_PT = 400.0, 330.0
BANDS = ((20, 60), (80, 120), (140, 180))  # top and bottom of each band's body, in points
HEADER = (200, 225)  # the header row's cells: 30-150, 150-270, 270-390


_px = SCALE.px


def _band_page() -> np.ndarray:
    """Three bands (grey 100 outlines 3.5 pt thick), each with a chevron under its middle reaching into the gap
    or band below, over a header row of three thin-outlined cells sharing their borders."""
    img = np.full((_px(HEIGHT_PT), _px(WIDTH_PT)), 250, np.uint8)
    thick, cx = _px(3.5), _px(200)
    for top, bottom in BANDS:
        x0, y0, x1, y1 = _px(30), _px(top), _px(390), _px(bottom)
        tip = _px(bottom + 16)
        outline = np.array([[x0, y0], [x1, y0], [x1, y1], [cx + _px(18), y1], [cx, tip], [cx - _px(18), y1],
                            [x0, y1]], np.int32)
        cv2.polylines(img, [outline], True, 100, thick)
        cv2.putText(img, "Obtain and keep skills", (x0 + _px(10), y0 + _px(26)), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 0, 3)
    for x0, x1 in ((30, 150), (150, 270), (270, 390)):
        cv2.rectangle(img, (_px(x0), _px(HEADER[0])), (_px(x1), _px(HEADER[1])), 30, 2)
        cv2.putText(img, "Crit", (_px(x0 + 10), _px(HEADER[0] + 18)), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 0, 2)
    return as_scanned(img, seed=11, noise_sd=3)


def test_a_thick_grey_outline_is_solid_ink_not_two_thin_lines() -> None:
    gray = _band_page()
    row = _px(BANDS[0][0])  # the middle of the first band's top outline
    columns = slice(_px(60), _px(150))
    page = binarise(gray, WIDTH_PT, DEFAULT_SETTINGS)
    assert np.count_nonzero(page.ink[row, columns]) >= 0.95 * (columns.stop - columns.start)
    hollow = binarise(gray, WIDTH_PT, dataclasses.replace(DEFAULT_SETTINGS, solid_line_margin=0))
    assert np.count_nonzero(hollow.ink[row, columns]) < 0.5 * (columns.stop - columns.start)


def test_each_band_points_down_through_its_chevron_and_none_is_a_diamond() -> None:
    page = binarise(_band_page(), WIDTH_PT, DEFAULT_SETTINGS)
    shapes = find_shapes(page, DEFAULT_SETTINGS)
    assert all(s.kind != "diamond" for s in shapes)
    bands = sorted((s for s in shapes if s.rect[2] - s.rect[0] > _px(300)), key=lambda s: s.rect[1])
    assert len(bands) == 3
    for band, (_, bottom) in zip(bands, BANDS, strict=True):
        assert band.pointer is not None and abs(band.pointer[0] - _px(200)) <= _px(3)
        assert abs(band.rect[3] - _px(bottom)) <= _px(4)  # the body, not the chevron
        assert band.pointer_base is not None and band.pointer_base[1] - band.pointer_base[0] < _px(60)
    cells = [s for s in shapes if s.rect[1] >= _px(HEADER[0]) - _px(4) and s.pointer is None]
    assert len(cells) == 3


def test_the_chevrons_chain_the_bands_and_the_last_enters_every_header_cell() -> None:
    page = binarise(_band_page(), WIDTH_PT, DEFAULT_SETTINGS)
    prims = PagePrimitives(1, WIDTH_PT, HEIGHT_PT, "ocr")
    for index, shape in enumerate(sorted(find_shapes(page, DEFAULT_SETTINGS), key=lambda s: (s.rect[1], s.rect[0]))):
        x0, y0, x1, y1 = (v / PPT for v in shape.rect)
        prims.shapes.append(Shape(tuple((x / PPT, y / PPT) for x, y in shape.outline()), BBox(x0, y0, x1, y1),
                                  False, True, shape.kind))
        prims.tokens.append(Token(f"box{index}", BBox(x0 + 8, y0 + 6, x0 + 40, y0 + 16), 10.0))
    layout = assemble(prims, DEFAULT_SETTINGS.pipeline_assembly)
    texts = ["".join(t.text for t in box.tokens) for box in layout.boxes]
    pairs = {(texts[s], texts[t]) for c in layout.connectors for s in c.sources for t in c.targets}
    assert pairs == {("box0", "box1"), ("box1", "box2"), ("box2", "box3"), ("box2", "box4"), ("box2", "box5")}
