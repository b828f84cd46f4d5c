"""Raster route for scanned pages: deskew, find boxes/connectors/arrowheads with OpenCV, OCR with tesseract.

Produces the same :class:`PagePrimitives` as the vector route, so graph assembly is shared.
"""

from __future__ import annotations

import html
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
from dkg.parsing.ocr_text import LETTERS, clean_marker_read, fix_roman_numerals, infer_key_sequence
from dkg.services.tesseract import ocr_hocr

MARKER_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789,"
TRAILING_PUNCT = set(".,;:)")
MISREAD_MARKS = set("*?'\u2018\u2019\"!\u00ae\u00a9\u2122\u00b0^`")


@dataclass
class _Char:
    text: str
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels


@dataclass
class _PendingMarker:
    """A raised glyph run queued for a whitelisted re-read; ``lead`` when it opens a row (a footnote entry)."""

    token_id: int
    crop: np.ndarray
    lead: bool
    top: float


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
        prims.tokens = _tokens_from_hocr(ocr_hocr(text_image), gray, text_ink, sx, sy, inner)
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


def _tokens_from_hocr(hocr: str, gray: np.ndarray, ink: np.ndarray, sx: float, sy: float,
                      inner: np.ndarray | None = None) -> list[Token]:
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
    pending: list[_PendingMarker] = []
    for row in _rows(words):
        tokens.extend(_line_tokens(row, gray, ink, sx, sy, pending, inner))
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
                 pending: list[_PendingMarker], inner: np.ndarray | None = None) -> list[Token]:
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
    def in_box(word_box: tuple[int, int, int, int]) -> bool:
        """Footnote entries are free text: a row inside a drawn box does not open one."""
        if inner is None:
            return False
        cx, cy = (word_box[0] + word_box[2]) // 2, (word_box[1] + word_box[3]) // 2
        return 0 <= cy < inner.shape[0] and 0 <= cx < inner.shape[1] and bool(inner[cy, cx])

    out: list[Token] = []
    for wi, (word, box, (_, has, _top)) in enumerate(zip(words, boxes, profiles, strict=True)):
        if wi:
            prev = boxes[wi - 1]
            out.append(Token(" ", BBox(prev[2] * sx, prev[1] * sy, box[0] * sx, prev[3] * sy), size))
        if not has.any():
            continue
        text = "".join(c.text for c in word)
        if wi == 0 and not in_box(box):
            lead_end = _leading_cut(ink, box, limit, high)
            if lead_end is not None:
                # a footnote entry opens with its raised key; the rest of the word is ordinary text
                rest = [c for c in word if (c.box[0] + c.box[2]) / 2 > lead_end]
                out.extend(_marker_tokens([_Char("?", (box[0], box[1], lead_end, int(limit)))], gray, sx, sy,
                                          size, pending, lead=True))
                if rest:
                    out.append(_word_token(rest, sx, sy, size))
                continue
        cut = _superscript_cut(ink, box, limit, high)
        if cut is not None and cut[0] == box[0] and len(text) <= 4:
            out.extend(_marker_tokens(word, gray, sx, sy, size, pending, lead=wi == 0 and not in_box(box)))
        elif cut is not None and cut[0] > box[0]:
            start, end = cut
            body = [c for c in word if (c.box[0] + c.box[2]) / 2 < start] or word[:1]
            while len(body) > 1 and body[-1].text in MISREAD_MARKS:
                body = body[:-1]  # tesseract's guess at the raised glyph, re-read separately below
            out.append(_word_token(body, sx, sy, size, right=start))
            out.extend(_marker_tokens([_Char("?", (start, box[1], end, int(limit)))], gray, sx, sy, size, pending))
            # punctuation after the marker ("assessment^f;") is kept as ordinary text
            after = [c for c in word if (c.box[0] + c.box[2]) / 2 >= end and c.text in TRAILING_PUNCT]
            if after:
                out.append(_word_token(after, sx, sy, size))
        else:
            out.append(_word_token(word, sx, sy, size))
    return out


def _blobs(ink: np.ndarray, box: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
    x0, y0, x1, y1 = box
    pad = 2
    ox, oy = max(0, x0 - pad), max(0, y0 - pad)
    crop = ink[oy: y1 + pad + 1, ox: x1 + pad + 1]
    if crop.size == 0:
        return []
    count, _, stats, _ = cv2.connectedComponentsWithStats((crop > 0).astype(np.uint8), connectivity=8)
    return [(ox + st[0], oy + st[1], ox + st[0] + st[2], oy + st[1] + st[3]) for st in stats[1:count] if st[4] >= 3]


def _split_blobs(blobs: list[tuple[int, int, int, int]], limit: float, high: float
                 ) -> tuple[list[tuple[int, int, int, int]], list[tuple[int, int, int, int]]]:
    """(grounded, raised) glyph blobs of a word. Raised: bottom above the baseline zone, or a small glyph whose
    centre sits high (a raised j or i reaches down towards the baseline)."""
    height = (limit - high) / 0.45 if limit > high else 1.0
    baseline = limit + 0.3 * height
    raised, grounded = [], []
    for b in blobs:
        tall = b[3] - b[1]
        lift, top = baseline - b[3], baseline - b[1]
        if b[3] < limit or (tall < 0.75 * height and (b[1] + b[3]) / 2 < baseline - 0.5 * height) or (
                lift >= 0.08 * height and top >= 0.7 * height and tall < 0.7 * height):
            # the last test catches raised letters with a descender (g, j, y) that reach down to the baseline zone
            raised.append(b)
        elif tall >= 0.4 * height:
            # commas and dots between marker letters ("a,f") are too small to count as grounded glyphs
            grounded.append(b)
    return grounded, raised


def _leading_cut(ink: np.ndarray, box: tuple[int, int, int, int], limit: float, high: float) -> int | None:
    """x where a raised glyph run that opens the word ends (``ᶠIMDC factors``), or None."""
    grounded, raised = _split_blobs(_blobs(ink, box), limit, high)
    if not grounded or not raised:
        return None
    left = min(b[0] for b in grounded)
    leading = [b for b in raised if b[2] <= left + 1]
    if leading and any(b[1] <= high for b in leading) and min(b[0] for b in leading) <= left:
        return max(b[2] for b in leading)
    return None


def _superscript_cut(ink: np.ndarray, box: tuple[int, int, int, int], limit: float, high: float
                     ) -> tuple[int, int] | None:
    """x span of trailing raised glyphs (separate blobs above the baseline reaching cap height), the word's
    left edge onwards when the whole word is raised, or None."""
    blobs = _blobs(ink, box)
    if not blobs:
        return None
    grounded, raised = _split_blobs(blobs, limit, high)
    if not grounded:
        if any(b[1] <= high for b in raised):
            return box[0], box[2]
        return None
    right = max(b[2] for b in grounded)
    trailing = [b for b in raised if b[0] >= right - 1]
    height = (limit - high) / 0.45 if limit > high else 1.0
    # a letter, not a dot: the upper dot of a colon can sit as high as a marker when the row is short
    tall = [b for b in trailing if b[1] <= high and b[3] - b[1] >= 0.25 * height]
    if tall:
        # the run ends at its last tall glyph: a raised dot after it belongs to a semicolon or colon
        return min(b[0] for b in trailing), max(b[2] for b in tall) + 1
    # a raised i or j whose stem blurred into the previous letter: only its dot, far above the x-height, is apart
    baseline = limit + 0.3 * height
    dots = [b for b in raised if max(b[2] - b[0], b[3] - b[1]) < 0.25 * height and baseline - b[3] >= 1.05 * height
            and b[0] >= right - 0.5 * height]
    if dots:
        return int(min(b[0] for b in dots) - 0.3 * height), box[2]
    return None


def _word_token(chars: list[_Char], sx: float, sy: float, size: float, right: int | None = None) -> Token:
    x0, y0, x1, y1 = _word_box(chars)
    if right is not None:
        x1 = min(x1, right)
    # one token per word keeps tesseract's character order (its glyph boxes overlap)
    text = fix_roman_numerals("".join(c.text for c in chars))
    return Token(text, BBox(x0 * sx, y0 * sy, max(x1, x0 + 1) * sx, y1 * sy), size)


def _marker_tokens(run: list[_Char], gray: np.ndarray, sx: float, sy: float, size: float,
                   pending: list[_PendingMarker] | None = None, lead: bool = False) -> list[Token]:
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
        pending.append(_PendingMarker(id(token), crop, lead, y0))
    return [token]


def reread_markers(tokens: list[Token], pending: list[_PendingMarker]) -> list[Token]:
    """Re-read queued marker crops enlarged and whitelisted: first the keys that open footnote entries (their
    lettered order fills unreadable ones), then the markers in the text, limited to those keys."""
    if not pending:
        return tokens
    leads = sorted((p for p in pending if p.lead), key=lambda p: p.top)
    inline = [p for p in pending if not p.lead]
    new_text: dict[int, str] = {}
    keys: list[str] = []
    if leads:
        reads = _read_sheet([p.crop for p in leads], LETTERS, line=False)
        if reads is not None:
            keys = infer_key_sequence([clean_marker_read(r, LETTERS) for r in reads])
            for marker, key in zip(leads, keys, strict=True):
                if key:
                    new_text[marker.token_id] = key
    allowed = "".join(sorted({k for k in keys if k})) or LETTERS
    if inline:
        reads = _read_sheet([p.crop for p in inline], allowed + ",")
        if reads is not None:
            for marker, read in zip(inline, reads, strict=True):
                cleaned = clean_marker_read(read, allowed)
                if cleaned:
                    new_text[marker.token_id] = cleaned
    out = []
    for token in tokens:
        text = new_text.get(id(token))
        out.append(Token(text, token.bbox, token.size) if text else token)
    return out


def _read_sheet(crops: list[np.ndarray], whitelist: str, line: bool = True) -> list[str] | None:
    """OCR small crops in one tesseract call, enlarged; one string per crop.

    ``line``: crops side by side on one text line (tesseract reads isolated thin glyphs such as i and j far
    better in a line); otherwise stacked as a block of one-glyph lines, which suits the footnote keys.
    """
    scale, gap = (3, 40) if line else (4, 60)
    big = [cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC) for crop in crops]
    if line:
        height, width = max(c.shape[0] for c in big) + 2 * gap, sum(c.shape[1] + gap for c in big) + gap
    else:
        height, width = sum(c.shape[0] + gap for c in big) + gap, max(c.shape[1] for c in big) + 2 * gap
    sheet = np.full((height, width), 255, dtype=np.uint8)
    spans = []
    offset = gap
    for crop in big:
        ch, cw = crop.shape
        if line:
            y = (height - ch) // 2
            sheet[y: y + ch, offset: offset + cw] = crop
            spans.append((offset, offset + cw))
            offset += cw + gap
        else:
            sheet[offset: offset + ch, gap: gap + cw] = crop
            spans.append((offset, offset + ch))
            offset += ch + gap
    try:
        hocr = ocr_hocr(sheet, psm=7 if line else 6, whitelist=whitelist)
    except Exception:  # a failed re-read keeps tesseract's first guesses
        return None
    reads = [""] * len(crops)
    for match in _CHAR_BOX.finditer(hocr):
        x0, y0, x1, y1 = (int(v) for v in match.groups()[:4])
        center = (x0 + x1) / 2 if line else (y0 + y1) / 2
        for index, (a, b) in enumerate(spans):
            if a - gap / 2 <= center <= b + gap / 2:
                reads[index] += html.unescape(match[5])
    return reads


_CHAR_BOX = re.compile(r"<span class='ocrx_cinfo' title='x_bboxes (\d+) (\d+) (\d+) (\d+)[^']*'>([^<]*)</span>")
