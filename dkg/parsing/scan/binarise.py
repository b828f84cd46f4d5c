"""Step 1: deskew the page image and split it into ink (strokes and text) and shaded fills."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from dkg.parsing.scan.settings import ScanSettings


@dataclass(frozen=True)
class PageImage:
    """A deskewed greyscale page, its ink and fill masks (255 = set) and its pixels per PDF point."""

    gray: np.ndarray
    ink: np.ndarray
    fill: np.ndarray
    faint: np.ndarray  # fills lighter than ``fill`` (the pale end of a graded fill)
    ppt: float
    skew_deg: float
    paper: int

    def px(self, points: float, least: int = 1) -> int:
        """``points`` as a whole number of pixels (at least ``least``)."""
        return max(least, int(round(points * self.ppt)))


def _odd(n: int) -> int:
    return n if n % 2 else n + 1


def binarise(gray: np.ndarray, width_pt: float, settings: ScanSettings) -> PageImage:
    """Deskew (the dominant angle of long near-axis lines), then threshold adaptively: a shaded box keeps its
    black text as ink and its grey fill as fill, whatever the paper tone and JPEG noise."""
    gray = np.ascontiguousarray(gray)
    skew = page_skew(gray, settings)
    if 0.05 <= abs(skew) <= settings.max_skew_deg:
        h, w = gray.shape
        matrix = cv2.getRotationMatrix2D((w / 2, h / 2), skew, 1.0)
        gray = cv2.warpAffine(gray, matrix, (w, h), flags=cv2.INTER_LINEAR, borderValue=255)
    else:
        skew = 0.0
    ppt = gray.shape[1] / width_pt
    block = _odd(max(3, int(round(settings.adaptive_block_pt * ppt))))
    smooth = cv2.medianBlur(gray, 5)
    ink = cv2.adaptiveThreshold(smooth, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY_INV, block,
                                settings.adaptive_offset)
    paper = int(np.percentile(smooth, settings.paper_percentile))
    tone = paper_tone(smooth, settings)
    if settings.solid_line_margin > 0:
        # the adaptive threshold leaves the middle of a thick dark line hollow (its pixels are no darker than
        # their neighbourhood): two thin lines with paper between them, each traced as a connector. A gap that
        # narrow between ink, itself dark, is ink; the pale counters of letters and a dark band's inside are not
        gap = max(3, int(round(settings.solid_line_gap_pt * ppt)))
        closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (gap, gap)))
        dark = (smooth.astype(np.int16) < tone - settings.solid_line_margin).astype(np.uint8)
        # only the core of a dark structure at least twice ``solid_line_core_pt`` thick: text and thin lines
        # keep the adaptive reading (blurred gaps between letters are dark too)
        core = cv2.distanceTransform(dark, cv2.DIST_L2, 3) >= settings.solid_line_core_pt * ppt
        ink = np.where(core & (closed > 0), 255, ink).astype(np.uint8)
    fill = ((smooth.astype(np.int16) < tone - settings.fill_margin).astype(np.uint8)) * 255
    faint = ((smooth.astype(np.int16) < tone - settings.faint_margin).astype(np.uint8)) * 255
    return PageImage(gray, ink, fill, faint, ppt, skew, paper)


def page_skew(gray: np.ndarray, settings: ScanSettings) -> float:
    """The page's skew in degrees: the dominant angle of the long near-axis lines (probabilistic Hough on a
    half-size copy; box borders and rules share the page's skew)."""
    import math

    from dkg.parsing.raster import dominant_angle

    small = cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    ink = ((small < 128).astype(np.uint8)) * 255
    min_len = max(small.shape) // 12
    lines = cv2.HoughLinesP(ink, 1, np.pi / 720, threshold=min_len // 2, minLineLength=min_len, maxLineGap=3)
    if lines is None:
        return 0.0
    angles: list[tuple[float, float]] = []
    for x1, y1, x2, y2 in lines.reshape(-1, 4):
        angle = math.degrees(math.atan2(y2 - y1, x2 - x1))
        for ref in (-180.0, -90.0, 0.0, 90.0, 180.0):
            if abs(angle - ref) < settings.max_skew_deg:
                angles.append((angle - ref, math.hypot(x2 - x1, y2 - y1)))
    return dominant_angle(angles) if angles else 0.0


def paper_tone(gray: np.ndarray, settings: ScanSettings) -> np.ndarray:
    """The local paper tone (a scan is darker towards its edges): the brightest grey level within a window
    wider than a box, computed on a reduced copy of the page."""
    factor = settings.background_reduction
    small = cv2.resize(gray, None, fx=1.0 / factor, fy=1.0 / factor, interpolation=cv2.INTER_AREA)
    k = _odd(max(3, int(settings.background_window * small.shape[1])))
    bright = cv2.dilate(small, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    bright = cv2.blur(bright, (k, k))
    return cv2.resize(bright, (gray.shape[1], gray.shape[0]), interpolation=cv2.INTER_LINEAR).astype(np.int16)
