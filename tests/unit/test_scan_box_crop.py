"""A box's crop before OCR and its word table after (``dkg.parsing.scan.text``): an arrow running into the crop is
painted over, a closing sign read as a word of its own is joined to the word before it."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from dkg.parsing.scan import text as scan_text
from dkg.parsing.scan.binarise import binarise
from dkg.parsing.scan.settings import DEFAULT_SETTINGS
from tests.unit.scan_images import DrawingScale, as_scanned

SCALE = DrawingScale(300)
_px = SCALE.px


def _crop_with_arrow() -> np.ndarray:
    """A box's crop (grey fill) 120 × 50 pt: an arrow from its top edge (a 1 pt stem 4 pt long, a solid head 6 pt
    wide) pointing at a line of bold text whose tall letters (``h``, ``k``) reach the crop's top edge further right,
    as a tight crop leaves them (smog-43 "Hypotension / Shock?" at 300 dpi, the head read ``v``)."""
    img = SCALE.blank(120, 50, grey=215)
    cx = _px(20)
    cv2.line(img, (cx, 0), (cx, _px(4)), 20, _px(1))
    head = np.array([[cx - _px(3), _px(4)], [cx + _px(3), _px(4)], [cx, _px(9)]], np.int32)
    cv2.fillPoly(img, [head], 20)
    cv2.putText(img, "Shock", (_px(50), _px(13)), cv2.FONT_HERSHEY_SIMPLEX, 1.9, 20, 7)
    cv2.putText(img, "Hypotension", (_px(8), _px(40)), cv2.FONT_HERSHEY_SIMPLEX, 1.9, 20, 7)
    return as_scanned(img, seed=7, noise_sd=4)


def test_an_arrow_running_into_a_box_crop_is_painted_over_and_letters_at_its_edge_are_kept() -> None:
    img = _crop_with_arrow()
    page = binarise(img, img.shape[1] / SCALE.ppt, DEFAULT_SETTINGS)
    h, w = img.shape
    assert page.ink[:_px(12), _px(50):].any(), "the drawing should put the tall letters' ink at the crop's top edge"
    out = scan_text.without_edge_arrows(page.gray, page.ink, (0, 0, w, h), page, DEFAULT_SETTINGS)
    head = (slice(_px(4), _px(8)), slice(_px(19), _px(21)))
    assert int(out[head].min()) > 150, "the arrow's head should be painted over with the fill"
    text = page.ink > 0
    text[:, : _px(30)] = False
    assert np.array_equal(out[text], page.gray[text]), "the text's letters, the tall ones too, should be kept"
    off = dataclasses.replace(DEFAULT_SETTINGS, edge_arrows=False)
    assert float(scan_text.without_edge_arrows(page.gray, page.ink, (0, 0, w, h), page, off)[head].mean()) < 100


def test_a_closing_sign_read_as_a_word_of_its_own_is_joined_to_the_word_before_it() -> None:
    # smog-48 "Rhythm Shockable?" at 300 dpi: tesseract split the question mark off as a word of its own
    table = {"text": ["Rhythm", "Shockable", "?", "Confirm", "in", "two", "leads"], "conf": [93.0] * 7,
             "left": [0, 70, 172, 0, 80, 110, 150], "top": [0, 0, 0, 30, 30, 30, 30],
             "width": [60, 95, 10, 70, 20, 30, 50], "height": [20] * 7, "line_num": [1, 1, 1, 2, 2, 2, 2],
             "block_num": [1] * 7, "par_num": [1] * 7}
    words = [t.text for t in scan_text.words_to_tokens(table, (0, 0), 1.0, 10.0, DEFAULT_SETTINGS,
                                                       inner_bar_is_i=True) if t.text.strip()]
    assert words == ["Rhythm", "Shockable?", "Confirm", "in", "two", "leads"]
    off = dataclasses.replace(DEFAULT_SETTINGS, closing_signs="")
    words = [t.text for t in scan_text.words_to_tokens(table, (0, 0), 1.0, 10.0, off, inner_bar_is_i=True)
             if t.text.strip()]
    assert words[:3] == ["Rhythm", "Shockable", "?"]


def test_a_bullet_read_with_little_confidence_is_a_bullet_where_a_dot_stands() -> None:
    # smog-43 at 150 dpi: the second line's bullet read ``¢`` with confidence 7 (below ``min_box_conf``), the first
    # line's not read at all; both lines have a solid dot before their first word
    ink = np.zeros((50, 120), np.uint8)
    ink[8:12, 2:6] = 255
    ink[33:37, 2:6] = 255
    table = {"text": ["Do", "not", "\u00a2", "Move", "to"], "conf": [96.0, 96.0, 7.0, 96.0, 96.0],
             "left": [10, 30, 1, 10, 50], "top": [4, 4, 31, 29, 29], "width": [15, 20, 6, 30, 15],
             "height": [10, 10, 8, 10, 10], "block_num": [1] * 5, "par_num": [1] * 5, "line_num": [1, 1, 2, 2, 2]}
    out = scan_text.unread_bullets(table, ink, 0, DEFAULT_SETTINGS)
    words = [t.text for t in scan_text.words_to_tokens(out, (0, 0), 1.0, DEFAULT_SETTINGS.min_box_conf,
                                                       DEFAULT_SETTINGS, inner_bar_is_i=True) if t.text.strip()]
    assert words == ["\u2022", "Do", "not", "\u2022", "Move", "to"]
