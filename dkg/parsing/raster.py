"""Raster route for scanned pages: deskew, find boxes/connectors/arrowheads with OpenCV, OCR with tesseract.

Produces the same :class:`PagePrimitives` as the vector route, so graph assembly is shared.
"""

from __future__ import annotations

import math
import re
import statistics
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import cv2
import numpy as np

from dkg.parsing.assemble import ARROWHEAD_MAX, _is_block_arrow
from dkg.parsing.geometry import BBox, Point
from dkg.parsing.glyphs import GlyphSignature, LetterTemplates, glyph_signature, is_bare_bar
from dkg.parsing.models import PagePrimitives, Segment, Shape, Token
from dkg.parsing.ocr_text import (
    MISREAD_MARKS,
    UNREAD_KEY,
    clean_marker_read,
    fix_case_confusions,
    fix_roman_numerals,
)
from dkg.services.tesseract import ocr_hocr

MARKER_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789,"
CLOSING_PUNCTUATION = ";:,.)"  # may follow a footnote marker
SPECKS = frozenset(".,'`\u2018\u2019\u00b7")  # a row of these alone is dirt or the dot of a raised i, j


@dataclass
class _Char:
    text: str
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels


def deskew(gray: np.ndarray) -> tuple[np.ndarray, float]:
    """Rotate so long straight strokes are axis-aligned; return the image and the angle corrected (degrees)."""
    ink = (gray < 128).astype(np.uint8) * 255
    min_len = max(gray.shape) // 12
    lines = cv2.HoughLinesP(ink, 1, np.pi / 720, threshold=min_len // 2, minLineLength=min_len, maxLineGap=4)
    if lines is None:
        return gray, 0.0
    angles: list[tuple[float, float]] = []
    for x1, y1, x2, y2 in lines.reshape(-1, 4):
        angle = math.degrees(math.atan2(y2 - y1, x2 - x1))
        for ref in (-180.0, -90.0, 0.0, 90.0, 180.0):
            if abs(angle - ref) < 5:
                angles.append((angle - ref, math.hypot(x2 - x1, y2 - y1)))
    if not angles:
        return gray, 0.0
    skew = dominant_angle(angles)
    if abs(skew) < 0.05:
        return gray, 0.0
    h, w = gray.shape
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), skew, 1.0)
    rotated = cv2.warpAffine(gray, matrix, (w, h), flags=cv2.INTER_LINEAR, borderValue=255)
    return rotated, skew


# a drawn block arrow stands between boxes; an arrow-shaped white area sharing this much of its extent with a
# box is fenced in by connectors and that box's sides (its "outline" would swallow the arrowheads on it)
SHARED_AREA = 0.1
SKEW_AGREEMENT = 0.15  # degrees: lines this close to each other share one page skew


def dominant_angle(angles: list[tuple[float, float]]) -> float:
    """The page skew from ``(angle, length)`` of its near-axis lines: their median, unless most of the line
    length agrees on another angle; then the median of the lines that agree there. Box borders and rules
    share the page's skew, but a page with many connectors drawn slightly sloped between boxes at different
    heights has its median among those (by 2° on one corpus page, with its text left tilted).

    >>> dominant_angle([(0.5, 900.0), (0.6, 400.0), (2.8, 300.0), (3.1, 300.0), (3.4, 300.0)])
    0.55
    >>> dominant_angle([(0.5, 900.0), (0.75, 400.0), (0.6, 300.0)])
    0.6
    """
    median = statistics.median(angle for angle, _ in angles)
    best = max(angles, key=lambda a: sum(length for other, length in angles if abs(other - a[0]) <= SKEW_AGREEMENT))
    near = [angle for angle, _ in angles if abs(angle - best[0]) <= SKEW_AGREEMENT]
    # small changes of the angle move tesseract's reads both ways: the median stays when it is among them
    return median if min(near) <= median <= max(near) else statistics.median(near)


def raster_primitives(gray: np.ndarray, page_number: int, width_pt: float, height_pt: float) -> PagePrimitives:
    """Detect boxes, connector strokes, arrowheads and OCR text on a greyscale page image."""
    gray, _ = deskew(np.ascontiguousarray(gray))
    h, w = gray.shape
    sx, sy = width_pt / w, height_pt / h
    ppt = 1.0 / sx  # pixels per point

    def to_pt(x: float, y: float) -> Point:
        return (x * sx, y * sy)

    prims = PagePrimitives(page_number, width_pt, height_pt, "ocr")
    blur = cv2.GaussianBlur(gray, (3, 3), 0)
    _, ink = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)

    # boxes: white regions enclosed by ink (the inside of each outlined shape)
    contours, hierarchy = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    box_mask = np.zeros_like(ink)
    interior = np.zeros_like(ink)
    box_regions: list[np.ndarray] = []
    stroke = max(2, int(round(1.6 * ppt)))
    candidates: list[tuple[np.ndarray, np.ndarray, str, tuple[int, int, int, int]]] = []
    if hierarchy is not None:
        for index, contour in enumerate(contours):
            if hierarchy[0][index][3] == -1:
                continue
            x, y, cw, ch = cv2.boundingRect(contour)
            area = cv2.contourArea(contour)
            if cw < 18 * ppt or ch < 9 * ppt or area < 0.3 * cw * ch:
                continue
            perimeter = cv2.arcLength(contour, True)
            approx = cv2.approxPolyDP(contour, 0.012 * perimeter, True).reshape(-1, 2)
            fill = area / float(cw * ch)
            if fill >= 0.8:
                kind = "rounded" if len(approx) > 4 else "rect"
            elif len(approx) == 4 and 0.4 <= fill <= 0.62:
                kind = "diamond"
            elif 5 <= len(approx) <= 11 and fill >= 0.35:
                kind = "polygon"  # block-arrow candidate: kept only if it has an arrow's outline
                probe = Shape(tuple(to_pt(px, py) for px, py in approx), BBox(x * sx, y * sy, (x + cw) * sx,
                              (y + ch) * sy), False, True, kind)
                if _is_block_arrow(probe) is None:
                    continue
            else:
                continue  # a white area fenced in by connectors and boxes, not a drawn shape
            if kind == "rect" and _fenced(ink, approx, stroke):
                continue  # the "corners" are junctions of connectors running on past them
            region = np.zeros_like(ink)
            cv2.drawContours(region, [contour], -1, 255, thickness=cv2.FILLED)
            region = cv2.erode(region, np.ones((3, 3), np.uint8), iterations=stroke + 1)
            density = np.count_nonzero(cv2.bitwise_and(ink, region)) / max(int(np.count_nonzero(region)), 1)
            if kind != "polygon" and density < 0.01:
                continue  # empty, or only a connector label: a rectangle fenced in by connectors
            candidates.append((contour, approx, kind, (x, y, x + cw, y + ch)))
    spans = [c[3] for c in candidates]
    for contour, approx, kind, (x0, y0, x1, y1) in candidates:
        if any(x0 < a0 and y0 < b0 and a1 < x1 and b1 < y1 for a0, b0, a1, b1 in spans):
            continue  # an area closed in by connectors that run around whole boxes: no box itself
        if kind == "polygon" and any(_overlap((x0, y0, x1, y1), other[3]) > SHARED_AREA * (x1 - x0) * (y1 - y0)
                                     for other in candidates if other[2] != "polygon"):
            continue  # an arrow-like area fenced in by connectors and the sides of boxes it overlaps
        pts = _grow(approx.astype(float), stroke * 0.8)
        bbox = BBox(x0 * sx - stroke * sx, y0 * sy - stroke * sy, x1 * sx + stroke * sx, y1 * sy + stroke * sy)
        prims.shapes.append(Shape(tuple(to_pt(px, py) for px, py in pts), bbox, False, True, kind))
        cv2.drawContours(interior, [contour], -1, 255, thickness=cv2.FILLED)
        box_regions.append(contour)
        cv2.drawContours(box_mask, [contour], -1, 255, thickness=cv2.FILLED)
        cv2.drawContours(box_mask, [contour], -1, 255, thickness=2 * stroke + 3)
    inner = cv2.erode(interior, np.ones((3, 3), np.uint8), iterations=max(1, stroke // 2))
    outside = cv2.bitwise_and(ink, cv2.bitwise_not(box_mask))

    # split the ink outside boxes into glyphs (labels, footers) and connector strokes
    count, labels, stats, _ = cv2.connectedComponentsWithStats(outside, connectivity=8)
    # the components found to be glyphs, marked by label and painted into a mask in one pass at the end (a mask
    # written per label costs a whole-page comparison for each of thousands of glyphs)
    is_glyph = np.zeros(count, dtype=bool)
    glyph_max = 18 * ppt
    dash_like = []
    upright = []
    glyph_boxes = []
    near_box = cv2.dilate(box_mask, np.ones((3, 3), np.uint8), iterations=max(2, stroke))
    for label in range(1, count):
        x, y, cw, ch, area = stats[label]
        if cw <= glyph_max and ch <= glyph_max:
            if (area >= 0.4 * cw * ch and min(cw, ch) >= 1.8 * ppt and max(cw, ch) <= 8 * ppt
                    and near_box[y: y + ch, x: x + cw].any()):
                continue  # a solid head against a box border, cut off from its dashed line: a stroke
            if ch <= 2.0 * ppt and cw >= 1.6 * ch and cw >= 2.5 * ppt:
                dash_like.append(label)
            elif cw <= 2.0 * ppt and ch >= 2 * cw and ch >= 2.5 * ppt:
                upright.append(label)  # a dash of a vertical dashed line, or an l, I, 1 or !
            else:
                glyph_boxes.append((x, y, x + cw, y + ch))
                is_glyph[label] = True
        elif ch <= glyph_max and ch >= 2.0 * ppt and is_text_chain(labels[y: y + ch, x: x + cw] == label):
            # letters the blur joined into one long component (``high-dose``), not a connector
            glyph_boxes.append((x, y, x + cw, y + ch))
            is_glyph[label] = True
    for label in dash_like:
        x, y, cw, ch, _ = stats[label]
        left = any(abs(gx1 - x) <= 3 * ppt and gy0 <= y + ch and gy1 >= y for gx0, gy0, gx1, gy1 in glyph_boxes)
        right = any(abs(gx0 - (x + cw)) <= 3 * ppt and gy0 <= y + ch and gy1 >= y
                    for gx0, gy0, gx1, gy1 in glyph_boxes)
        if left and right:
            is_glyph[label] = True
    pending_upright = list(upright)
    while pending_upright:  # a letter stands in a word: another glyph beside it on the same line (an l or I
        # counts once it is known to be a letter, so a thin raised key before an I is found too)
        kept = []
        for label in pending_upright:
            x, y, cw, ch, _ = stats[label]
            if any((abs(gx1 - x) <= 3 * ppt or abs(gx0 - (x + cw)) <= 3 * ppt) and gy0 <= y + ch and gy1 >= y
                   for gx0, gy0, gx1, gy1 in glyph_boxes):
                is_glyph[label] = True
                kept.append(label)
        for label in kept:
            x, y, cw, ch, _ = stats[label]
            glyph_boxes.append((x, y, x + cw, y + ch))
        pending_upright = [label for label in pending_upright if label not in kept] if kept else []
    glyph_mask = np.where(is_glyph[labels], 255, 0).astype(np.uint8)
    strokes = cv2.bitwise_and(outside, cv2.bitwise_not(glyph_mask))

    # arrowheads: what survives an opening wider than a line stroke
    k = max(3, int(round(2.6 * ppt)))
    opened = cv2.morphologyEx(strokes, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    head_contours, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for contour in head_contours:
        x, y, cw, ch = cv2.boundingRect(contour)
        if cw * ch < (2.0 * ppt) ** 2:
            continue
        shape = _opened_shape(contour, 0, 0, k, sx, sy)
        bbox = shape.bbox
        if max(bbox.width, bbox.height) <= ARROWHEAD_MAX:
            prims.arrowheads.append(shape)
        elif cv2.contourArea(contour) >= 0.8 * cw * ch or _is_block_arrow(shape) is not None:
            prims.shapes.append(shape)  # a solid box or a block arrow
        else:  # a connector drawn bold enough to survive the opening: no shape, but its heads are kept
            own = np.zeros((ch, cw), dtype=np.uint8)
            cv2.drawContours(own, [contour], -1, 1, thickness=cv2.FILLED, offset=(-x, -y))
            prims.arrowheads.extend(_bold_heads(opened[y: y + ch, x: x + cw] * own, x, y, sx, sy))

    # connector strokes as straight segments (gaps of dashed lines bridged)
    bridged = cv2.morphologyEx(strokes, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    found = cv2.HoughLinesP(bridged, 1, np.pi / 180, threshold=max(8, int(4 * ppt)),
                            minLineLength=max(6, int(4 * ppt)), maxLineGap=max(4, int(4 * ppt)))
    if found is not None:
        for x1, y1, x2, y2 in found.reshape(-1, 4):
            prims.segments.append(Segment(to_pt(x1, y1), to_pt(x2, y2)))

    # OCR on images holding only text pixels: the box interiors as one block of text each, the rest sparse
    text_mask = cv2.bitwise_or(cv2.bitwise_and(ink, inner), glyph_mask)
    text_mask = cv2.dilate(text_mask, np.ones((3, 3), np.uint8))
    text_image = np.where(text_mask > 0, gray, 255).astype(np.uint8)
    if np.count_nonzero(text_mask) > 0:
        text_ink = cv2.bitwise_and(ink, text_mask)
        free_image = np.where(interior > 0, 255, text_image).astype(np.uint8)
        crops = _box_crops(text_image, box_regions) + _free_crops(free_image, ppt)
        prims.tokens = _tokens_from_words(_sheet_words(crops), gray, text_ink, sx, sy)
    return prims


def _bold_heads(blob: np.ndarray, x: int, y: int, sx: float, sy: float) -> list[Shape]:
    """Arrowheads of a connector drawn too bold for the page's arrowhead opening (``blob``: its opened ink,
    placed at ``x``, ``y``): the parts wider than its own stroke that end a line. A second opening just wider
    than the stroke keeps the heads and also the corners and junctions; a head is left by its line on one
    side only, a corner on two, a junction on three."""
    mask: np.ndarray = (blob > 0).astype(np.uint8)
    depth = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    k = int(2 * float(np.percentile(depth[mask > 0], 95)) + 3)
    mask = cv2.copyMakeBorder(mask, k + 1, k + 1, k + 1, k + 1, cv2.BORDER_CONSTANT, value=0)
    x, y = x - k - 1, y - k - 1
    wide = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contours, _ = cv2.findContours(wide, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for contour in contours:
        hx, hy, hw, hh = cv2.boundingRect(contour)
        # an opening with an even-sized kernel may reach one pixel past the ink, into the padding: clip
        x0, y0 = max(0, hx - k), max(0, hy - k)
        x1, y1 = min(mask.shape[1] - 1, hx + hw + k), min(mask.shape[0] - 1, hy + hh + k)
        exits = sum(bool(edge.any()) for edge in (mask[y0, x0:x1 + 1], mask[y1, x0:x1 + 1],
                                                  mask[y0:y1 + 1, x0], mask[y0:y1 + 1, x1]))
        shape = _opened_shape(contour, x, y, k, sx, sy)
        if exits == 1 and max(shape.bbox.width, shape.bbox.height) <= ARROWHEAD_MAX:
            out.append(shape)
    return out


def _opened_shape(contour: np.ndarray, x: int, y: int, k: int, sx: float, sy: float) -> Shape:
    """The filled shape, in points, of a contour found after an opening with a ``k``-pixel element (grown back
    by half of it), the contour's pixels offset by ``x``, ``y``."""
    cx, cy, cw, ch = cv2.boundingRect(contour)
    pts = _grow(cv2.approxPolyDP(contour, 1.0, True).reshape(-1, 2).astype(float) + (x, y), k / 2)
    bbox = BBox((x + cx - k / 2) * sx, (y + cy - k / 2) * sy, (x + cx + cw + k / 2) * sx, (y + cy + ch + k / 2) * sy)
    return Shape(tuple((px * sx, py * sy) for px, py in pts), bbox, True, False, "polygon")


def _box_crops(text_image: np.ndarray, contours: list[np.ndarray]) -> list[tuple[np.ndarray, int, int]]:
    """``(crop, x, y)`` of each box interior's text pixels (a box nested in another is blanked from it)."""
    owner = np.full(text_image.shape, -1, dtype=np.int32)
    order = sorted(range(len(contours)), key=lambda i: -cv2.contourArea(contours[i]))
    for index in order:  # larger first, so each pixel ends up with the smallest box holding it
        cv2.drawContours(owner, [contours[index]], -1, index, thickness=cv2.FILLED)
    out = []
    for index, contour in enumerate(contours):
        x, y, cw, ch = cv2.boundingRect(contour)
        region = owner[y: y + ch, x: x + cw] == index
        crop = np.where(region, text_image[y: y + ch, x: x + cw], 255).astype(np.uint8)
        if np.count_nonzero(crop < 128):
            out.append((crop, x, y))
    return out


def _free_crops(free_image: np.ndarray, ppt: float) -> list[tuple[np.ndarray, int, int]]:
    """``(crop, x, y)`` of each block of text outside the boxes (title, labels, footnotes, footer): glyphs
    closer than about a word gap sideways and a line gap vertically form one block."""
    ink = (free_image < 128).astype(np.uint8)
    if not ink.any():
        return []
    joined = cv2.dilate(ink, np.ones((max(3, int(3 * ppt)), max(3, int(4 * ppt))), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    out = []
    for label in range(1, count):
        x, y, cw, ch, _ = stats[label]
        crop = free_image[y: y + ch, x: x + cw]
        if np.count_nonzero(crop < 128) >= 6:
            out.append((crop, int(x), int(y)))
    return out


def _sheet_words(crops: list[tuple[np.ndarray, int, int]]) -> list[list[list[_Char]]]:
    """OCR text crops in one tesseract call: stacked on one sheet, each read as a block of text (``--psm 6``
    reads a centred multi-line box or a footnote block far better than a sparse pass over the whole page).
    Returns the words of each crop, in page pixels."""
    if not crops:
        return []
    gap = 40
    width = max(c.shape[1] for c, _, _ in crops) + 2 * gap
    sheet = np.full((sum(c.shape[0] + gap for c, _, _ in crops) + gap, width), 255, dtype=np.uint8)
    spans = []
    top = gap
    for crop, _, _ in crops:
        sheet[top: top + crop.shape[0], gap: gap + crop.shape[1]] = crop
        spans.append((top, top + crop.shape[0]))
        top += crop.shape[0] + gap
    out: list[list[list[_Char]]] = [[] for _ in crops]
    for word in _hocr_words(ocr_hocr(sheet, psm=6)):
        center = (min(c.box[1] for c in word) + max(c.box[3] for c in word)) / 2
        index = next((i for i, (a, b) in enumerate(spans) if a - gap / 2 <= center <= b + gap / 2), None)
        if index is None:
            continue
        dx, dy = crops[index][1] - gap, crops[index][2] - spans[index][0]
        out[index].append([_Char(c.text, (c.box[0] + dx, c.box[1] + dy, c.box[2] + dx, c.box[3] + dy))
                           for c in word])
    return out


def is_text_chain(mask: np.ndarray) -> bool:
    """True when a wide, one-line-high ink component is joined letters rather than a connector: columns
    through letters cross several strokes (o, e, s), columns through a line or arrowhead cross one.

    >>> line = np.zeros((9, 40), dtype=bool); line[4, :] = True; line[2:7, 36:] = True
    >>> letters = np.zeros((9, 40), dtype=bool); letters[[1, 4, 7], :] = True; letters[:, ::8] = True
    >>> is_text_chain(line), is_text_chain(letters)
    (False, True)
    """
    filled = mask.any(axis=0)
    if not filled.any():
        return False
    starts = np.count_nonzero(mask[1:] & ~mask[:-1], axis=0) + mask[0]
    return float(starts[filled].mean()) >= 1.4


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    """Area shared by two pixel boxes ``(x0, y0, x1, y1)``."""
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


def _fenced(ink: np.ndarray, corners: np.ndarray, stroke: int) -> bool:
    """True when strokes continue straight on beyond at least two corners of a rectangular region."""
    h, w = ink.shape
    pts = corners.astype(float)
    center = pts.mean(axis=0)
    hits = 0
    reach = 3 * stroke + 4
    for px, py in pts:
        for dx, dy in ((np.sign(px - center[0]), 0.0), (0.0, np.sign(py - center[1]))):
            # step outward along the edge line beyond the corner, offset to sit on the border stroke
            ox = px + dx * reach + (np.sign(px - center[0]) * stroke if dx == 0 else 0)
            oy = py + dy * reach + (np.sign(py - center[1]) * stroke if dy == 0 else 0)
            x, y = int(round(ox)), int(round(oy))
            if 1 <= x < w - 1 and 1 <= y < h - 1 and ink[y - 1: y + 2, x - 1: x + 2].any():
                hits += 1
    return hits >= 3


def _grow(points: np.ndarray, amount: float) -> list[tuple[float, float]]:
    if len(points) == 0:
        return []
    cx, cy = points[:, 0].mean(), points[:, 1].mean()
    out = []
    for px, py in points:
        d = math.hypot(px - cx, py - cy) or 1.0
        out.append((px + (px - cx) / d * amount, py + (py - cy) / d * amount))
    return out


_BBOX = re.compile(r"(?:bbox|x_bboxes) (\d+) (\d+) (\d+) (\d+)")


def _hocr_words(hocr: str) -> list[list[_Char]]:
    """Words of a tesseract hOCR page as glyph lists; low-confidence words without a letter or digit dropped."""
    try:
        root = ET.fromstring(hocr.encode("utf-8"))
    except ET.ParseError:
        return []
    words: list[list[_Char]] = []
    for word in root.iter():
        if "ocrx_word" not in (word.get("class") or ""):
            continue
        chars = []
        for cinfo in word:
            match = _BBOX.search(cinfo.get("title") or "")
            text = cinfo.text or ""
            if match and text.strip():
                chars.append(_Char(text, tuple(int(v) for v in match.groups())))  # type: ignore[arg-type]
        conf = re.search(r"x_wconf (\d+)", word.get("title") or "")
        if chars and not (conf and int(conf[1]) < 25 and not any(c.text.isalnum() for c in chars)):
            words.append(chars)
    return words


def _tokens_from_words(groups: list[list[list[_Char]]], gray: np.ndarray, ink: np.ndarray, sx: float, sy: float
                       ) -> list[Token]:
    """Tokens of word groups (one per box, one for the free text); rows never span two groups."""
    tokens: list[Token] = []
    pending: list[tuple[int, np.ndarray]] = []
    word_pending: list[tuple[int, np.ndarray]] = []
    letters = LetterTemplates()
    for words in groups:
        for row in _rows(words):
            if all(c.text in SPECKS for word in row for c in word):
                continue  # a dot alone on its row: the dot of a raised i or j, or a speck of dirt
            tokens.extend(_line_tokens(row, gray, ink, sx, sy, pending, word_pending, letters))
    return reread_markers(reread_words(tokens, word_pending), pending, letters)


def reread_words(tokens: list[Token], pending: list[tuple[int, np.ndarray]]) -> list[Token]:
    """Re-OCR the queued word crops (letters before a raised marker, marker cut off) in one tesseract call;
    a crop read as nothing with a letter or digit keeps its first reading."""
    if not pending:
        return tokens
    try:
        groups = _sheet_words([(crop, 0, 0) for _, crop in pending])
    except Exception:  # a failed re-read keeps tesseract's first guesses
        return tokens
    reads = {}
    by_id = {id(t): t for t in tokens}
    for (token_id, _), words in zip(pending, groups, strict=True):
        text = fix_case_confusions(fix_roman_numerals("".join(
            c.text for word in sorted(words, key=lambda w: w[0].box[0]) for c in word).strip()))
        first = by_id[token_id].text
        if not first.endswith(tuple(MISREAD_MARKS)):  # the crop ends at the marker: a mark there is its edge
            text = text.rstrip("".join(MISREAD_MARKS))
        # the re-read may only drop glyphs of the marker from the end (``blinatumomabt``) or restore the
        # letter tesseract's offset boxes put beyond the cut (``biops``); anything else keeps the first reading
        if any(ch.isalnum() for ch in text) and (text.startswith(first) or first.startswith(text)):
            reads[token_id] = text
    return [Token(reads[id(t)], t.bbox, t.size) if id(t) in reads else t for t in tokens]


def _rows(words: list[list[_Char]]) -> list[list[list[_Char]]]:
    """Group the OCR words of one text block into rows by vertical overlap, each row left to right."""
    def extent(word: list[_Char]) -> tuple[int, int, int]:
        return min(c.box[1] for c in word), max(c.box[3] for c in word), min(c.box[0] for c in word)

    ordered = sorted(words, key=lambda w: -(extent(w)[1] - extent(w)[0]))
    rows: list[tuple[list[int], list[list[_Char]]]] = []
    for word in ordered:
        top, bottom, _ = extent(word)
        for span, members in rows:
            if min(span[1], bottom) - max(span[0], top) >= 0.5 * (bottom - top):
                members.append(word)
                break
        else:
            rows.append(([top, bottom], [word]))
    return [sorted(members, key=lambda w: extent(w)[2]) for _, members in rows]


def _word_box(word: list[_Char]) -> tuple[int, int, int, int]:
    return (min(c.box[0] for c in word), min(c.box[1] for c in word),
            max(c.box[2] for c in word), max(c.box[3] for c in word))


def _line_tokens(words: list[list[_Char]], gray: np.ndarray, ink: np.ndarray, sx: float, sy: float,
                 pending: list[tuple[int, np.ndarray]],
                 word_pending: list[tuple[int, np.ndarray]] | None = None,
                 letters: LetterTemplates | None = None) -> list[Token]:
    """Tokens of one text row. Superscripts are found in the row's pixels (glyph runs well above the row's
    baseline), not from tesseract's word or glyph boxes, which are unreliable for small raised letters."""
    boxes = [_word_box(w) for w in words]
    top = min(b[1] for b in boxes)
    reach = max(b[3] for b in boxes) - top
    # widened sideways: tesseract often gives a raised key that opens or ends the row no word at all
    row_box = (max(0, min(b[0] for b in boxes) - reach), max(0, top - int(0.4 * reach)),
               max(b[2] for b in boxes) + reach // 2, max(b[3] for b in boxes))
    # a blob cut by the crop's top edge is the descender of the row above
    blobs = [b for b in _blobs(ink, row_box, pad=0) if b[1] > row_box[1] or row_box[1] == 0]
    metrics = row_metrics(blobs)
    if metrics is None:
        return []
    baseline, height = metrics
    size = height * sy / 0.72
    runs = superscript_runs(blobs, baseline, height)
    runs += _hinted_runs(words, blobs, runs, baseline, height, ink)
    runs += dotted_runs(blobs, runs, baseline, height, ink)

    standing = [((b[0] + b[2]) / 2) for b in blobs if b[3] >= baseline - 0.3 * height and b[3] - b[1] >= 0.3 * height]
    if letters is not None:
        _collect_letters(words, blobs, gray, runs, letters)

    def run_of(char: _Char) -> int | None:
        center = (char.box[0] + char.box[2]) / 2
        if any(char.box[0] <= c <= char.box[2] for c in standing):
            return None  # tesseract's box of a real glyph that it stretched over the marker beside it
        return next((ri for ri, (r0, r1) in enumerate(runs) if r0 - 1 <= center <= r1 + 1), None)

    def near_run(char: _Char) -> bool:
        return any(char.box[2] >= r0 - 0.3 * height and char.box[0] <= r1 + 0.3 * height for r0, r1 in runs)

    out: list[Token] = []
    for wi, (word, box) in enumerate(zip(words, boxes, strict=True)):
        word = [_Char(relation_sign(ink[c.box[1]:c.box[3] + 1, c.box[0]:c.box[2] + 1]) or c.text, c.box)
                if c.text in "=<>" else c for c in word]
        word = bars_read_as_one(word, ink)
        parts: list[list[_Char]] = [[]]
        letter_count = sum(1 for c in word if c.text.isalnum())
        # a marker raised after the word's letters: tesseract read the pair as one word and its glyph boxes
        # (offset by the extra glyph) cannot tell which letters are the marker; the letters before the run
        # are re-read on their own with the marker out of the picture
        cut_run = next(((r0, r1) for r0, r1 in sorted(runs) if box[0] + 0.3 * height < r0 <= box[2] + 0.3 * height),
                       None)
        head: Token | None = None
        if cut_run is not None and word_pending is not None:
            cut = cut_run[0]
            before = [c for c in word if (c.box[0] + c.box[2]) / 2 < cut and run_of(c) is None
                      and c.text not in MISREAD_MARKS]
            # what stands over the run is the marker misread; only what follows it (``;``) stays
            word = [c for c in word if (c.box[0] + c.box[2]) / 2 > cut_run[1]
                    or (c.box[0] + c.box[2]) / 2 > cut and not c.text.isalnum() and c.text not in MISREAD_MARKS]
            # punctuation tesseract boxed over the marker follows it; other marks there are the marker misread
            end = int(cut_run[1]) + 1
            word = [c if c.box[0] >= end else _Char(c.text, (end, c.box[1], max(c.box[2], end + 1), c.box[3]))
                    for c in word if c.box[0] >= end or c.text in CLOSING_PUNCTUATION]
            if before:
                first = _word_token(before, sx, sy, size)
                head = Token(first.text, BBox(first.bbox.x0, first.bbox.top, cut * sx, first.bbox.bottom), size)
                pad = max(2, int(0.15 * height))
                crop = gray[max(0, box[1] - pad): box[3] + pad, max(0, box[0] - pad): int(cut)]
                if crop.size:
                    word_pending.append((id(head), crop))
        for char in word:
            # tesseract's guesses at a raised glyph (``TKI?``, ``therapy';``) that fell just outside the run
            # split the word there too, so punctuation after the marker stays after it
            stray = letter_count > 0 and char.text in MISREAD_MARKS and near_run(char)
            if run_of(char) is None and not stray:
                parts[-1].append(char)
            elif parts[-1]:
                parts.append([])
        parts = [p for p in parts if p]
        if not parts and head is None:
            continue  # the whole word is a marker
        if wi:
            prev = boxes[wi - 1]
            out.append(Token(" ", BBox(prev[2] * sx, prev[1] * sy, box[0] * sx, prev[3] * sy), size))
        if head is not None:
            out.append(head)
        out.extend(_word_token(chars, sx, sy, size) for chars in parts)
    for r0, r1 in runs:
        top = int(baseline - 1.3 * height)
        out.extend(_marker_tokens([_Char("?", (int(r0), top, int(r1), int(baseline - 0.3 * height)))],
                                  gray, sx, sy, size, pending))
    return out


def bars_read_as_one(word: list[_Char], ink: np.ndarray) -> list[_Char]:
    """A ``1`` tesseract read inside a word with letters whose glyph is a bare bar is the capital I (the word's
    letters are capitals: ``T3151`` → ``T315I``) or the small l (they are small). Each glyph of the word must
    stand apart in the word's ink, so the glyph read as ``1`` is known (tesseract's glyph boxes overlap);
    otherwise the word is left as read.

    >>> ink = np.zeros((24, 40), np.uint8); ink[2:22, 2:5] = 1; ink[2:4, 10:18] = 1; ink[2:22, 13:16] = 1
    >>> ink[2:22, 24:27] = 1; ink[2:5, 20:24] = 1; ink[20:22, 20:30] = 1
    >>> word = [_Char("1", (2, 2, 5, 21)), _Char("T", (10, 2, 18, 21)), _Char("1", (20, 2, 30, 21))]
    >>> "".join(c.text for c in bars_read_as_one(word, ink))
    'IT1'
    """
    text = "".join(c.text for c in word)
    letters = [ch for ch in text if ch.isalpha()]
    if "1" not in text or not letters or (any(ch.isupper() for ch in letters) and any(ch.islower() for ch in letters)):
        return word
    x0, y0, x1, y1 = _word_box(word)
    crop = ink[y0: y1 + 1, x0: x1 + 1] > 0
    columns = np.flatnonzero(crop.any(axis=0))
    if columns.size == 0:
        return word
    cuts = np.flatnonzero(np.diff(columns) > 1)
    glyphs = list(zip(np.r_[columns[0], columns[cuts + 1]], np.r_[columns[cuts], columns[-1]], strict=True))
    if len(glyphs) != len(text) or len(word) != len(text):
        return word
    bar = "I" if letters[0].isupper() else "l"
    return [_Char(bar, c.box) if c.text == "1" and is_bare_bar(crop[:, a: b + 1]) else c
            for c, (a, b) in zip(word, glyphs, strict=True)]


def _collect_letters(words: list[list[_Char]], blobs: list[tuple[int, int, int, int]], gray: np.ndarray,
                     runs: list[tuple[float, float]], letters: LetterTemplates) -> None:
    """Add the row's lowercase letters to the page's templates: a letter whose tesseract box holds exactly
    one blob of about its width, outside the row's marker runs (with the half height above it, for the
    dot of an i or j)."""
    for word in words:
        for char in word:
            if len(char.text) != 1 or not char.text.islower() or not letters.wants(char.text):
                continue
            center = (char.box[0] + char.box[2]) / 2
            if any(r0 - 1 <= center <= r1 + 1 for r0, r1 in runs):
                continue
            hits = [b for b in blobs if b[0] <= center <= b[2] and b[1] < char.box[3] and b[3] > char.box[1]]
            if len(hits) != 1:
                continue
            x0, y0, x1, y1 = hits[0]
            width = char.box[2] - char.box[0]
            if not 0.7 * width <= x1 - x0 <= 1.3 * width or abs(x0 - char.box[0]) > 0.3 * width:
                continue
            letters.add(char.text, glyph_signature(gray[max(0, y0 - (y1 - y0) // 2): y1 + 1, x0: x1 + 1]))


def relation_sign(ink: np.ndarray) -> str | None:
    """``≥`` or ``≤`` for the ink of a glyph tesseract read as ``=``, ``<`` or ``>``: a chevron over a bar (an
    ``=`` has a bar as thin as the lower one there, a ``<`` or ``>`` no bar under it); else None.

    >>> glyph = np.zeros((14, 12), dtype=np.uint8)
    >>> for i in range(5): glyph[i, 2 + 2 * i: 4 + 2 * i] = glyph[8 - i, 2 + 2 * i: 4 + 2 * i] = 255
    >>> glyph[11:13, 2:11] = 255
    >>> relation_sign(glyph), relation_sign(glyph[:, ::-1].copy())
    ('≥', '≤')
    >>> bars = np.zeros((10, 12), dtype=np.uint8); bars[2:4, 1:11] = bars[6:8, 1:11] = 255
    >>> relation_sign(bars) is None
    True
    """
    mask = ink > 0
    if not mask.any():
        return None
    ys, xs = np.nonzero(mask)
    mask = mask[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    height, width = mask.shape
    wide = mask.sum(axis=1) >= 0.6 * width
    skip = 0
    while skip < min(2, height) and not wide[height - 1 - skip]:
        skip += 1  # a speck of noise under the bar
    bar = 0
    while skip + bar < height and wide[height - 1 - skip - bar]:
        bar += 1
    upper = [row for row in mask[: height - skip - bar] if row.any()]
    # the blur may join the chevron's lower arm to the bar, so the bar is found as the wide rows at the bottom;
    # over it, an = has a bar as thin as that one, a ≥ a chevron whose rows shift sideways
    if not bar or len(upper) < 2 * bar:
        return None
    centres = [np.nonzero(row)[0].mean() for row in upper]
    edge, middle = (centres[0] + centres[-1]) / 2, centres[len(centres) // 2]
    if abs(middle - edge) < 0.2 * width:
        return None
    return "≥" if middle > edge else "≤"


def dotted_runs(blobs: list[tuple[int, int, int, int]], runs: list[tuple[float, float]], baseline: float,
                height: float, ink: np.ndarray) -> list[tuple[float, float]]:
    """Raised ``i`` or ``j`` markers found by their dot: a speck above the row's cap line whose stem, right
    under it, stops well above the bottoms of the letters around it (a text ``i`` stands on the line with
    its neighbours, and in a row of small letters its own dot may be the highest ink). The blur often joins
    the marker's thin stem to the letter before it (``HCT`` + raised ``i`` read ``HCT'``), so the stem is
    looked for in the ink, not as a blob of its own; the run is the dot's columns.

    >>> ink = np.zeros((40, 30), dtype=np.uint8); ink[10:38, 5:15] = 255   # a capital on the baseline (y 38)
    >>> ink[6:8, 17:19] = 255; ink[10:20, 17:19] = 255                     # a raised i: dot and stem
    >>> dotted_runs([(5, 10, 15, 38), (17, 6, 19, 8), (17, 10, 19, 20)], [], 38.0, 28.0, ink)
    [(16.0, 20.0)]
    >>> ink[20:38, 17:19] = 255                                            # a stem down to the line: text
    >>> dotted_runs([(5, 10, 15, 38), (17, 6, 19, 8), (17, 10, 19, 38)], [], 38.0, 28.0, ink)
    []
    """
    out: list[tuple[float, float]] = []
    for x0, y0, x1, y1 in blobs:
        if (x1 - x0 > 0.25 * height or y1 - y0 > 0.25 * height or y1 > baseline - 1.0 * height
                or any(r0 - 1 <= (x0 + x1) / 2 <= r1 + 1 for r0, r1 in runs + out)):
            continue
        column = ink[y1: int(baseline) + 1, max(0, x0 - 1): x1 + 1].any(axis=1)
        inked = np.nonzero(column)[0]
        if not len(inked) or inked[0] > 0.25 * height:
            continue  # no stem under the speck: noise, not an i
        gaps = np.nonzero(np.diff(inked) > 1)[0]
        stem_bottom = y1 + int(inked[gaps[0]] if len(gaps) else inked[-1])
        ground = [b[3] for b in blobs if b[3] - b[1] >= 0.3 * height and b[0] < x1 + 2 * height
                  and b[2] > x0 - 2 * height and b[3] > y1 and not (b[0] <= x1 and b[2] >= x0)]
        # the line the letters around stand on: the row's baseline, or higher when descenders pulled it down
        # (the blur joins letters into groups whose bottoms are their descenders', so a low quantile)
        line = min(baseline, float(np.percentile(ground, 25))) if ground else baseline
        if stem_bottom > line - 0.3 * height:
            continue
        out.append((float(x0 - 1), float(x1 + 1)))
    return out


def _hinted_runs(words: list[list[_Char]], blobs: list[tuple[int, int, int, int]], runs: list[tuple[float, float]],
                 baseline: float, height: float, ink: np.ndarray | None = None) -> list[tuple[float, float]]:
    """Raised markers the blob test misses because the blur joined them to the letter before (``radiotherapy``
    + raised ``g``), found where tesseract ends a word with a stray mark (``radiotherapy?``): the mark's box
    holds ink reaching cap height and no dot on the baseline (which a real ``?`` or ``!`` has). When the
    marker is fused to the letter before it, the run is the blob's columns that hold no ink near the
    baseline (tesseract's boxes for such a pair overlap and would cut the marker)."""
    limit = baseline - 0.3 * height
    out: list[tuple[float, float]] = []
    for word in words:
        if len(word) > 2 and word[-1].text in CLOSING_PUNCTUATION:
            word = word[:-1]  # the punctuation after the marker (``risk®;``)
        last = word[-1]
        # a letter tesseract boxed as raised (``SBRTY`` for ``SBRT`` + raised ``u``): letters stand on the line
        raised_letter = last.text.isalnum() and last.box[3] < limit and last.box[1] <= baseline - 0.75 * height
        if len(word) < 2 or (last.text not in MISREAD_MARKS and not raised_letter):
            continue
        x0, x1 = last.box[0], last.box[2]
        # a run found in the pixels at or right beside the mark is the marker tesseract misread (its boxes
        # may be a glyph off: ``therapy’;`` with the raised y boxed as the ``;``)
        if any(r0 - 0.5 * height <= x1 and x0 <= r1 + 0.5 * height for r0, r1 in runs):
            continue
        inside = [b for b in blobs if min(b[2], x1) - max(b[0], x0) >= 0.5 * (x1 - x0)]
        dot = any(b[3] >= limit and b[3] - b[1] < 0.3 * height and x0 <= b[0] and b[2] <= x1 + 1
                  for b in blobs)
        if not inside or dot or not any(b[1] <= baseline - 0.75 * height for b in inside):
            continue
        spans = []
        for b in inside:
            if b[3] < baseline - 0.15 * height:  # raised (a raised g or y may reach down to near the limit)
                spans.append((float(b[0]), float(b[2])))
                continue
            start = _raised_tail(ink, b, limit, 0.25 * height) if ink is not None else None
            # fused to the letter before (the blob reaches left past the mark, a letter-wide grounded part
            # stands left of the raised columns, or the blob is wider than any ``?``): keep the raised columns
            if start is not None and (b[0] < x0 - 0.3 * height or start - b[0] >= 0.5 * height
                                      or b[2] - b[0] >= 0.8 * height):
                # raised columns reaching well left of the mark's box are the top of the letter before (the
                # bowl of a P): the marker starts where tesseract boxed it
                spans.append((float(x0 if x0 - start >= 0.3 * height else start), float(b[2])))
            else:
                break  # a glyph of its own standing on the baseline: a real ``?`` whose dot the blur joined
        else:
            spans = spans or [(float(max(x0, word[-2].box[2] - 1)), float(x1))]
            out.append((min(a for a, _ in spans), max(z for _, z in spans)))
    return out


def _raised_tail(ink: np.ndarray, blob: tuple[int, int, int, int], limit: float, bar: float = 0.0) -> int | None:
    """x where the raised right-hand part of a blob begins: the columns at its right end whose ink all lies
    above ``limit`` (a marker fused to the grounded letter before it). None when there is no such part.
    Columns at the tail's left whose ink is a band thinner than ``bar`` are the letter's own top stroke (the
    bar of a ``T``, the arm of an ``r``) that the marker is joined to, and are left out.

    >>> ink = np.zeros((20, 12), dtype=np.uint8); ink[4:20, 0:5] = 1; ink[0:9, 5:12] = 1
    >>> _raised_tail(ink, (0, 0, 12, 20), 14.0)
    5
    >>> ink[0:9, 5:8] = 0; ink[4:6, 5:8] = 1          # an arm two pixels thick joins the marker to the letter
    >>> _raised_tail(ink, (0, 0, 12, 20), 14.0, bar=4.0)
    8
    """
    x0, y0, x1, y1 = blob
    crop = ink[y0:y1, x0:x1] > 0
    if crop.size == 0:
        return None
    rows = np.arange(crop.shape[0])[:, None]
    lowest = np.where(crop, rows, -1).max(axis=0) + y0
    col = crop.shape[1] - 1
    while col >= 0 and lowest[col] < limit:
        col -= 1
    if col == crop.shape[1] - 1 or col < 0:
        return None
    highest = np.where(crop, rows, crop.shape[0]).min(axis=0) + y0
    start = col + 1
    while start < crop.shape[1] - 1 and lowest[start] - highest[start] + 1 < bar:
        start += 1
    return x0 + start


def row_metrics(blobs: list[tuple[int, int, int, int]]) -> tuple[float, float] | None:
    """``(baseline y, cap height)`` of one text row from its ink blobs ``(x0, y0, x1, y1)``.

    The baseline is the height-weighted median of blob bottoms (small raised markers and the few descenders
    barely move it); the cap height is a high percentile of the heights of the blobs standing on it.

    >>> row_metrics([(0, 0, 5, 20), (6, 8, 10, 20), (11, 0, 15, 20), (16, 0, 19, 6), (20, 8, 24, 26)])
    (20.0, 20.0)
    """
    if not blobs:
        return None
    weighted = sorted((b[3], b[3] - b[1]) for b in blobs)
    total = sum(w for _, w in weighted)
    acc = 0.0
    baseline = float(weighted[-1][0])
    for bottom, weight in weighted:
        acc += weight
        if acc >= total / 2:
            baseline = float(bottom)
            break
    tallest = max(w for _, w in weighted)
    tol = max(2.0, 0.1 * tallest)
    standing = [b[3] - b[1] for b in blobs if abs(b[3] - baseline) <= tol]
    height = float(np.percentile(standing, 80)) if standing else float(tallest)
    return baseline, max(height, 4.0)


def superscript_runs(blobs: list[tuple[int, int, int, int]], baseline: float, height: float
                     ) -> list[tuple[float, float]]:
    """x spans of raised glyph runs (footnote markers) in one text row's ink blobs ``(x0, y0, x1, y1)``.

    A raised blob ends well above the baseline and is not the dot or accent over a grounded glyph; a run is
    raised blobs close together with no grounded glyph between them, and at least one of them reaches up to
    cap height and is letter-sized (not a hyphen, dash or apostrophe).

    >>> superscript_runs([(0, 0, 10, 20), (11, 0, 15, 8), (16, 4, 17, 9), (18, 0, 22, 8)], 20.0, 20.0)
    [(11.0, 22.0)]
    """
    limit = baseline - 0.3 * height
    first = min(blobs, key=lambda b: b[0]) if blobs else None

    def lifted(b: tuple[int, int, int, int]) -> bool:
        # the key opening a footnote line may have a descender (g) that reaches nearer the baseline; a short
        # glyph that opens the row, tops out at cap height and stops clearly above the baseline is one
        return b[3] < limit or (b == first and b[3] < baseline - 0.15 * height
                                and b[1] <= baseline - 0.75 * height and b[3] - b[1] <= 0.75 * height)

    grounded = [b for b in blobs if not lifted(b) and (b[3] - b[1]) >= 0.3 * height]
    # the upper part of a ? or ! stands over its dot on the baseline
    dots = [b for b in blobs if b[3] >= limit and (b[3] - b[1]) < 0.3 * height]
    raised = [b for b in blobs if lifted(b) and not any(
        min(b[2], g[2]) - max(b[0], g[0]) > 0.5 * (b[2] - b[0]) for g in grounded) and not any(
        b[0] - 1 <= (d[0] + d[2]) / 2 <= b[2] + 1 for d in dots)]
    raised.sort(key=lambda b: b[0])
    runs: list[list[tuple[int, int, int, int]]] = []
    for blob in raised:
        if runs:
            last = runs[-1]
            right = max(b[2] for b in last)
            between = any(g[0] >= right - 1 and g[2] <= blob[0] + 1 for g in grounded)
            if blob[0] - right <= 0.5 * height and not between:
                last.append(blob)
                continue
        runs.append([blob])
    out = []
    for run in runs:
        letter = any(b[1] <= baseline - 0.75 * height and (b[3] - b[1]) >= 0.3 * height
                     and (b[2] - b[0]) >= 0.12 * height for b in run) or any(
            # a raised i: a short stem with its dot above it (neither reaches cap height on its own)
            (b[3] - b[1]) >= 0.3 * height and any(d is not b and d[3] <= b[1] + 2 and d[0] <= b[2] and d[2] >= b[0]
                                                  and (d[3] - d[1]) < 0.3 * height for d in run)
            for b in run)
        if letter:
            out.append((float(min(b[0] for b in run)), float(max(b[2] for b in run))))
    return out


def _blobs(ink: np.ndarray, box: tuple[int, int, int, int], pad: int = 2) -> list[tuple[int, int, int, int]]:
    x0, y0, x1, y1 = box
    ox, oy = max(0, x0 - pad), max(0, y0 - pad)
    crop = ink[oy: y1 + pad + 1, ox: x1 + pad + 1]
    if crop.size == 0:
        return []
    count, _, stats, _ = cv2.connectedComponentsWithStats((crop > 0).astype(np.uint8), connectivity=8)
    return [(ox + st[0], oy + st[1], ox + st[0] + st[2], oy + st[1] + st[3]) for st in stats[1:count] if st[4] >= 3]


def _word_token(chars: list[_Char], sx: float, sy: float, size: float, right: int | None = None) -> Token:
    x0, y0, x1, y1 = _word_box(chars)
    if right is not None:
        x1 = min(x1, right)
    # one token per word keeps tesseract's character order (its glyph boxes overlap)
    text = fix_case_confusions(fix_roman_numerals("".join(c.text for c in chars)))
    return Token(text, BBox(x0 * sx, y0 * sy, max(x1, x0 + 1) * sx, y1 * sy), size)


def _marker_tokens(run: list[_Char], gray: np.ndarray, sx: float, sy: float, size: float,
                   pending: list[tuple[int, np.ndarray]] | None = None) -> list[Token]:
    """A raised run of small glyphs (footnote markers); queued for one enlarged, whitelisted re-read."""
    x0 = min(c.box[0] for c in run)
    y0 = min(c.box[1] for c in run)
    x1 = max(c.box[2] for c in run)
    y1 = max(c.box[3] for c in run)
    pad = max(3, (y1 - y0) // 2)
    # no padding on the left: that would take in the tail of the word the marker follows
    crop = gray[max(0, y0 - pad): y1 + pad, max(0, x0): x1 + 2]
    text = "".join(c.text for c in run)
    bbox = BBox(x0 * sx, y0 * sy, x1 * sx, y1 * sy)
    token = Token(text, bbox, size * 0.6)
    if pending is not None and crop.size:
        pending.append((id(token), crop))
    return [token]


def reread_markers(tokens: list[Token], pending: list[tuple[int, np.ndarray]],
                   letters: LetterTemplates | None = None) -> list[Token]:
    """Re-OCR all queued marker crops in one tesseract call: crops stacked, enlarged, letters only. A marker
    read as at most one letter whose glyph clearly matches one of the page's own letters is that letter."""
    if not pending:
        return tokens
    scale = 4
    crops = [cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC) for _, crop in pending]
    gap = 60
    width = max(c.shape[1] for c in crops) + 2 * gap
    height = sum(c.shape[0] for c in crops) + gap * (len(crops) + 1)
    sheet = np.full((height, width), 255, dtype=np.uint8)
    spans = []
    y = gap
    for crop in crops:
        sheet[y: y + crop.shape[0], gap: gap + crop.shape[1]] = crop
        spans.append((y, y + crop.shape[0]))
        y += crop.shape[0] + gap
    try:
        hocr = ocr_hocr(sheet, psm=6, whitelist=MARKER_CHARS.replace("0123456789", ""))
    except Exception:  # a failed re-read keeps tesseract's first guesses
        return tokens
    reads: dict[int, str] = {}
    for match in re.finditer(r"<span class='ocrx_word'[^>]*title='bbox (\d+) (\d+) (\d+) (\d+)[^']*'>(.*?)</span>\s*"
                             r"(?=<span class='ocrx_word'|</span>)", hocr, re.S):
        top, bottom = int(match[2]), int(match[4])
        text = "".join(re.findall(r">([^<>]*)</span>", match[5] + "</span>")) or re.sub(r"<[^>]+>", "", match[5])
        center = (top + bottom) / 2
        for index, (a, b) in enumerate(spans):
            if a - gap / 2 <= center <= b + gap / 2:
                reads[index] = reads.get(index, "") + text
    by_id = {token_id: reads.get(index, "") for index, (token_id, _) in enumerate(pending)}
    glyphs = {token_id: glyph_signature(crop) for token_id, crop in pending}
    out = []
    for token in tokens:
        reread = by_id.get(id(token))
        if reread is None:
            out.append(token)
            continue
        cleaned = clean_marker_read(reread, MARKER_CHARS.replace(",", ""))
        glyph = glyphs.get(id(token))
        if letters is not None and glyph is not None and len(cleaned) <= 1:
            cleaned = letters.letter(glyph) or cleaned
        # a run no key can be read from stays a marker with the unknown key "?": it then opens a footnote
        # entry (whose key the page's box markers supply) and drops out of box text instead of showing as "?"
        out.extend(_key_tokens(cleaned.split(","), token, glyph) if cleaned else [
            Token(UNREAD_KEY, token.bbox, token.size, glyph)])
    return out


def _key_tokens(keys: list[str], token: Token, glyph: GlyphSignature | None = None) -> list[Token]:
    """One marker token per key, commas between, spread over the run's box (text layout reads them as one
    marker, as it does the glyphs of a born-digital ``a,b``). The run's glyph signature goes with a single key."""
    text = ",".join(keys)
    step = token.bbox.width / len(text)
    out = []
    for index, char in enumerate(text):
        x0 = token.bbox.x0 + index * step
        out.append(Token(char, BBox(x0, token.bbox.top, x0 + step, token.bbox.bottom), token.size,
                         glyph if len(keys) == 1 else None))
    return out


def footer_text(gray: np.ndarray, band: float = 0.14) -> str:
    """Plain OCR text of a page's top and bottom bands (where page codes are printed), one tesseract call.
    The page is deskewed first: a 1° tilt is enough for tesseract to lose a short bold code at the margin."""
    gray, _ = deskew(np.ascontiguousarray(gray))
    h = gray.shape[0]
    cut = max(1, int(band * h))
    sheet = np.vstack([gray[:cut], np.full((40, gray.shape[1]), 255, dtype=gray.dtype), gray[h - cut:]])
    words = _hocr_words(ocr_hocr(np.ascontiguousarray(sheet), psm=11))
    return " ".join("".join(c.text for c in word) for word in words)
