"""Step 3: connector strokes and arrowheads from the ink outside the boxes."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from dkg.parsing.scan.binarise import PageImage
from dkg.parsing.scan.settings import ScanSettings
from dkg.parsing.scan.shapes import FoundShape, Rect

PixelPoint = tuple[float, float]


@dataclass(frozen=True)
class Stroke:
    """A straight connector stroke in pixels."""

    a: PixelPoint
    b: PixelPoint


@dataclass(frozen=True)
class Head:
    """A solid arrowhead in pixels: its outline (convex hull) and bounding rectangle."""

    points: tuple[tuple[int, int], ...]
    rect: tuple[int, int, int, int]


@dataclass(frozen=True)
class Connectors:
    strokes: list[Stroke]
    heads: list[Head]
    line_mask: np.ndarray  # the strokes and heads found, to keep them out of the text OCR


def outside_boxes(page: PageImage, shapes: list[FoundShape], words: list[Rect], settings: ScanSettings
                  ) -> np.ndarray:
    """The ink that is not a box's inside, border or drop shadow, nor a word read outside the boxes."""
    ink = page.ink.copy()
    pad = page.px(settings.box_clearance_pt)
    h, w = ink.shape
    for shape in shapes:
        x0, y0, x1, y1 = shape.cover
        ink[max(0, y0 - pad): min(h, y1 + pad), max(0, x0 - pad): min(w, x1 + pad)] = 0
    for x0, y0, x1, y1 in words:
        ink[max(0, y0): min(h, y1), max(0, x0): min(w, x1)] = 0
    return ink


def _runs(ink: np.ndarray, page: PageImage, settings: ScanSettings, horizontal: bool
          ) -> tuple[list[Stroke], np.ndarray]:
    """Straight runs along one axis: close dash gaps along the axis, open with a long thin kernel."""
    length = page.px(settings.line_min_pt, 3)
    gap = page.px(settings.dash_gap_pt, 1)
    close_k = (gap, 1) if horizontal else (1, gap)
    open_k = (length, 1) if horizontal else (1, length)
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, close_k))
    runs = cv2.morphologyEx(closed, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, open_k))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(runs, connectivity=8)
    thick = settings.line_max_thickness_pt * page.ppt
    strokes: list[Stroke] = []
    keep = np.zeros(count, dtype=np.uint8)
    for label in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[label])
        across = area / float(max(1, w if horizontal else h))  # mean thickness
        if across > thick:
            continue
        if horizontal:
            cy = y + h / 2.0
            strokes.append(Stroke((float(x), cy), (float(x + w - 1), cy)))
        else:
            cx = x + w / 2.0
            strokes.append(Stroke((cx, float(y)), (cx, float(y + h - 1))))
        keep[label] = 255
    return strokes, keep[labels]


def _near_end(rect: tuple[int, int, int, int], strokes: list[Stroke], reach: float) -> bool:
    x0, y0, x1, y1 = rect
    for stroke in strokes:
        for px, py in (stroke.a, stroke.b):
            dx = max(x0 - px, 0.0, px - x1)
            dy = max(y0 - py, 0.0, py - y1)
            if dx * dx + dy * dy <= reach * reach:
                return True
    return False


def _stub(rect: Rect, shapes: list[FoundShape], page: PageImage, settings: ScanSettings) -> Stroke | None:
    """The stem of a short arrow between two stacked or side-by-side boxes, too short to be a stroke of its
    own: from the box on one side of the head to the head, when a box lies just beyond the head's other side."""
    x0, y0, x1, y1 = rect
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    reach = settings.head_reach_pt * page.ppt
    gap = settings.stub_max_pt * page.ppt
    for s in shapes:
        sx0, sy0, sx1, sy1 = s.rect
        if sx0 <= cx <= sx1 and 0 <= sy0 - y1 <= reach:  # head on top of a box: source above
            source = [o for o in shapes if o.rect[0] <= cx <= o.rect[2] and 0 <= y0 - o.rect[3] <= gap]
            if source:
                return Stroke((cx, float(max(o.rect[3] for o in source))), (cx, float(y0)))
        if sx0 <= cx <= sx1 and 0 <= y0 - sy1 <= reach:  # head under a box: source below
            source = [o for o in shapes if o.rect[0] <= cx <= o.rect[2] and 0 <= o.rect[1] - y1 <= gap]
            if source:
                return Stroke((cx, float(min(o.rect[1] for o in source))), (cx, float(y1)))
        if sy0 <= cy <= sy1 and 0 <= sx0 - x1 <= reach:  # head left of a box: source further left
            source = [o for o in shapes if o.rect[1] <= cy <= o.rect[3] and 0 <= x0 - o.rect[2] <= gap]
            if source:
                return Stroke((float(max(o.rect[2] for o in source)), cy), (float(x0), cy))
        if sy0 <= cy <= sy1 and 0 <= x0 - sx1 <= reach:  # head right of a box: source further right
            source = [o for o in shapes if o.rect[1] <= cy <= o.rect[3] and 0 <= o.rect[0] - x1 <= gap]
            if source:
                return Stroke((float(min(o.rect[0] for o in source)), cy), (float(x1), cy))
    return None


def reach_boxes(strokes: list[Stroke], shapes: list[FoundShape], reach: float) -> list[Stroke]:
    """Extend each stroke end that stops short of a box (its border and shadow were erased with the box) to
    the box's side, when the box lies within ``reach`` pixels straight ahead."""

    def extend(end: PixelPoint, other: PixelPoint) -> PixelPoint:
        x, y = end
        level = abs(end[1] - other[1]) < abs(end[0] - other[0])
        best: PixelPoint = end
        best_gap = reach
        for shape in shapes:
            x0, y0, x1, y1 = shape.rect
            if level and y0 <= y <= y1:
                gap, to = ((x0 - x, (float(x0), y)) if end[0] >= other[0] else (x - x1, (float(x1), y)))
            elif not level and x0 <= x <= x1:
                gap, to = ((y0 - y, (x, float(y0))) if end[1] >= other[1] else (y - y1, (x, float(y1))))
            else:
                continue
            if 0 <= gap <= best_gap:
                best, best_gap = to, gap
        return best

    return [Stroke(extend(s.a, s.b), extend(s.b, s.a)) for s in strokes]


def find_connectors(page: PageImage, shapes: list[FoundShape], words: list[Rect], settings: ScanSettings
                    ) -> Connectors:
    """Horizontal and vertical strokes (flowchart connectors are drawn along the axes once the page is
    deskewed), and solid heads: what survives an opening wider than a stroke, near a stroke's end."""
    ink = outside_boxes(page, shapes, words, settings)
    level, level_mask = _runs(ink, page, settings, horizontal=True)
    upright, upright_mask = _runs(ink, page, settings, horizontal=False)
    strokes = level + upright
    k = page.px(settings.head_open_pt, 3)
    solid = cv2.morphologyEx(ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contours, _ = cv2.findContours(solid, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    heads: list[Head] = []
    line_mask = cv2.bitwise_or(level_mask, upright_mask)
    least, most = settings.head_min_pt * page.ppt, settings.head_max_pt * page.ppt
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if max(w, h) < least or max(w, h) > most or min(w, h) < settings.head_min_aspect * max(w, h):
            continue  # too small, too large, or a thick stretch of a stroke (a head is about as wide as long)
        rect = (x, y, x + w, y + h)
        if not _near_end(rect, strokes, settings.head_reach_pt * page.ppt):
            stub = _stub(rect, shapes, page, settings)
            if stub is None:
                continue
            strokes.append(stub)
        hull = cv2.convexHull(contour).reshape(-1, 2)
        heads.append(Head(tuple((int(px), int(py)) for px, py in hull), rect))
        cv2.drawContours(line_mask, [contour], -1, 255, thickness=cv2.FILLED)
    return Connectors(strokes, heads, line_mask)
