"""Vector route: a pdfplumber page → :class:`PagePrimitives` (glyphs, closed shapes, strokes, links)."""

from __future__ import annotations

import math
from typing import Any

from dkg.parsing.geometry import BBox, Point, polygon_area
from dkg.parsing.models import LinkAnnotation, PagePrimitives, Segment, Shape, Token

THIN = 1.6
# typographic ligatures are the letters they join (``ﬁ`` → ``fi``), as a reader would type them
LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st",
             "\ufb06": "st"}


def _is_dashed(obj: dict[str, Any]) -> bool:
    dash = obj.get("dash")
    if not dash:
        return False
    pattern = dash[0] if isinstance(dash, (list, tuple)) else None
    return bool(pattern)


def _pts(obj: dict[str, Any]) -> list[Point]:
    return [(float(x), float(y)) for x, y in obj.get("pts") or []]


def _subpaths(obj: dict[str, Any], pts: list[Point]) -> list[list[Point]]:
    """Split a path at each move-to, so one drawing operator holding several strokes yields several units."""
    path = obj.get("path") or []
    if not path:
        return [pts]
    subs: list[list[Point]] = []
    for command in path:
        op, *coords = command
        if not coords:
            continue
        point = (float(coords[-1][0]), float(coords[-1][1]))
        if op == "m" or not subs:
            subs.append([point])
        else:
            subs[-1].append(point)
    return [sub for sub in subs if len(sub) >= 2]


def _closed(obj: dict[str, Any], pts: list[Point]) -> bool:
    path = obj.get("path") or []
    if any(cmd[0] == "h" for cmd in path):
        return True
    if len(pts) >= 3 and math.dist(pts[0], pts[-1]) <= 0.75:
        return True
    return bool(obj.get("fill")) and len(pts) >= 3


def extract_primitives(page: Any, page_index_by_objid: dict[object, int]) -> PagePrimitives:
    """Read one pdfplumber page into primitives (coordinates in points, origin top-left)."""
    prims = PagePrimitives(page.page_number, float(page.width), float(page.height), "digital")
    seen: set[tuple[str, int, int]] = set()
    for char in page.chars:
        text = char.get("text", "")
        if not text:
            continue
        text = LIGATURES.get(text, text)
        if all(0xE000 <= ord(ch) <= 0xF8FF for ch in text):
            continue  # a private-use glyph (a bullet or icon from a symbol font) has no text
        bbox = BBox(float(char["x0"]), float(char["top"]), float(char["x1"]), float(char["bottom"]))
        # the same glyph drawn twice on one spot (fake bold, overlapping labels) is one character
        key = (text, round(bbox.x0 * 2), round(bbox.top * 2))
        if key in seen:
            continue
        seen.add(key)
        prims.tokens.append(Token(text, bbox, float(char.get("size") or bbox.height)))
    prims.tokens = _ordinal_suffixes(_drop_covered_spaces(prims.tokens))

    for rect in page.rects:
        bbox = BBox(float(rect["x0"]), float(rect["top"]), float(rect["x1"]), float(rect["bottom"]))
        if bbox.width <= THIN or bbox.height <= THIN:
            if max(bbox.width, bbox.height) > 3:
                if bbox.width <= THIN:
                    x = (bbox.x0 + bbox.x1) / 2
                    prims.segments.append(Segment((x, bbox.top), (x, bbox.bottom), _is_dashed(rect)))
                else:
                    y = (bbox.top + bbox.bottom) / 2
                    prims.segments.append(Segment((bbox.x0, y), (bbox.x1, y), _is_dashed(rect)))
            continue
        corners = ((bbox.x0, bbox.top), (bbox.x1, bbox.top), (bbox.x1, bbox.bottom), (bbox.x0, bbox.bottom))
        prims.shapes.append(Shape(corners, bbox, bool(rect.get("fill")), bool(rect.get("stroke")), "rect"))

    path_id = 0
    for curve in page.curves:
        pts = _pts(curve)
        if len(pts) < 2:
            continue
        if _closed(curve, pts):
            bbox = BBox.around(pts)
            if bbox.width < 1 and bbox.height < 1:
                continue
            has_bezier = any(cmd[0] == "c" for cmd in curve.get("path") or [])
            kind = "rounded" if has_bezier else "polygon"
            if has_bezier and polygon_area(pts) < 0.5 * bbox.area:
                kind = "ellipse" if len(pts) <= 14 else "rounded"
            prims.shapes.append(Shape(tuple(pts), bbox, bool(curve.get("fill")), bool(curve.get("stroke")), kind))
        else:
            dashed = _is_dashed(curve)
            for sub in _subpaths(curve, pts):
                path_id += 1
                for a, b in zip(sub, sub[1:], strict=False):
                    if math.dist(a, b) > 0.2:
                        prims.segments.append(Segment(a, b, dashed, path_id))

    for line in page.lines:
        pts = _pts(line)
        dashed = _is_dashed(line)
        path_id += 1
        for a, b in zip(pts, pts[1:], strict=False):
            if math.dist(a, b) > 0.2:
                prims.segments.append(Segment(a, b, dashed, path_id))

    for annot in page.annots or []:
        target = _link_target(annot, page_index_by_objid, page)
        if target is not None:
            bbox = BBox(float(annot["x0"]), float(annot["top"]), float(annot["x1"]), float(annot["bottom"]))
            prims.links.append(LinkAnnotation(bbox, target))
    return prims


ORDINAL_SUFFIXES = ("st", "nd", "rd", "th")


def _ordinal_suffixes(tokens: list[Token]) -> list[Token]:
    """Raised ``st``/``nd``/``rd``/``th`` straight after a digit (``1st``, ``2nd``) is an ordinal, not a
    footnote marker: its glyphs get the digit's font size, so text layout keeps them as ordinary text."""
    out = list(tokens)
    for i in range(len(out) - 2):
        digit, first, second = out[i], out[i + 1], out[i + 2]
        if not (digit.text.isdigit() and first.text + second.text in ORDINAL_SUFFIXES):
            continue
        if i + 3 < len(out) and out[i + 3].text.isalpha() and out[i + 3].size < digit.size * 0.9:
            continue  # a longer raised word is a marker run, not an ordinal
        small = first.size < digit.size * 0.9 and second.size < digit.size * 0.9
        adjacent = 0 <= first.bbox.x0 - digit.bbox.x1 <= 0.3 * digit.size
        if small and adjacent:
            out[i + 1] = Token(first.text, first.bbox, digit.size, first.glyph)
            out[i + 2] = Token(second.text, second.bbox, digit.size, second.glyph)
    return out


def _drop_covered_spaces(tokens: list[Token]) -> list[Token]:
    """Tokens without space characters drawn over a visible glyph: a space from a neighbouring line (a
    different font size) that lands on a word would split it (``Mo nitoring``)."""
    from shapely import STRtree, box

    visible = [t for t in tokens if t.text.strip()]
    if not visible:
        return tokens
    tree = STRtree([box(t.bbox.x0, t.bbox.top, t.bbox.x1, t.bbox.bottom) for t in visible])
    kept = []
    for token in tokens:
        if not token.text.strip():
            b = token.bbox
            centre_x = (b.x0 + b.x1) / 2
            hits = tree.query(box(centre_x, b.top, centre_x, b.bottom))
            if any(visible[int(i)].bbox.x0 < centre_x < visible[int(i)].bbox.x1 for i in hits):
                continue
        kept.append(token)
    return kept


def _resolve(value: Any) -> Any:
    resolve = getattr(value, "resolve", None)
    return resolve() if callable(resolve) else value


def _link_target(annot: dict[str, Any], index_by_objid: dict[object, int], page: Any) -> int | None:
    data = annot.get("data") or {}
    if str(_resolve(data.get("Subtype", ""))).strip("/'") not in ("Link", "/'Link'") and "Link" not in str(
        data.get("Subtype", "")
    ):
        return None
    dest = _resolve(data.get("Dest"))
    action = _resolve(data.get("A"))
    if dest is None and isinstance(action, dict):
        dest = _resolve(action.get("D"))
    if isinstance(dest, (bytes, str)):
        try:
            dest = _resolve(page.pdf.doc.get_dest(dest))
        except Exception:  # a named destination that does not exist: treat as no link
            return None
        if isinstance(dest, dict):
            dest = _resolve(dest.get("D"))
    if isinstance(dest, (list, tuple)) and dest:
        ref = dest[0]
        objid = getattr(ref, "objid", None)
        if objid is not None:
            return index_by_objid.get(objid)
        if isinstance(ref, int):
            return ref
    return None
