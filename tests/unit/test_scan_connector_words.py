"""Connectors hidden by the scan pipeline's own reading (issue 16, smog-48 at 150-300 dpi): a free word whose box
tesseract stretched over the arrow beside it, an arrowhead read as a letter, and a box's outer border line that
makes the head touching it look like a joint."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from dkg.parsing.geometry import BBox
from dkg.parsing.models import Token
from dkg.parsing.scan.binarise import binarise
from dkg.parsing.scan.settings import DEFAULT_SETTINGS
from dkg.parsing.scan.shapes import FoundShape, cover_outer_borders
from dkg.parsing.scan.text import glyph_box, without_heads_read_as_letters
from tests.unit.scan_images import DrawingScale

SCALE = DrawingScale(300)
PPT = SCALE.ppt
WIDTH_PT, HEIGHT_PT = 200.0, 200.0


_px = SCALE.px


def _blank() -> np.ndarray:
    return SCALE.blank(WIDTH_PT, HEIGHT_PT)


def _arrow_down(img: np.ndarray, x: float, top: float, tip: float) -> None:
    """A 1 pt stem from ``top`` down to a solid 6 pt head whose tip is at ``tip`` (points)."""
    cx = _px(x)
    cv2.line(img, (cx, _px(top)), (cx, _px(tip - 6)), 20, _px(1))
    head = np.array([[cx - _px(3), _px(tip - 6)], [cx + _px(3), _px(tip - 6)], [cx, _px(tip)]], np.int32)
    cv2.fillPoly(img, [head], 20)


def test_a_free_word_boxed_with_the_arrow_beside_it_is_cut_down_to_its_letters() -> None:
    """smog-48: ``NO`` beside the arrow from "Rhythm Shockable?" down to "CPR 2 min" came out of tesseract as one
    word whose box covered the arrow, and the connector step never saw the arrow."""
    img = _blank()
    cv2.putText(img, "NO", (_px(60), _px(110)), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 20, 3)
    _arrow_down(img, 90, 80, 125)
    page = binarise(img, WIDTH_PT, DEFAULT_SETTINGS)
    word = Token("NO", BBox(58, 78, 94, 127), 10.0)  # the box tesseract gave: letters and arrow
    tight = glyph_box(word, page, DEFAULT_SETTINGS)
    assert tight.text == "NO"
    assert tight.bbox.x1 < 86  # the arrow at x = 90 is no longer under the word
    assert 58 <= tight.bbox.x0 and 96 <= tight.bbox.top * 1.0 + 1 and tight.bbox.bottom <= 112
    off = dataclasses.replace(DEFAULT_SETTINGS, free_line_ratio=0.0)
    assert glyph_box(word, page, off).bbox == word.bbox


def test_a_free_word_boxed_with_a_level_arrow_is_cut_down_but_one_with_a_head_on_its_letters_is_not() -> None:
    """smog-50: ``NO`` with the arrow leaving it to the left (``<—NO—``) was one word; smog-46: the last letters of
    ``unstable`` under the head of the arrow pointing at it are one ink piece with the arrow, and stay the word's."""
    img = _blank()
    cv2.putText(img, "NO", (_px(80), _px(60)), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 20, 3)
    cv2.line(img, (_px(50), _px(55)), (_px(76), _px(55)), 20, _px(1))  # the arrow's shaft, left of the word
    tip = np.array([[_px(44), _px(55)], [_px(50), _px(52)], [_px(50), _px(58)]], np.int32)
    cv2.fillPoly(img, [tip], 20)
    cv2.putText(img, "stable", (_px(60), _px(120)), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 20, 3)
    end = _px(60) + cv2.getTextSize("stable", cv2.FONT_HERSHEY_SIMPLEX, 1.2, 3)[0][0]
    cv2.line(img, (end + _px(2), _px(116)), (end + _px(40), _px(116)), 20, _px(1))  # an arrow from the right ...
    onto = np.array([[end - _px(9), _px(116)], [end + _px(3), _px(112)], [end + _px(3), _px(120)]], np.int32)
    cv2.fillPoly(img, [onto], 20)  # ... whose head lies on the word's last letter
    page = binarise(img, WIDTH_PT, DEFAULT_SETTINGS)
    word = Token("NO", BBox(43, 49, 100, 62), 10.0)
    tight = glyph_box(word, page, DEFAULT_SETTINGS)
    assert tight.bbox.x0 > 76 and tight.bbox.x1 >= 88  # the letters only, not the arrow left of them
    glued = Token("stable", BBox(59, 108, end / PPT + 12, 122), 10.0)
    assert glyph_box(glued, page, DEFAULT_SETTINGS).bbox == glued.bbox


def test_a_word_of_letters_only_keeps_its_box() -> None:
    img = _blank()
    cv2.putText(img, "YES", (_px(60), _px(110)), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 20, 3)
    page = binarise(img, WIDTH_PT, DEFAULT_SETTINGS)
    word = Token("YES", BBox(58, 96, 110, 113), 10.0)
    assert glyph_box(word, page, DEFAULT_SETTINGS).bbox == word.bbox


def test_an_arrowhead_read_as_a_letter_is_dropped_and_a_bold_digit_kept() -> None:
    """smog-48: the short arrow between "Consider advanced airway" and the "Rhythm Shockable?" under it read
    ``v``; the word's box hid the arrow. A bold ``4`` of a dose label survives the head opening too, but it fills
    its box's height and has no stem beside it."""
    img = _blank()
    _arrow_down(img, 60, 60, 80)
    cv2.putText(img, "4", (_px(120), _px(80)), cv2.FONT_HERSHEY_SIMPLEX, 1.4, 20, 9)
    page = binarise(img, WIDTH_PT, DEFAULT_SETTINGS)
    head_word = Token("v", BBox(57.4, 60, 62.9, 81), 10.0)  # tesseract's box: stem and head
    digit = Token("4", BBox(119, 65, 129, 81), 10.0)
    label = Token("NO", BBox(150, 65, 170, 81), 10.0)
    kept = without_heads_read_as_letters([head_word, digit, label], page, [], DEFAULT_SETTINGS)
    assert [t.text for t in kept] == ["4", "NO"]
    off = dataclasses.replace(DEFAULT_SETTINGS, free_head_max_chars=0)
    assert len(without_heads_read_as_letters([head_word, digit, label], page, [], off)) == 3


def test_a_boxs_outer_border_line_is_erased_with_the_box() -> None:
    """smog-48's grey boxes have a light outer line about 2.5 pt above the hole found as the box; the arrow into
    the box touches it (two runs, broken by the head), so the head counted two lines leaving it and was no head."""
    page = binarise(_blank(), WIDTH_PT, DEFAULT_SETTINGS)
    box = FoundShape((_px(40), _px(100), _px(140), _px(120)), "rect", (), True, (_px(40), _px(100), _px(140), _px(120)))
    above = _px(97.5)
    level = [(float(above), float(_px(41)), float(_px(86))), (float(above), float(_px(93)), float(_px(139)))]
    (covered,) = cover_outer_borders([box], level, [], page, DEFAULT_SETTINGS)
    assert covered.cover[1] <= above and covered.rect == box.rect
    # a line further off, or one running on well past the box (a bus over a row of boxes), is a connector
    far = [(float(_px(90)), float(_px(41)), float(_px(139)))]
    bus = [(float(above), float(_px(10)), float(_px(190)))]
    short = [(float(above), float(_px(41)), float(_px(86)))]  # along less than ``outer_border_cover`` of the side
    for runs in (far, bus, short):
        assert cover_outer_borders([box], runs, [], page, DEFAULT_SETTINGS)[0].cover == box.cover
    off = dataclasses.replace(DEFAULT_SETTINGS, outer_border_pt=0.0)
    assert cover_outer_borders([box], level, [], page, off)[0].cover == box.cover


def test_a_solid_piece_of_a_boxs_erased_border_is_no_arrowhead() -> None:
    """smog-41: the heavy frame of the Pearls panel, once erased with the panel (its outer line), left solid pieces
    that passed for heads between it and the box above, each given a stem from that box: a stray edge. A head
    lying wholly in a box's erased cover (``box_clearance_pt`` round it) is part of the box; a head standing above
    the box, with its stem from the box over it, is kept."""
    from dkg.parsing.scan.connectors import Connectors, Head, network_strokes

    page = binarise(_blank(), WIDTH_PT, DEFAULT_SETTINGS)
    upper = FoundShape((_px(40), _px(40), _px(140), _px(84)), "rect", (), False, (_px(40), _px(40), _px(140), _px(84)))
    lower = FoundShape((_px(40), _px(100), _px(140), _px(140)), "rect", (), False,
                       (_px(40), _px(97), _px(140), _px(140)))

    def blob(x: float, top: float, bottom: float) -> tuple[Head, np.ndarray]:
        points = ((_px(x - 3), _px(top)), (_px(x + 3), _px(top)), (_px(x), _px(bottom)))
        contour = np.array(points, np.int32).reshape(-1, 1, 2)
        return Head(points, (_px(x - 3), _px(top), _px(x + 3), _px(bottom))), contour

    in_border = blob(60, 96.5, 98.5)  # a frame piece inside the lower box's cover (its outer border line)
    arrow = blob(100, 90, 97)  # a head standing on the lower box's outer border, stem lost
    found = Connectors([], [], np.zeros_like(page.ink), (in_border, arrow))
    _, heads = network_strokes(page, [upper, lower], [], found, DEFAULT_SETTINGS)
    assert [h.rect for h in heads] == [arrow[0].rect]


def test_a_speck_at_a_heads_tip_is_no_second_line_leaving_it() -> None:
    """smog-46 at 300 dpi: the tip of the head entering "Wide QRS?" touched one pixel of the box's pale outer
    border; counted as a second line leaving the head, it made the head a joint, and the fan-out lost its arrow.
    Only a speck across the blob from its stem is ignored: beside it (smog-41 at 150 dpi, a bold ``O`` blurred
    solid, its ``R`` next to it) it is counted."""
    from dkg.parsing.scan.connectors import _arms

    page = binarise(_blank(), WIDTH_PT, DEFAULT_SETTINGS)
    lines = np.zeros_like(page.ink)
    cx = _px(100)
    cv2.line(lines, (cx, _px(60)), (cx, _px(90)), 255, _px(1))  # the stem
    head = np.array([[cx - _px(3), _px(90)], [cx + _px(3), _px(90)], [cx, _px(96)]], np.int32)
    cv2.fillPoly(lines, [head], 255)
    contour = head.reshape(-1, 1, 2)
    assert _arms(lines, contour, page, DEFAULT_SETTINGS) == 1
    lines[_px(96) + _px(1.2), cx] = 255  # one pixel of a border in the ring, below the tip
    assert _arms(lines, contour, page, DEFAULT_SETTINGS) == 1
    beside = lines.copy()
    beside[_px(96) + _px(1.2), cx] = 0
    beside[_px(93), cx + _px(3) + _px(1.2)] = 255  # a speck beside the blob (a letter's piece) still counts
    assert _arms(beside, contour, page, DEFAULT_SETTINGS) == 2
    cv2.line(lines, (cx, _px(96)), (cx, _px(110)), 255, _px(1))  # a line running on through the head
    assert _arms(lines, contour, page, DEFAULT_SETTINGS) == 2


def test_a_short_arrows_head_reaches_a_box_by_its_outer_border() -> None:
    """smog-43 at 150 dpi: the head over "500 ml bolus IVF" stopped on the box's outer border, 4.3 pt above the inside
    found as the box: measured to the inside it was too far off to be given its stem from the box above."""
    from dkg.parsing.scan.connectors import _stub

    page = binarise(_blank(), WIDTH_PT, DEFAULT_SETTINGS)
    above = FoundShape((_px(40), _px(40), _px(140), _px(80)), "rect", (), False, (_px(40), _px(40), _px(140), _px(80)))
    inside = (_px(40), _px(100), _px(140), _px(140))
    head = (_px(97), _px(88), _px(103), _px(95.7))  # 4.3 pt above the inside, on the outer border at 96
    bare = FoundShape(inside, "rect", (), True, inside)
    assert _stub(head, [above, bare], page, DEFAULT_SETTINGS) is None
    bordered = dataclasses.replace(bare, cover=(inside[0], _px(96), inside[2], inside[3]))
    stub = _stub(head, [above, bordered], page, DEFAULT_SETTINGS)
    assert stub is not None and stub.a[1] == _px(80) and stub.b[1] == _px(88)


def test_a_head_within_reach_of_two_stacked_boxes_enters_the_nearer_one() -> None:
    """smog-43 at 300 dpi: the head between "Aspirin ..." and "12 Lead ECG" lay within reach of both; taken as
    standing under the upper box, it was given a stem from the lower one, and the arrow ran backwards too."""
    from dkg.parsing.scan.connectors import _stub

    page = binarise(_blank(), WIDTH_PT, DEFAULT_SETTINGS)
    upper = FoundShape((_px(40), _px(40), _px(140), _px(80)), "rect", (), False, (_px(40), _px(40), _px(140), _px(80)))
    lower = FoundShape((_px(40), _px(92), _px(140), _px(130)), "rect", (), False,
                       (_px(40), _px(92), _px(140), _px(130)))
    head = (_px(97), _px(82.5), _px(103), _px(91.5))  # 2.5 pt under the upper box, its tip 0.5 pt over the lower
    stub = _stub(head, [upper, lower], page, DEFAULT_SETTINGS)
    assert stub is not None and stub.a[1] == _px(80) and stub.b[1] == _px(82.5)  # from the upper box down
    stub = _stub(head, [lower, upper], page, DEFAULT_SETTINGS)  # whatever the order the boxes come in
    assert stub is not None and stub.a[1] == _px(80)
