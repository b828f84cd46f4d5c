"""Step 2: boxes — the insides of outlined shapes (contour holes) and solid shaded regions (fills)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from dkg.parsing.scan.binarise import PageImage
from dkg.parsing.scan.settings import ScanSettings

Rect = tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels (x1, y1 exclusive)


@dataclass(frozen=True)
class FoundShape:
    """One box candidate in pixels: its rectangle, kind (rect, rounded, diamond), corner points, whether it
    was found as a shaded fill, and the area it covers with its border and shadow (erased before connectors)."""

    rect: Rect
    kind: str
    points: tuple[tuple[int, int], ...]
    filled: bool
    cover: Rect
    pointer: tuple[int, int] | None = None  # the tip of a chevron the outline runs on into, below the box
    pointer_base: tuple[int, int] | None = None  # left and right x where the chevron leaves the box's bottom

    def outline(self) -> tuple[tuple[int, int], ...]:
        """The shape's corners; a box with a chevron as the polygon of its body and the chevron (the assembly
        reads it as a box with a pointer, the same for both routes)."""
        x0, y0, x1, y1 = self.rect
        if self.pointer is None or self.pointer_base is None:
            return self.points or ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
        left, right = self.pointer_base
        return ((x0, y0), (x1, y0), (x1, y1), (right, y1), self.pointer, (left, y1), (x0, y1))

    def chevron_area(self, pad: int) -> tuple[tuple[int, int], ...] | None:
        """The chevron's triangle grown by ``pad`` pixels on every side (its outline, beyond its inside), blanked
        before the OCR of the box it reaches into; None without a chevron. Not its bounding rectangle: the words
        of a band under the tip stand beside it (cbrn-12 ``Agent Criteria``)."""
        if self.pointer is None or self.pointer_base is None:
            return None
        from shapely import Polygon

        left, right = self.pointer_base
        bottom = self.rect[3]
        grown = Polygon([(left, bottom), (right, bottom), self.pointer]).buffer(pad, join_style="mitre",
                                                                               mitre_limit=3.0)
        return tuple((int(round(x)), int(round(y))) for x, y in grown.exterior.coords)


def _overlap(a: Rect, b: Rect) -> int:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0, w) * max(0, h)


def _area(r: Rect) -> int:
    return max(0, r[2] - r[0]) * max(0, r[3] - r[1])


def _classify(contour: np.ndarray, rect: Rect, settings: ScanSettings) -> tuple[str, np.ndarray] | None:
    x0, y0, x1, y1 = rect
    fill = cv2.contourArea(contour) / float(max(1, (x1 - x0) * (y1 - y0)))
    approx = cv2.approxPolyDP(contour, 0.02 * cv2.arcLength(contour, True), True).reshape(-1, 2)
    if fill >= settings.min_rectangularity:
        return ("rect" if len(approx) <= 4 else "rounded"), approx
    low, high = settings.diamond_fill
    if len(approx) == 4 and low <= fill <= high and _mid_side_vertices(approx, rect, settings.diamond_vertex_tolerance):
        return "diamond", approx
    return None


def _mid_side_vertices(points: np.ndarray, rect: Rect, tolerance: float) -> bool:
    """Whether each side of ``rect`` holds one of the four points near its middle (within ``tolerance`` of the
    side's length): a diamond's corners, not a band with a chevron under it (its corners are the band's)."""
    x0, y0, x1, y1 = rect
    w, h = max(1, x1 - x0), max(1, y1 - y0)
    sides = ((x0 + w / 2, y0, w), (x0 + w / 2, y1, w), (x0, y0 + h / 2, h), (x1, y0 + h / 2, h))
    return all(any(abs(px - sx) + abs(py - sy) <= tolerance * length for px, py in points)
               for sx, sy, length in sides)


def _body(contour: np.ndarray, rect: Rect, settings: ScanSettings) -> Rect | None:
    """The rectangular body of a callout-like hole (a box whose outline runs on into a chevron or tab): the
    rows and columns the hole fills almost across, if they make a rectangle."""
    x0, y0, x1, y1 = rect
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(mask, [contour], -1, 1, thickness=cv2.FILLED, offset=(-x0, -y0))
    rows = np.flatnonzero(mask.sum(axis=1) >= settings.min_rectangularity * mask.shape[1])
    if rows.size == 0:
        return None
    top, bottom = int(rows[0]), int(rows[-1]) + 1
    cols = np.flatnonzero(mask[top:bottom].sum(axis=0) >= settings.min_rectangularity * (bottom - top))
    if cols.size == 0:
        return None
    left, right = int(cols[0]), int(cols[-1]) + 1
    body = mask[top:bottom, left:right]
    if body.size == 0 or body.mean() < settings.min_rectangularity:
        return None
    return (x0 + left, y0 + top, x0 + right, y0 + bottom)


def _chevron(contour: np.ndarray, rect: Rect, body: Rect, page: PageImage, settings: ScanSettings
             ) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The tip and base (left and right x) of a chevron hanging under a box's body (narrower than half the
    body, at least ``head_min_pt`` deep), or None: rounded corners trim a body too, but never to a narrow hang."""
    if rect[3] - body[3] < settings.head_min_pt * page.ppt:
        return None
    outline = contour.reshape(-1, 2)
    # a border's wobble (noise, a trace of skew) is no hang: only points a border's width below the body
    hanging = outline[outline[:, 1] > body[3] + page.px(settings.border_pt)]
    if hanging.size == 0 or hanging[:, 0].max() - hanging[:, 0].min() > 0.5 * (body[2] - body[0]):
        return None
    lowest = outline[outline[:, 1] >= rect[3] - 2]
    return (int(lowest[:, 0].mean()), rect[3]), (int(hanging[:, 0].min()), int(hanging[:, 0].max()))


def _size_ok(rect: Rect, page: PageImage, settings: ScanSettings) -> bool:
    w, h = rect[2] - rect[0], rect[3] - rect[1]
    page_area = page.gray.shape[0] * page.gray.shape[1]
    return (w >= settings.min_box_width_pt * page.ppt and h >= settings.min_box_height_pt * page.ppt
            and w * h <= settings.max_box_page_share * page_area)


def outlined_shapes(page: PageImage, settings: ScanSettings) -> list[FoundShape]:
    """Holes of the ink mask (two-level contour hierarchy) shaped like a box and holding some ink.

    Holes are taken from two masks, the second adding the boxes the first did not find: the straight lines of
    the ink only (long horizontal and vertical runs, so no text), each run lengthened along its axis by the dash
    gap so that borders the scan broke, corners included, close again; then the whole ink with dash gaps
    closed (dashed outlines, diamonds, rounded corners). Closing the whole ink alone glues bold text standing
    close to a border onto it, so the hole hugs the text and is no longer box-shaped (smog-46: "Sinus Tach")."""
    gap = page.px(settings.dash_gap_pt, 1)
    length = page.px(settings.line_min_pt, 3)

    def kernel(w: int, h: int) -> np.ndarray:
        return cv2.getStructuringElement(cv2.MORPH_RECT, (w, h))

    level = cv2.morphologyEx(page.ink, cv2.MORPH_OPEN, kernel(length, 1))
    upright = cv2.morphologyEx(page.ink, cv2.MORPH_OPEN, kernel(1, length))
    lines = cv2.bitwise_or(cv2.dilate(level, kernel(2 * gap + 1, 1)), cv2.dilate(upright, kernel(1, 2 * gap + 1)))
    closed = cv2.morphologyEx(page.ink, cv2.MORPH_CLOSE, kernel(gap, gap))
    found: list[FoundShape] = []
    for mask in (lines, closed):
        for shape in _holes(mask, page, settings):
            if not any(_overlap(shape.rect, other.rect) >= settings.duplicate_overlap
                       * min(_area(shape.rect), _area(other.rect)) for other in found):
                found.append(shape)
    return found


def _holes(mask: np.ndarray, page: PageImage, settings: ScanSettings) -> list[FoundShape]:
    """Box-shaped holes of ``mask`` that hold some ink (see :func:`outlined_shapes`)."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    found: list[FoundShape] = []
    if hierarchy is None:
        return found
    border = page.px(settings.border_pt)
    for index, contour in enumerate(contours):
        if hierarchy[0][index][3] == -1:  # an outer boundary, not a hole
            continue
        x, y, w, h = cv2.boundingRect(contour)
        rect = (x, y, x + w, y + h)
        if not _size_ok(rect, page, settings):
            continue
        classified = _classify(contour, rect, settings)
        pointer = None
        base: tuple[int, int] | None = None
        if classified is None or classified[0] != "diamond":
            trimmed = _body(contour, rect, settings)
            if trimmed is None or not _size_ok(trimmed, page, settings):
                if classified is None:
                    continue
            else:
                hang = _chevron(contour, rect, trimmed, page, settings)
                if hang is not None:
                    pointer, base = hang
                if hang is not None or classified is None:
                    rect, classified = trimmed, ("rect", np.zeros((0, 2), np.int32))
                    x, y, w, h = rect[0], rect[1], rect[2] - rect[0], rect[3] - rect[1]
        kind, approx = classified
        inside = page.ink[y + border: y + h - border, x + border: x + w - border]
        if inside.size == 0 or np.count_nonzero(inside) < settings.min_text_ink * inside.size:
            continue  # an empty area fenced in by connectors
        grown = (x - border, y - border, x + w + border, y + h + border)
        points = tuple((int(px), int(py)) for px, py in approx) if kind == "diamond" else ()
        cover = (grown[0], grown[1], grown[2], max(grown[3], pointer[1] + border) if pointer else grown[3])
        found.append(FoundShape(grown, kind, points, False, cover, pointer, base))
    return found


def filled_shapes(page: PageImage, settings: ScanSettings) -> list[FoundShape]:
    """Solid shaded regions (grey or coloured boxes, bands): the fill mask opened wider than text strokes."""
    k = page.px(settings.fill_open_pt, 3)
    opened = cv2.morphologyEx(page.fill, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=4)
    found: list[FoundShape] = []
    for label in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[label])
        rect: Rect | None = (x, y, x + w, y + h)
        if area < settings.min_rectangularity * w * h:
            rect = _solid_band(labels[y: y + h, x: x + w] == label, x, y, settings)
        if rect is None or not _size_ok(rect, page, settings):
            continue
        rect = _grow_faint(rect, page, settings)
        found.append(FoundShape(rect, "rect", (), True, rect))
    return found


def _solid_band(component: np.ndarray, x: int, y: int, settings: ScanSettings) -> Rect | None:
    """The band from the first to the last row of a ragged fill component that it covers at least
    ``faint_share`` across, when that band is itself rectangular; else None. A graded fill crosses the fill
    threshold part way down the box, so its upper rows are specks of noise that make the component ragged
    (smog-48's pale "Rhythm shockable?")."""
    rows = np.count_nonzero(component, axis=1) >= settings.faint_share * component.shape[1]
    if not rows.any():
        return None
    first = int(np.argmax(rows))
    last = len(rows) - int(np.argmax(rows[::-1]))
    band = component[first:last]
    if np.count_nonzero(band) < settings.min_rectangularity * band.size:
        return None
    return (x, y + first, x + component.shape[1], y + last)


def _grow_faint(rect: Rect, page: PageImage, settings: ScanSettings) -> Rect:
    """Grow a shaded box up and left over the pale end of its graded fill (rows/columns still mostly faint
    fill), at most ``snap_pt``: the fill of many published boxes fades to white at the top left."""
    x0, y0, x1, y1 = rect
    limit = page.px(settings.snap_pt)
    share = settings.faint_share
    for _ in range(limit):
        if y0 <= 0 or np.count_nonzero(page.faint[y0 - 1, x0:x1]) < share * (x1 - x0):
            break
        y0 -= 1
        if np.count_nonzero(page.ink[y0, x0:x1]) >= share * (x1 - x0):
            break  # the box's top border
    for _ in range(limit):
        if x0 <= 0 or np.count_nonzero(page.faint[y0:y1, x0 - 1]) < share * (y1 - y0):
            break
        x0 -= 1
        if np.count_nonzero(page.ink[y0:y1, x0]) >= share * (y1 - y0):
            break  # the box's left border
    return (x0, y0, x1, y1)


def find_shapes(page: PageImage, settings: ScanSettings) -> list[FoundShape]:
    """Outlined and filled candidates, one per box: of a double frame only the inner outline is kept, a fill
    that repeats an outlined box (the same box with its drop shadow) widens that box's cover instead of adding a
    box, and a candidate whose fill steps from dark to light across it is two stacked boxes (:func:`split_stacked`)."""
    outlined = outlined_shapes(page, settings)
    filled = filled_shapes(page, settings)
    kept = [shape for shape in outlined if not any(
        other is not shape and _overlap(shape.rect, other.rect) == _area(other.rect)
        and _area(other.rect) >= settings.duplicate_overlap * _area(shape.rect) for other in outlined)]
    result: list[FoundShape] = []
    for shape in kept:
        cover = shape.cover
        for fill in filled:
            if _overlap(shape.rect, fill.rect) >= settings.duplicate_overlap * min(_area(shape.rect), _area(fill.rect)):
                cover = (min(cover[0], fill.rect[0]), min(cover[1], fill.rect[1]),
                         max(cover[2], fill.rect[2]), max(cover[3], fill.rect[3]))
        result.append(replace(shape, cover=cover))
    for fill in filled:
        if not any(_overlap(fill.rect, s.rect) >= settings.duplicate_overlap * min(_area(fill.rect), _area(s.rect))
                   for s in kept):
            result.append(fill)
    return split_stacked(result, page, settings)


def tone_step(page: PageImage, rect: Rect, settings: ScanSettings) -> int | None:
    """The pixel row where the paper tone inside ``rect`` steps up from a dark fill to a light one (two graded
    boxes stacked edge to edge, their shared border lost; see ``ScanSettings.stack_step_grey``), or None."""
    if settings.stack_step_grey <= 0:
        return None
    inset = page.px(settings.border_pt)
    x0, y0, x1, y1 = rect[0] + inset, rect[1] + inset, rect[2] - inset, rect[3] - inset
    least = page.px(settings.min_box_height_pt)
    step = page.px(settings.stack_step_pt)
    if x1 - x0 < 3 or y1 - y0 < 2 * least:
        return None
    width = page.px(settings.stack_tone_pt, 3)
    tone = cv2.morphologyEx(np.ascontiguousarray(page.gray[y0:y1, x0:x1]), cv2.MORPH_CLOSE,
                            cv2.getStructuringElement(cv2.MORPH_RECT, (width, width)))
    rows = np.median(tone, axis=1).astype(np.float32)
    change = rows[step:] - rows[:-step]
    if change.size == 0:
        return None
    at = int(np.argmax(change))
    rise = float(change[at])
    if rise < settings.stack_step_grey or -float(change.min()) >= rise / 2:
        return None
    cut = y0 + at + (step + 1) // 2
    if cut - rect[1] < least or rect[3] - cut < least:
        return None
    return cut


def split_stacked(shapes: list[FoundShape], page: PageImage, settings: ScanSettings) -> list[FoundShape]:
    """Each shape whose paper tone steps up across it (:func:`tone_step`) as two boxes, one on the other."""
    out: list[FoundShape] = []
    for shape in shapes:
        cut = None if shape.kind == "diamond" or shape.pointer is not None else tone_step(page, shape.rect, settings)
        if cut is None:
            out.append(shape)
            continue
        # each part reaches a border past the cut, as two boxes with their own outlines do (assembly then keeps
        # them two boxes, stacked, rather than one box filled in two abutting pieces)
        x0, y0, x1, y1 = shape.rect
        cx0, cy0, cx1, cy1 = shape.cover
        border = page.px(settings.border_pt)
        out.append(replace(shape, rect=(x0, y0, x1, cut + border), cover=(cx0, cy0, cx1, cut + border), points=()))
        out.append(replace(shape, rect=(x0, cut - border, x1, y1), cover=(cx0, cut - border, cx1, cy1), points=()))
    return out


def snap_to_borders(shapes: list[FoundShape], level: list[tuple[float, float, float]],
                    upright: list[tuple[float, float, float]], page: PageImage, settings: ScanSettings
                    ) -> tuple[list[FoundShape], set[int], set[int]]:
    """Widen each shaded box whose graded fill fades to paper at its top or left to the border stroke drawn
    there (``level``: ``(y, x0, x1)``, ``upright``: ``(x, y0, y1)``); return the boxes and the indices of the
    strokes used as borders."""
    reach = settings.snap_pt * page.ppt
    used_level: set[int] = set()
    used_upright: set[int] = set()
    out: list[FoundShape] = []
    for shape in shapes:
        x0, y0, x1, y1 = shape.rect
        if shape.filled:
            width, height = x1 - x0, y1 - y0
            for i, (y, a, b) in enumerate(level):
                if 0 < y0 - y <= reach and min(b, x1) - max(a, x0) >= settings.snap_cover * width:
                    y0 = int(y)
                    used_level.add(i)
            for i, (x, a, b) in enumerate(upright):
                if 0 < x0 - x <= reach and min(b, y1) - max(a, y0) >= settings.snap_cover * height:
                    x0 = int(x)
                    used_upright.add(i)
        rect = (x0, y0, x1, y1)
        cover = (min(rect[0], shape.cover[0]), min(rect[1], shape.cover[1]), shape.cover[2], shape.cover[3])
        out.append(replace(shape, rect=rect, cover=cover))
    return out, used_level, used_upright


def cover_outer_borders(shapes: list[FoundShape], level: list[tuple[float, float, float]],
                        upright: list[tuple[float, float, float]], page: PageImage, settings: ScanSettings
                        ) -> list[FoundShape]:
    """Each box with its cover widened over the straight runs that are its outer border: runs parallel to one of
    its sides, at most ``outer_border_pt`` outside it and reaching no further than that past its ends, that
    together run along at least ``outer_border_cover`` of the side (``level``: ``(y, x0, x1)``, ``upright``:
    ``(x, y0, y1)``; a head touching the line breaks it into two runs).

    A bevelled or double outline (smog-48's grey boxes: a light outer line a few points outside the inner one
    whose hole is the box) leaves its outer line beside the box; traced as a connector it runs along the box,
    and an arrowhead touching it counts two lines leaving it, so the short arrow into the box was lost."""
    reach = settings.outer_border_pt * page.ppt
    if reach <= 0:
        return shapes
    out: list[FoundShape] = []
    for shape in shapes:
        x0, y0, x1, y1 = shape.rect
        cover = list(shape.cover)
        # (runs, the side's coordinate, its ends, cover index, outwards sign)
        sides = ((level, y0, x0, x1, 1, -1), (level, y1, x0, x1, 3, 1), (upright, x0, y0, y1, 0, -1),
                 (upright, x1, y0, y1, 2, 1))
        for runs, at, lo, hi, index, sign in sides:
            near = [(c, a, b) for c, a, b in runs
                    if 0 < sign * (c - at) <= reach and a >= lo - reach and b <= hi + reach]
            spans = sorted((max(a, lo), min(b, hi)) for _, a, b in near if min(b, hi) > max(a, lo))
            covered, reached = 0.0, float(lo)
            for a, b in spans:
                covered += max(0.0, b - max(a, reached))
                reached = max(reached, b)
            if covered >= settings.outer_border_cover * (hi - lo):
                far = max(sign * c for c, _, _ in near) * sign
                cover[index] = (min(cover[index], int(np.floor(far))) if sign < 0
                                else max(cover[index], int(np.ceil(far)) + 1))
        out.append(replace(shape, cover=(cover[0], cover[1], cover[2], cover[3])))
    return out
