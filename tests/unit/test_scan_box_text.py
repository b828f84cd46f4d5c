"""Boxes on scanned pages: tesseract's word table turned into box tokens (``dkg.parsing.scan.text``) and graded
boxes stacked edge to edge found as two (``dkg.parsing.scan.shapes``)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from dkg.parsing.scan import text as scan_text
from dkg.parsing.scan.binarise import binarise
from dkg.parsing.scan.settings import DEFAULT_SETTINGS, ScanSettings
from dkg.parsing.scan.shapes import find_shapes
from tests.unit.scan_images import DrawingScale


def _word_table(words: list[tuple[str, int, int]]) -> dict[str, list[object]]:
    """A tesseract word table: (text, left, line) per word, every word 20 px wide, confidently read."""
    return {"text": [w[0] for w in words], "conf": [93.0] * len(words), "left": [w[1] for w in words],
            "top": [30 * w[2] for w in words], "width": [20] * len(words), "height": [20] * len(words),
            "line_num": [w[2] for w in words], "block_num": [1] * len(words), "par_num": [1] * len(words)}


def test_a_bar_between_two_words_of_a_box_line_is_a_capital_i_and_a_bar_at_a_line_end_a_border() -> None:
    # every word 20 px wide and tall: line 1 has a bar between two words and one ending it, line 2 opens with a
    # bar a word gap (5 px) before its next word, line 3 with a bar 30 px before it (a border remnant)
    table = _word_table([("2°", 0, 1), ("type", 30, 1), ("|", 60, 1), ("(PR", 90, 1), ("gets", 120, 1),
                         ("|", 150, 1), ("|", 0, 2), ("AVB", 25, 2), ("|", 0, 3), ("QRS", 50, 3)])
    inside = [t.text for t in scan_text.words_to_tokens(table, (0, 0), 1.0, 10.0, inner_bar_is_i=True)
              if t.text.strip()]
    assert inside == ["2°", "type", "I", "(PR", "gets", "I", "AVB", "QRS"]
    # outside a box (sparse text: a connector may pass between two labels) every lone bar is dropped
    outside = [t.text for t in scan_text.words_to_tokens(table, (0, 0), 1.0, 10.0) if t.text.strip()]
    assert outside == ["2°", "type", "(PR", "gets", "AVB", "QRS"]


SCALE = DrawingScale(300)
PPT = SCALE.ppt


_px = SCALE.px


def _stacked_graded_boxes(white_band: bool = False) -> np.ndarray:
    """One outline around two graded fills stacked edge to edge with no border between them (smog-48 "CPR 2 min"
    on "IV / IO access" at 200 dpi: the thin shared border is lost, the dark foot of the upper fill meets the
    light head of the lower one at 60 pt); with ``white_band`` instead one dark box with a band of white text
    across its middle, which is no step. Blurred, noisy, JPEG-compressed."""
    img = np.full((_px(120), _px(200)), 246, np.uint8)
    x0, x1 = _px(40), _px(160)
    top, mid, bottom = _px(30), _px(60), _px(90)
    for y in range(top, bottom):
        if white_band:
            img[y, x0:x1] = 90
        else:
            start = top if y < mid else mid
            img[y, x0:x1] = int(232 - 42 * (y - start) / (mid - top))  # 232 at each box's top, 190 at its foot
    if white_band:
        img[_px(52):_px(68), x0 + _px(10):x1 - _px(10)] = 235
    else:
        cv2.putText(img, "CPR 2 min", (x0 + _px(12), top + _px(20)), cv2.FONT_HERSHEY_SIMPLEX, 1.5, 0, 4)
        cv2.putText(img, "IV access", (x0 + _px(12), mid + _px(20)), cv2.FONT_HERSHEY_SIMPLEX, 1.5, 0, 4)
    cv2.rectangle(img, (x0, top), (x1, bottom), 60, 3)
    img = cv2.GaussianBlur(img, (0, 0), 1.5)
    rng = np.random.default_rng(3)
    img = np.clip(img.astype(np.int16) + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 60])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)


def _box_rows(image: np.ndarray, settings: ScanSettings) -> list[tuple[float, float]]:
    page = binarise(image, image.shape[1] / PPT, settings)
    found = [s for s in find_shapes(page, settings) if s.rect[2] - s.rect[0] > _px(100)]
    return sorted((s.rect[1] / PPT, s.rect[3] / PPT) for s in found)


def test_graded_boxes_stacked_edge_to_edge_without_a_border_between_are_two_boxes() -> None:
    rows = _box_rows(_stacked_graded_boxes(), DEFAULT_SETTINGS)
    assert len(rows) == 2, rows
    (top, upper_end), (lower_start, bottom) = rows
    # cut where the dark foot meets the light head, each part reaching a border (1 pt) past the cut
    assert abs((upper_end + lower_start) / 2 - 60) <= 1.5 and upper_end - lower_start == pytest.approx(2.0, abs=0.3)
    assert top < 31 and bottom > 89
    # the rule switched off: one box across both
    assert len(_box_rows(_stacked_graded_boxes(), dataclasses.replace(DEFAULT_SETTINGS, stack_step_grey=0))) == 1


def test_a_light_band_across_a_dark_box_is_no_step() -> None:
    assert len(_box_rows(_stacked_graded_boxes(white_band=True), DEFAULT_SETTINGS)) == 1


def test_a_pictogram_read_as_a_letter_is_dropped_but_a_letter_of_text_height_kept() -> None:
    words_to_tokens = scan_text.words_to_tokens
    # cbrn-12: the biohazard sign after "Criteria Met for Potential Bioincident" read "A" (88 px, confidence 96)
    def table(height_of_a: int) -> dict[str, list[object]]:
        words = [("Criteria", 34), ("Met", 30), ("for", 35), ("Potential", 34), ("Bioincident", 34),
                 ("A", height_of_a)]
        lefts = [0, 120, 180, 240, 380, 560]
        return {"text": [w for w, _ in words], "conf": [96.0] * 6, "left": lefts, "top": [0] * 6,
                "width": [100, 50, 50, 130, 170, 80], "height": [h for _, h in words],
                "block_num": [1] * 6, "par_num": [1] * 6, "line_num": [1] * 6}

    def words(height_of_a: int) -> list[str]:
        tokens = words_to_tokens(table(height_of_a), (0, 0), 1.0, min_conf=10.0, settings=ScanSettings())
        return [t.text for t in tokens if t.text.strip()]

    assert words(88) == ["Criteria", "Met", "for", "Potential", "Bioincident"]
    assert words(34)[-1] == "A"
    kept = words_to_tokens(table(88), (0, 0), 1.0, min_conf=10.0,
                           settings=ScanSettings(pictogram_height_ratio=0.0))
    assert [t.text for t in kept if t.text.strip()][-1] == "A"
