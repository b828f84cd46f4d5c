"""Vector route: a pdfplumber page → :class:`PagePrimitives` (glyphs, closed shapes, strokes, links)."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

from dkg.parsing.geometry import BBox, Point, point_segment_distance, polygon_area
from dkg.parsing.models import LinkAnnotation, PagePrimitives, Segment, Shape, Token
from dkg.parsing.settings import DEFAULT_TEXT_LAYER_SETTINGS, TextLayerSettings

THIN = 1.6
# typographic ligatures are the letters they join (``ﬁ`` → ``fi``), as a reader would type them
LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st",
             "\ufb06": "st"}
# how pdfminer writes a glyph its font gives no character for
UNMAPPED = re.compile(r"\(cid:\d+\)")
BULLET = "\u2022"
UNKNOWN = "\ufffd"  # the Unicode replacement character: a glyph whose character is not known


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


def unmapped_share(chars: list[dict[str, Any]]) -> float:
    """The share of the visible glyphs in ``chars`` that have no character (``(cid:N)``)."""
    visible = [c for c in chars if c.get("text", "").strip()]
    return sum(1 for c in visible if UNMAPPED.fullmatch(c["text"])) / len(visible) if visible else 0.0


def extract_primitives(page: Any, page_index_by_objid: dict[object, int],
                       text_layer: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS) -> PagePrimitives:
    """Read one pdfplumber page into primitives (coordinates in points, origin top-left). A glyph with no
    character is a list bullet (``text_layer``) or ``\ufffd``; ``prims.unmapped_*`` count them."""
    prims = PagePrimitives(page.page_number, float(page.width), float(page.height), "digital")
    seen: set[tuple[str, int, int]] = set()
    symbols: list[Token] = []
    unknown: list[Token] = []
    for char in page.chars:
        text = char.get("text", "")
        if not text:
            continue
        if UNMAPPED.fullmatch(text):
            # never left out: a digit dropped from a dose would read as another dose
            prims.unmapped_glyphs += 1
            bbox = BBox(float(char["x0"]), float(char["top"]), float(char["x1"]), float(char["bottom"]))
            glyph = Token(UNKNOWN, bbox, float(char.get("size") or bbox.height))
            (symbols if text_layer.is_symbol_font(str(char.get("fontname", ""))) else unknown).append(glyph)
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
    leading = [_first_on_line(t, prims.tokens) for t in symbols]
    glyphs = [replace(t, text=BULLET) if lead else t for t, lead in zip(symbols, leading, strict=True)]
    prims.unmapped_bullets = sum(leading)
    prims.tokens = _ordinal_suffixes(_drop_covered_spaces(prims.tokens + glyphs + unknown))

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
            head = _outlined_head(pts, bbox) if not curve.get("fill") else None
            if head is not None:  # a small triangle drawn only in outline is an arrowhead all the same
                prims.arrowheads.append(Shape(head, BBox.around(head), True, False, "polygon"))
                continue
            arrow = _arrow_in_one_path(pts, bbox) if curve.get("fill") else None
            if arrow is not None:  # a line and its head filled as one path
                path_id += 1
                shaft, head = arrow
                prims.segments.append(Segment(shaft[0], shaft[1], _is_dashed(curve), path_id))
                prims.arrowheads.append(Shape(head, BBox.around(head), True, False, "polygon"))
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

    prims.segments, open_heads = _open_heads(prims.segments)
    prims.arrowheads.extend(open_heads)
    prims.segments, line_boxes = _line_boxes(prims.segments)
    prims.shapes.extend(line_boxes)

    for annot in page.annots or []:
        target = _link_target(annot, page_index_by_objid, page)
        if target is not None:
            bbox = BBox(float(annot["x0"]), float(annot["top"]), float(annot["x1"]), float(annot["bottom"]))
            prims.links.append(LinkAnnotation(bbox, target))
    return prims


# an arrowhead is at most this long on its longest side (points; as assemble.ARROWHEAD_MAX), a wing of an
# open (two-stroke) head at most ``WING_MAX`` long
HEAD_MAX = 22.0
WING_MAX = 15.0
Triangle = tuple[Point, Point, Point]


def _outlined_head(pts: list[Point], bbox: BBox) -> Triangle | None:
    """The three corners of a small closed triangle (an arrowhead drawn in outline only), else None."""
    corners: list[Point] = []
    for p in pts:
        if not corners or math.dist(corners[-1], p) > 0.5:
            corners.append(p)
    if len(corners) > 3 and math.dist(corners[0], corners[-1]) <= 0.5:
        corners.pop()
    if len(corners) != 3 or max(bbox.width, bbox.height) > HEAD_MAX or polygon_area(corners) < 2.0:
        return None
    return corners[0], corners[1], corners[2]


def _arrow_in_one_path(pts: list[Point], bbox: BBox) -> tuple[tuple[Point, Point], Triangle] | None:
    """``((tail, base), head)`` of a filled path that draws a line and its arrowhead in one go: long and thin,
    its area no more than a head's (the line encloses none), one vertex out to each side of the line near one
    end. A block arrow (its shaft has a width) encloses far more of its bounding box and is not one."""
    vertical = bbox.height >= bbox.width
    length, across = (bbox.height, bbox.width) if vertical else (bbox.width, bbox.height)
    if across > HEAD_MAX or length < 2 * across or length < 12 or polygon_area(pts) > 0.25 * bbox.area:
        return None
    along = 1 if vertical else 0
    start = min(pts, key=lambda p: p[along])
    end = max(pts, key=lambda p: p[along])
    centre = (start[1 - along] + end[1 - along]) / 2
    left = min(pts, key=lambda p: p[1 - along])
    right = max(pts, key=lambda p: p[1 - along])
    if centre - left[1 - along] < 1.5 or right[1 - along] - centre < 1.5:
        return None
    base = ((left[0] + right[0]) / 2, (left[1] + right[1]) / 2)
    tip, tail = (start, end) if math.dist(base, start) < math.dist(base, end) else (end, start)
    if math.dist(base, tip) > HEAD_MAX or math.dist(base, tail) < math.dist(base, tip):
        return None
    if any(p not in (left, right) and point_segment_distance(p, tail, tip) > 1.0 for p in pts):
        return None  # every other vertex lies on the line (a star or a pictogram has vertices all round)
    return (tail, base), (tip, left, right)


def _open_heads(segments: list[Segment]) -> tuple[list[Segment], list[Shape]]:
    """Open arrowheads (a V of two short strokes whose point is a line's end, its wings turned back along the
    line) as triangles, and the strokes without their wings: the V says which way the line runs."""
    short = [i for i, s in enumerate(segments) if 2.0 <= math.dist(s.a, s.b) <= WING_MAX]
    wings: set[int] = set()
    heads: list[Shape] = []
    for n, i in enumerate(short):
        for j in short[n + 1:]:
            if i in wings or j in wings:
                continue
            found = _v_point(segments[i], segments[j])
            if found is None:
                continue
            tip, w1, w2 = found
            bisector = ((w1[0] + w2[0]) / 2 - tip[0], (w1[1] + w2[1]) / 2 - tip[1])
            if any(k not in (i, j) and _is_shaft(seg, tip, bisector) for k, seg in enumerate(segments)):
                wings |= {i, j}
                heads.append(Shape((tip, w1, w2), BBox.around((tip, w1, w2)), True, False, "polygon"))
    return [s for k, s in enumerate(segments) if k not in wings], heads


def _v_point(a: Segment, b: Segment) -> Triangle | None:
    """``(point, wing end, wing end)`` when two strokes meet at one end at an angle of 20-120 degrees."""
    for p, q in ((a.a, a.b), (a.b, a.a)):
        for r, t in ((b.a, b.b), (b.b, b.a)):
            if math.dist(p, r) > 0.75:
                continue
            u = (q[0] - p[0], q[1] - p[1])
            v = (t[0] - p[0], t[1] - p[1])
            cos = (u[0] * v[0] + u[1] * v[1]) / (math.hypot(*u) * math.hypot(*v))
            if math.cos(math.radians(120)) <= cos <= math.cos(math.radians(20)):
                return p, q, t
    return None


def _is_shaft(seg: Segment, tip: Point, bisector: Point) -> bool:
    """Whether ``seg`` ends at ``tip`` and runs back along ``bisector`` (within 30 degrees), longer than a wing."""
    for p, q in ((seg.a, seg.b), (seg.b, seg.a)):
        if math.dist(p, tip) > 1.0 or math.dist(p, q) <= WING_MAX:
            continue
        d = (q[0] - p[0], q[1] - p[1])
        cos = (d[0] * bisector[0] + d[1] * bisector[1]) / (math.hypot(*d) * math.hypot(*bisector) or 1.0)
        if cos >= math.cos(math.radians(30)):
            return True
    return False


# the four sides of a box drawn as separate lines meet at its corners within this many points
CORNER_TOL = 1.5


def _line_boxes(segments: list[Segment]) -> tuple[list[Segment], list[Shape]]:
    """Boxes drawn as four separate lines (two level, two upright, each exactly one side: corner to corner)
    as rect shapes, and the strokes without those sides. A table's rules run past its cells' corners, so a
    grid gives no boxes."""
    level = [i for i, s in enumerate(segments) if abs(s.a[1] - s.b[1]) <= 0.2 and abs(s.a[0] - s.b[0]) > 3]
    upright = [i for i, s in enumerate(segments) if abs(s.a[0] - s.b[0]) <= 0.2 and abs(s.a[1] - s.b[1]) > 3]

    def span(i: int, axis: int) -> tuple[float, float, float]:
        seg = segments[i]
        lo, hi = sorted((seg.a[axis], seg.b[axis]))
        return lo, hi, seg.a[1 - axis]

    used: set[int] = set()
    shapes: list[Shape] = []
    for top_index in level:
        x0, x1, top = span(top_index, 0)
        for bottom_index in level:
            bx0, bx1, bottom = span(bottom_index, 0)
            if {top_index, bottom_index} & used or bottom - top <= 3:
                continue
            if abs(bx0 - x0) > CORNER_TOL or abs(bx1 - x1) > CORNER_TOL:
                continue
            sides = []
            for x in (x0, x1):
                side = next((i for i in upright if i not in used and abs(span(i, 1)[2] - x) <= CORNER_TOL
                             and abs(span(i, 1)[0] - top) <= CORNER_TOL
                             and abs(span(i, 1)[1] - bottom) <= CORNER_TOL), None)
                if side is not None:
                    sides.append(side)
            if len(sides) != 2 or sides[0] == sides[1]:
                continue
            bbox = BBox(x0, top, x1, bottom)
            if _ruled_across(segments, bbox, {top_index, bottom_index, *sides}):
                continue  # a table's frame: rules run across it from side to side
            used |= {top_index, bottom_index, *sides}
            corners = ((x0, top), (x1, top), (x1, bottom), (x0, bottom))
            shapes.append(Shape(corners, bbox, False, True, "rect"))
            break
    return [s for i, s in enumerate(segments) if i not in used], shapes


def _ruled_across(segments: list[Segment], bbox: BBox, own: set[int]) -> bool:
    """Whether a stroke other than ``own`` runs inside ``bbox`` from one side to the opposite side."""
    for i, seg in enumerate(segments):
        if i in own:
            continue
        (ax, ay), (bx, by) = seg.a, seg.b
        if abs(ay - by) <= 0.2 and bbox.top < ay < bbox.bottom:
            if min(ax, bx) <= bbox.x0 + CORNER_TOL and max(ax, bx) >= bbox.x1 - CORNER_TOL:
                return True
        if abs(ax - bx) <= 0.2 and bbox.x0 < ax < bbox.x1:
            if min(ay, by) <= bbox.top + CORNER_TOL and max(ay, by) >= bbox.bottom - CORNER_TOL:
                return True
    return False


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


def _first_on_line(glyph: Token, tokens: list[Token]) -> bool:
    """Whether no visible glyph stands within a glyph size left of ``glyph`` on its line (it leads its line, as a
    list bullet does; a sign inside a phrase has a word right before it)."""
    middle = (glyph.bbox.top + glyph.bbox.bottom) / 2
    return not any(t.text.strip() and t.bbox.top <= middle <= t.bbox.bottom
                   and -0.5 < glyph.bbox.x0 - t.bbox.x1 < glyph.size for t in tokens)
