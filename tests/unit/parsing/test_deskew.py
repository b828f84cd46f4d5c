"""Page skew from the raster's long straight lines (OpenCV only, no OCR)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from dkg.parsing.raster import deskew, dominant_angle


def _line(image: np.ndarray, x: int, y: int, length: int, degrees: float) -> None:
    dx, dy = length * math.cos(math.radians(degrees)), length * math.sin(math.radians(degrees))
    cv2.line(image, (x, y), (int(x + dx), int(y + dy)), 0, 3)


def test_the_skew_is_the_one_most_line_length_agrees_with() -> None:
    # five sloped connectors outnumber two rules, but not in length
    assert dominant_angle([(1.0, 1000.0), (1.1, 800.0), (3.0, 400.0), (3.2, 400.0), (2.9, 400.0), (3.1, 300.0),
                           (2.95, 300.0)]) == 1.05
    assert dominant_angle([(-0.5, 100.0)]) == -0.5
    # lines that agree keep their median
    assert dominant_angle([(0.4, 100.0), (0.5, 900.0), (0.55, 300.0)]) == 0.5


def test_sloped_connectors_do_not_tilt_a_page_whose_rules_and_borders_agree() -> None:
    page = np.full((1600, 1600), 255, np.uint8)
    for y in (100, 1500):  # header and footer rules, skewed 1 degree
        _line(page, 100, y, 1400, 1.0)
    for x in (300, 900):  # two box borders, skewed with them
        _line(page, x, 400, 300, 91.0)
    for y in range(500, 1400, 150):  # six connectors drawn sloped between boxes at different heights
        _line(page, 200, y, 500, 3.0)
    _, angle = deskew(page)
    assert abs(angle - 1.0) <= 0.2
