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
    """A solid arrowhead in pixels: its outline (the smallest triangle around it) and bounding rectangle."""

    points: tuple[tuple[int, int], ...]
    rect: tuple[int, int, int, int]


@dataclass(frozen=True)
class Connectors:
    strokes: list[Stroke]
    heads: list[Head]
    line_mask: np.ndarray  # the strokes and heads found, to keep them out of the text OCR
    # every solid blob shaped like a head, near a stroke end or not (a slanted arrow's head has no straight
    # run beside it: the traced networks decide, see :func:`network_strokes`)
    head_blobs: tuple[tuple[Head, np.ndarray], ...] = ()


def outside_boxes(page: PageImage, shapes: list[FoundShape], words: list[Rect], settings: ScanSettings,
                  mask: np.ndarray | None = None) -> np.ndarray:
    """The ink (or ``mask``) that is not a box's inside, border or drop shadow, nor a word read outside the
    boxes."""
    ink = (page.ink if mask is None else mask).copy()
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
    own: from the box on one side of the head to the head, when a box lies just beyond the head's other side.
    A head between two boxes within reach of both enters the nearer one (its tip touches it, its base is a stem's
    length from the other: smog-43 "12 Lead ECG" at 300 dpi, whose outer border the head's tip touches)."""
    x0, y0, x1, y1 = rect
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    reach = settings.head_reach_pt * page.ppt
    gap = settings.stub_max_pt * page.ppt
    found: list[tuple[float, Stroke]] = []
    for s in shapes:
        # the head touches the box's outline: its cover, which holds an outer border line the box's inside lies
        # a few points within (smog-43 "500 ml bolus IVF" at 150 dpi: the head 4.3 pt above the inside)
        sx0, sy0, sx1, sy1 = (min(s.rect[0], s.cover[0]), min(s.rect[1], s.cover[1]), max(s.rect[2], s.cover[2]),
                              max(s.rect[3], s.cover[3]))
        if sx0 <= cx <= sx1 and 0 <= sy0 - y1 <= reach:  # head on top of a box: source above
            source = [o for o in shapes if o.rect[0] <= cx <= o.rect[2] and 0 <= y0 - o.rect[3] <= gap]
            if source:
                found.append((sy0 - y1, Stroke((cx, float(max(o.rect[3] for o in source))), (cx, float(y0)))))
        if sx0 <= cx <= sx1 and 0 <= y0 - sy1 <= reach:  # head under a box: source below
            source = [o for o in shapes if o.rect[0] <= cx <= o.rect[2] and 0 <= o.rect[1] - y1 <= gap]
            if source:
                found.append((y0 - sy1, Stroke((cx, float(min(o.rect[1] for o in source))), (cx, float(y1)))))
        if sy0 <= cy <= sy1 and 0 <= sx0 - x1 <= reach:  # head left of a box: source further left
            source = [o for o in shapes if o.rect[1] <= cy <= o.rect[3] and 0 <= x0 - o.rect[2] <= gap]
            if source:
                found.append((sx0 - x1, Stroke((float(max(o.rect[2] for o in source)), cy), (float(x0), cy))))
        if sy0 <= cy <= sy1 and 0 <= x0 - sx1 <= reach:  # head right of a box: source further right
            source = [o for o in shapes if o.rect[1] <= cy <= o.rect[3] and 0 <= o.rect[0] - x1 <= gap]
            if source:
                found.append((x0 - sx1, Stroke((float(min(o.rect[0] for o in source)), cy), (float(x1), cy))))
    return min(found, key=lambda item: item[0])[1] if found else None


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
    blobs: list[tuple[Head, np.ndarray]] = []
    line_mask = cv2.bitwise_or(level_mask, upright_mask)
    least, most = settings.head_min_pt * page.ppt, settings.head_max_pt * page.ppt
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if max(w, h) < least or max(w, h) > most or min(w, h) < settings.head_min_aspect * max(w, h):
            continue  # too small, too large, or a thick stretch of a stroke (a head is about as wide as long)
        rect = (x, y, x + w, y + h)
        # the smallest triangle around the blob: assembly reads its tip (the corner facing the shortest side)
        # to tell a head entering a box from one standing on a line just under the box it leaves
        _, triangle = cv2.minEnclosingTriangle(contour)
        blobs.append((Head(tuple((int(round(px)), int(round(py))) for px, py in triangle.reshape(-1, 2)), rect),
                      contour))
        if not _near_end(rect, strokes, settings.head_reach_pt * page.ppt):
            stub = _stub(rect, shapes, page, settings)
            if stub is None:
                continue
            strokes.append(stub)
        heads.append(blobs[-1][0])
        cv2.drawContours(line_mask, [contour], -1, 255, thickness=cv2.FILLED)
    return Connectors(strokes, heads, line_mask, tuple(blobs))


def _ray_to_box(end: PixelPoint, other: PixelPoint, shapes: list[FoundShape], reach: float) -> PixelPoint:
    """Where the line from ``other`` through ``end``, continued at most ``reach`` pixels, first enters a box
    (``end`` itself when it enters none or already lies in one)."""
    dx, dy = end[0] - other[0], end[1] - other[1]
    length = float(np.hypot(dx, dy))
    if length == 0:
        return end
    ux, uy = dx / length, dy / length
    best, best_t = end, reach
    for shape in shapes:
        x0, y0, x1, y1 = shape.rect
        low, high = 0.0, best_t  # slab intersection of the ray with the rectangle
        for start, step, lo, hi in ((end[0], ux, x0, x1), (end[1], uy, y0, y1)):
            if abs(step) < 1e-9:
                if not lo <= start <= hi:
                    low, high = 1.0, 0.0
                continue
            t0, t1 = sorted(((lo - start) / step, (hi - start) / step))
            low, high = max(low, t0), min(high, t1)
        if low <= high and low < best_t:
            best, best_t = (end[0] + ux * low, end[1] + uy * low), low
    return best


def _arms(lines: np.ndarray, contour: np.ndarray, page: PageImage, settings: ScanSettings) -> int:
    """How many lines leave a solid blob: the pieces of line ink in a thin ring around it (an arrowhead that
    ends a line has one; a joint, or a head drawn on a line running through, two or more)."""
    x, y, w, h = cv2.boundingRect(contour)
    outer = page.px(settings.head_ring_pt[1])
    inner = page.px(settings.head_ring_pt[0])
    x0, y0 = max(0, x - outer - 1), max(0, y - outer - 1)
    x1, y1 = min(lines.shape[1], x + w + outer + 1), min(lines.shape[0], y + h + outer + 1)
    blob = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(blob, [contour], -1, 255, thickness=cv2.FILLED, offset=(-x0, -y0))

    def grown(k: int) -> np.ndarray:
        return cv2.dilate(blob, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)))

    ring = cv2.bitwise_and(cv2.bitwise_and(grown(outer), cv2.bitwise_not(grown(inner))), lines[y0:y1, x0:x1])
    count, labels, stats, centres = cv2.connectedComponentsWithStats(ring, connectivity=8)
    # a line leaving the blob runs out through the ring; a speck near the blob that neither crosses half the ring
    # nor reaches its outer edge, standing across the blob from the line that does (a pixel of the border a head's
    # tip touches: smog-46 "Wide QRS?" at 300 dpi), is no second line; beside it, it may be a letter's piece (a bold
    # ``O`` blurred solid next to its ``R``), and counts
    away = cv2.distanceTransform(cv2.bitwise_not(blob), cv2.DIST_L2, 3)
    least = (outer - inner) / 2.0
    pieces = list(range(1, count))
    lines_out = [i for i in pieces
                 if max(stats[i][2], stats[i][3]) >= least or float(away[labels == i].max()) >= outer - 1]
    if len(lines_out) != 1:
        return len(pieces)
    moments = cv2.moments(blob, binaryImage=True)
    if moments["m00"] == 0:
        return len(pieces)
    middle = np.array([moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]])
    stem = centres[lines_out[0]] - middle

    def across(i: int) -> bool:
        way = centres[i] - middle
        norm = float(np.linalg.norm(way) * np.linalg.norm(stem))
        return norm > 0 and float(np.dot(way, stem)) / norm <= -0.5

    return 1 + sum(1 for i in pieces if i != lines_out[0] and not across(i))


def network_strokes(page: PageImage, shapes: list[FoundShape], words: list[Rect], found: Connectors,
                    settings: ScanSettings) -> tuple[list[Stroke], list[Head]]:
    """Connector strokes traced as networks (see :mod:`dkg.parsing.scan.network`) from the line ink outside
    the boxes (the straight runs found before, dash gaps closed, added back), with every loose end continued
    straight on to the box it stops short of; and the arrowheads: the solid blobs lying at a network's loose end
    (or between two boxes, where the stem was too short to find)."""
    from dkg.parsing.scan.network import trace_networks

    lines = outside_boxes(page, shapes, words, settings, cv2.bitwise_or(page.ink, found.line_mask))
    networks = trace_networks(lines, settings.line_min_pt * page.ppt, settings.network_tolerance_pt * page.ppt,
                              settings.network_spur_pt * page.ppt)
    reach = settings.attach_pt * page.ppt
    strokes: list[Stroke] = []
    # the loose ends (as zero-length strokes), where a head may sit
    loose: list[Stroke] = []
    for chains in networks:
        for chain in chains:
            points = list(chain.points)
            if chain.free_start:
                loose.append(Stroke(points[0], points[0]))
                points[0] = _ray_to_box(points[0], points[1], shapes, reach)
            if chain.free_end:
                loose.append(Stroke(points[-1], points[-1]))
                points[-1] = _ray_to_box(points[-1], points[-2], shapes, reach)
            strokes.extend(Stroke(a, b) for a, b in zip(points, points[1:], strict=False))
    heads: list[Head] = []
    pad = page.px(settings.box_clearance_pt)
    covers = [(c[0] - pad, c[1] - pad, c[2] + pad, c[3] + pad) for c in (s.cover for s in shapes)]
    for head, contour in found.head_blobs:
        hx0, hy0, hx1, hy1 = head.rect
        if any(cx0 <= hx0 and cy0 <= hy0 and hx1 <= cx1 and hy1 <= cy1 for cx0, cy0, cx1, cy1 in covers):
            continue  # a piece of a box's (outer) border, erased with the box
        if _arms(lines, contour, page, settings) > 1:
            # ink thickened where lines meet (a T-junction), or a head drawn on a line that runs on: it ends no
            # line, so it enters no box
            continue
        if not _near_end(head.rect, loose, settings.head_reach_pt * page.ppt):
            stub = _stub(head.rect, shapes, page, settings)
            if stub is None:
                continue
            strokes.append(stub)
        heads.append(head)
    return strokes, heads
