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

from dkg.parsing.assemble import _is_block_arrow
from dkg.parsing.geometry import BBox, Point
from dkg.parsing.models import PagePrimitives, Segment, Shape, Token
from dkg.services.tesseract import ocr_hocr

MARKER_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789,"
MISREAD_MARKS = set("*?'\u2018\u2019\"!\u00ae\u00a9\u2122\u00b0^`")


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
    angles = []
    for x1, y1, x2, y2 in lines.reshape(-1, 4):
        angle = math.degrees(math.atan2(y2 - y1, x2 - x1))
        for ref in (-180.0, -90.0, 0.0, 90.0, 180.0):
            if abs(angle - ref) < 5:
                angles.append(angle - ref)
    if not angles:
        return gray, 0.0
    skew = statistics.median(angles)
    if abs(skew) < 0.05:
        return gray, 0.0
    h, w = gray.shape
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), skew, 1.0)
    rotated = cv2.warpAffine(gray, matrix, (w, h), flags=cv2.INTER_LINEAR, borderValue=255)
    return rotated, skew


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
    stroke = max(2, int(round(1.6 * ppt)))
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
            density = np.count_nonzero(cv2.bitwise_and(ink, region)) / max(np.count_nonzero(region), 1)
            if kind != "polygon" and density < 0.01:
                continue  # empty, or only a connector label: a rectangle fenced in by connectors
            pts = _grow(approx.astype(float), stroke * 0.8)
            bbox = BBox(x * sx - stroke * sx, y * sy - stroke * sy, (x + cw) * sx + stroke * sx,
                        (y + ch) * sy + stroke * sy)
            prims.shapes.append(Shape(tuple(to_pt(px, py) for px, py in pts), bbox, False, True, kind))
            cv2.drawContours(interior, [contour], -1, 255, thickness=cv2.FILLED)
            cv2.drawContours(box_mask, [contour], -1, 255, thickness=cv2.FILLED)
            cv2.drawContours(box_mask, [contour], -1, 255, thickness=2 * stroke + 3)
    inner = cv2.erode(interior, np.ones((3, 3), np.uint8), iterations=max(1, stroke // 2))
    outside = cv2.bitwise_and(ink, cv2.bitwise_not(box_mask))

    # split the ink outside boxes into glyphs (labels, footers) and connector strokes
    count, labels, stats, _ = cv2.connectedComponentsWithStats(outside, connectivity=8)
    glyph_mask = np.zeros_like(ink)
    glyph_max = 18 * ppt
    dash_like = []
    glyph_boxes = []
    for label in range(1, count):
        x, y, cw, ch, area = stats[label]
        if cw <= glyph_max and ch <= glyph_max:
            if ch <= 2.0 * ppt and cw >= 2 * ch and cw >= 2.5 * ppt:
                dash_like.append(label)
            else:
                glyph_boxes.append((x, y, x + cw, y + ch))
                glyph_mask[labels == label] = 255
    for label in dash_like:
        x, y, cw, ch, _ = stats[label]
        left = any(abs(gx1 - x) <= 3 * ppt and gy0 <= y + ch and gy1 >= y for gx0, gy0, gx1, gy1 in glyph_boxes)
        right = any(abs(gx0 - (x + cw)) <= 3 * ppt and gy0 <= y + ch and gy1 >= y
                    for gx0, gy0, gx1, gy1 in glyph_boxes)
        if left and right:
            glyph_mask[labels == label] = 255
    strokes = cv2.bitwise_and(outside, cv2.bitwise_not(glyph_mask))

    # arrowheads: what survives an opening wider than a line stroke
    k = max(3, int(round(2.6 * ppt)))
    opened = cv2.morphologyEx(strokes, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    head_contours, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for contour in head_contours:
        x, y, cw, ch = cv2.boundingRect(contour)
        if cw * ch < (2.0 * ppt) ** 2:
            continue
        pts = _grow(cv2.approxPolyDP(contour, 1.0, True).reshape(-1, 2).astype(float), k / 2)
        bbox = BBox((x - k / 2) * sx, (y - k / 2) * sy, (x + cw + k / 2) * sx, (y + ch + k / 2) * sy)
        shape = Shape(tuple(to_pt(px, py) for px, py in pts), bbox, True, False, "polygon")
        if max(bbox.width, bbox.height) <= 22:
            prims.arrowheads.append(shape)
        else:
            prims.shapes.append(shape)

    # connector strokes as straight segments (gaps of dashed lines bridged)
    bridged = cv2.morphologyEx(strokes, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    found = cv2.HoughLinesP(bridged, 1, np.pi / 180, threshold=max(8, int(4 * ppt)),
                            minLineLength=max(6, int(4 * ppt)), maxLineGap=max(4, int(4 * ppt)))
    if found is not None:
        for x1, y1, x2, y2 in found.reshape(-1, 4):
            prims.segments.append(Segment(to_pt(x1, y1), to_pt(x2, y2)))

    # OCR once on an image holding only text pixels
    text_mask = cv2.bitwise_or(cv2.bitwise_and(ink, inner), glyph_mask)
    text_mask = cv2.dilate(text_mask, np.ones((3, 3), np.uint8))
    text_image = np.where(text_mask > 0, gray, 255).astype(np.uint8)
    if np.count_nonzero(text_mask) > 0:
        text_ink = cv2.bitwise_and(ink, text_mask)
        prims.tokens = _tokens_from_hocr(ocr_hocr(text_image), gray, text_ink, sx, sy)
    return prims


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


def _tokens_from_hocr(hocr: str, gray: np.ndarray, ink: np.ndarray, sx: float, sy: float) -> list[Token]:
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
    tokens: list[Token] = []
    pending: list[tuple[int, np.ndarray]] = []
    for row in _rows(words):
        tokens.extend(_line_tokens(row, gray, ink, sx, sy, pending))
    return reread_markers(tokens, pending)


def _rows(words: list[list[_Char]]) -> list[list[list[_Char]]]:
    """Group OCR words into text rows by vertical overlap (tesseract's sparse mode splits lines apart)."""
    def extent(word: list[_Char]) -> tuple[int, int, int]:
        return min(c.box[1] for c in word), max(c.box[3] for c in word), min(c.box[0] for c in word)

    ordered = sorted(words, key=lambda w: -(extent(w)[1] - extent(w)[0]))
    rows: list[tuple[list[int], list[list[_Char]]]] = []
    for word in ordered:
        top, bottom, _ = extent(word)
        placed = False
        for span, members in rows:
            overlap = min(span[1], bottom) - max(span[0], top)
            if overlap >= 0.5 * (bottom - top):
                left = extent(word)[2]
                near = any(abs(left - max(c.box[2] for c in m)) < 6 * (span[1] - span[0])
                           or abs(min(c.box[0] for c in m) - max(c.box[2] for c in word)) < 6 * (span[1] - span[0])
                           for m in members)
                if near:
                    members.append(word)
                    placed = True
                    break
        if not placed:
            rows.append(([top, bottom], [word]))
    return [sorted(members, key=lambda w: extent(w)[2]) for _, members in rows]


def _ink_profile(ink: np.ndarray, box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray, int]:
    """Per-column lowest ink row (absolute y; -1 where a column is empty) and the top ink row of a box."""
    x0, y0, x1, y1 = box
    crop = ink[max(0, y0): y1 + 1, max(0, x0): x1 + 1] > 0
    if crop.size == 0 or not crop.any():
        return np.full(max(1, x1 - x0 + 1), -1), np.zeros(0, dtype=bool), y0
    has = crop.any(axis=0)
    bottoms = np.where(has, crop.shape[0] - 1 - np.argmax(crop[::-1], axis=0) + max(0, y0), -1)
    top = int(np.argmax(crop.any(axis=1))) + max(0, y0)
    return bottoms, has, top


def _word_box(word: list[_Char]) -> tuple[int, int, int, int]:
    return (min(c.box[0] for c in word), min(c.box[1] for c in word),
            max(c.box[2] for c in word), max(c.box[3] for c in word))


def _line_tokens(words: list[list[_Char]], gray: np.ndarray, ink: np.ndarray, sx: float, sy: float,
                 pending: list[tuple[int, np.ndarray]]) -> list[Token]:
    """Tokens of one text row. Superscripts are found in the pixels (glyph bottoms well above the row's
    baseline), not from tesseract's glyph boxes, which are unreliable for small raised letters."""
    boxes = [_word_box(w) for w in words]
    profiles = [_ink_profile(ink, b) for b in boxes]
    word_bottoms = []
    for bottoms, has, _ in profiles:
        if has.any():
            word_bottoms.append(float(np.percentile(bottoms[has], 70)))
    if not word_bottoms:
        return []
    baseline = statistics.median(word_bottoms)
    tops = [top for (_, has, top) in profiles if has.any()]
    height = max(baseline - statistics.median(tops), 4.0)
    size = height * sy / 0.72
    limit = baseline - 0.3 * height
    high = baseline - 0.75 * height
    out: list[Token] = []
    for wi, (word, box, (_, has, _top)) in enumerate(zip(words, boxes, profiles, strict=True)):
        if wi:
            prev = boxes[wi - 1]
            out.append(Token(" ", BBox(prev[2] * sx, prev[1] * sy, box[0] * sx, prev[3] * sy), size))
        if not has.any():
            continue
        cut = _superscript_cut(ink, box, limit, high)
        text = "".join(c.text for c in word)
        if cut == box[0] and len(text) <= 4:
            out.extend(_marker_tokens(word, gray, sx, sy, size, pending))
        elif cut is not None and cut > box[0]:
            body = [c for c in word if (c.box[0] + c.box[2]) / 2 < cut] or word[:1]
            while len(body) > 1 and body[-1].text in MISREAD_MARKS:
                body = body[:-1]  # tesseract's guess at the raised glyph, re-read separately below
            out.append(_word_token(body, sx, sy, size, right=cut))
            out.extend(_marker_tokens([_Char("?", (cut, box[1], box[2], int(limit)))], gray, sx, sy, size, pending))
        else:
            out.append(_word_token(word, sx, sy, size))
    return out


def _superscript_cut(ink: np.ndarray, box: tuple[int, int, int, int], limit: float, high: float) -> int | None:
    """x where trailing raised glyphs start (separate blobs above the baseline reaching cap height), the
    word's left edge when the whole word is raised, or None."""
    x0, y0, x1, y1 = box
    pad = 2
    ox, oy = max(0, x0 - pad), max(0, y0 - pad)
    crop = ink[oy: y1 + pad + 1, ox: x1 + pad + 1]
    if crop.size == 0:
        return None
    count, _, stats, _ = cv2.connectedComponentsWithStats((crop > 0).astype(np.uint8), connectivity=8)
    blobs = [(ox + st[0], oy + st[1], ox + st[0] + st[2], oy + st[1] + st[3]) for st in stats[1:count]
             if st[4] >= 3]
    if not blobs:
        return None
    height = (limit - high) / 0.45 if limit > high else 1.0
    # commas and dots between marker letters ("a,f") are too small to count as grounded glyphs
    grounded = [b for b in blobs if b[3] >= limit and (b[3] - b[1]) >= 0.4 * height]
    raised = [b for b in blobs if b[3] < limit]
    if not grounded:
        return x0 if any(b[1] <= high for b in raised) else None
    right = max(b[2] for b in grounded)
    trailing = [b for b in raised if b[0] >= right - 1]
    if trailing and any(b[1] <= high for b in trailing):
        return min(b[0] for b in trailing)
    return None


def _word_token(chars: list[_Char], sx: float, sy: float, size: float, right: int | None = None) -> Token:
    x0, y0, x1, y1 = _word_box(chars)
    if right is not None:
        x1 = min(x1, right)
    # one token per word keeps tesseract's character order (its glyph boxes overlap)
    return Token("".join(c.text for c in chars), BBox(x0 * sx, y0 * sy, max(x1, x0 + 1) * sx, y1 * sy), size)


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


def reread_markers(tokens: list[Token], pending: list[tuple[int, np.ndarray]]) -> list[Token]:
    """Re-OCR all queued marker crops in one tesseract call: crops stacked, enlarged, letters only."""
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
    out = []
    for token in tokens:
        reread = by_id.get(id(token))
        if reread:
            cleaned = "".join(ch for ch in reread.replace(".", ",").lower() if ch in MARKER_CHARS).strip(",")
            if cleaned:
                token = Token(cleaned, token.bbox, token.size)
        out.append(token)
    return out
