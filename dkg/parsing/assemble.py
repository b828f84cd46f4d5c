"""Graph assembly shared by the vector and raster routes: primitives → boxes, connectors, labels, zones."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from dkg.parsing.geometry import (
    BBox,
    Point,
    UnionFind,
    point_segment_distance,
    polygon_contains,
    segment_box_distance,
)
from dkg.parsing.models import PagePrimitives, Segment, Shape, Token
from dkg.parsing.settings import DEFAULT_SETTINGS, AssemblySettings
from dkg.parsing.strokes import TOUCH_TOL, StrokeGraph, flood, orientation, straight_lines
from dkg.parsing.textlayout import Line, TextBlock, build_lines, group_blocks

PAGE_CODE = re.compile(r"\b([A-Z][A-Z0-9]{0,11}-\d{1,3})\b")
ARROWHEAD_MAX = 22.0


@dataclass
class RawBox:
    bbox: BBox
    kind: str
    tokens: list[Token] = field(default_factory=list)
    points: tuple[Point, ...] = ()
    block: TextBlock | None = None
    id: str = ""
    # the tip of a pointer drawn as part of the box's outline (a chevron below a band), if there is one
    pointer: Point | None = None
    dark: bool = False  # see Shape.dark


@dataclass
class RawConnector:
    sources: list[int]
    targets: list[int]
    segments: list[Segment]
    kind: str
    labels: dict[int, list[TextBlock]] = field(default_factory=dict)
    directed: bool = True
    target_segments: dict[int, set[int]] = field(default_factory=dict)
    source_segments: set[int] = field(default_factory=set)


@dataclass
class PageLayout:
    """What assembly found on one page, before footnote expansion and link resolution."""

    boxes: list[RawBox]
    connectors: list[RawConnector]
    header: list[Line]
    bottom: list[Line]
    other: list[TextBlock]
    code: str | None
    warnings: list[str]
    # boxes holding only a branch label (YES / NO / OR): their text labels the connector they stand on
    label_boxes: list[RawBox] = field(default_factory=list)
    # the page's title: its header's largest lines, when they stand out from the page's text (else None)
    title: str | None = None


def _shape_kind(shape: Shape) -> str:
    if shape.kind != "polygon":
        return shape.kind
    pts = _dedupe(shape.points)
    if len(pts) == 4:
        def ratio(a: Point, b: Point) -> float:
            dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
            return min(dx, dy) / max(dx, dy, 1e-6)

        ratios = [ratio(a, b) for a, b in zip(pts, pts[1:] + pts[:1], strict=True)]
        if all(r <= 0.15 for r in ratios):
            return "rect"
        if all(r >= 0.2 for r in ratios):
            return "diamond"
    return "polygon"


def _dedupe(points: tuple[Point, ...]) -> list[Point]:
    out: list[Point] = []
    for p in points:
        if not out or math.dist(out[-1], p) > 0.5:
            out.append(p)
    if len(out) > 1 and math.dist(out[0], out[-1]) <= 0.5:
        out.pop()
    return out


def _inside(shape_box: RawBox, point: Point) -> bool:
    if not shape_box.bbox.contains_point(point, tol=0.5):
        return False
    if shape_box.kind == "diamond" and shape_box.points:
        return polygon_contains(shape_box.points, point)
    return True


def _is_block_arrow(shape: Shape, both_axes: bool = False) -> Point | None:
    """Return the tip of a block-arrow polygon (a single extreme vertex along its long axis), else None.
    ``both_axes``: also try the short axis (a squat arrow, wider than it is long, between two bands)."""
    pts = _dedupe(shape.points)
    if not 5 <= len(pts) <= 11 or shape.kind == "rounded":
        return None
    box = shape.bbox
    long_vertical = box.height >= box.width
    for vertical in ((long_vertical, not long_vertical) if both_axes else (long_vertical,)):
        coord = (lambda p: p[1]) if vertical else (lambda p: p[0])
        lo, hi = (box.top, box.bottom) if vertical else (box.x0, box.x1)
        at_lo = [p for p in pts if abs(coord(p) - lo) < 1.0]
        at_hi = [p for p in pts if abs(coord(p) - hi) < 1.0]
        if len(at_hi) == 1 and len(at_lo) >= 2:
            return at_hi[0]
        if len(at_lo) == 1 and len(at_hi) >= 2:
            return at_lo[0]
    return None


def assemble(prims: PagePrimitives, settings: AssemblySettings = DEFAULT_SETTINGS) -> PageLayout:
    """Turn one page's primitives into boxes, connector trees, labels and header/footer zones."""
    warnings: list[str] = []
    candidates: list[RawBox] = []
    arrowheads: list[Shape] = list(prims.arrowheads)
    empties: list[Shape] = []
    shapes = drop_shadows(prims.shapes, settings)
    for shape in shapes:
        pointer = box_pointer(shape, settings)
        if pointer is not None:
            candidates.append(RawBox(pointer[0], "pointer", pointer=pointer[1]))
            continue
        candidates.append(RawBox(shape.bbox, _shape_kind(shape), points=tuple(_dedupe(shape.points)) or (),
                                 dark=shape.dark))
    # each token belongs to the smallest shape holding its centre
    free: list[Token] = []
    hidden: list[Token] = []  # text hidden between two stacked boxes: kept as free text, labels no connector
    by_area = sorted(range(len(candidates)), key=lambda i: candidates[i].bbox.area)
    for token in prims.tokens:
        center = token.bbox.center
        for index in by_area:
            if _inside(candidates[index], center):
                candidates[index].tokens.append(token)
                break
        else:
            if _hidden_between(token, candidates, settings):
                hidden.append(token)
                continue
            overflow = _overflowed(token, candidates, by_area, settings)
            (free if overflow is None else candidates[overflow].tokens).append(token)
    boxes: list[RawBox] = []
    for shape, cand in zip(shapes, candidates, strict=True):
        small_filled = max(shape.bbox.width, shape.bbox.height) <= ARROWHEAD_MAX and shape.filled
        visible = [t for t in cand.tokens if t.text.strip()]
        label_background = settings.loop_arrows and bool(visible) and _shape_kind(shape) == "rect"
        if small_filled and len(visible) <= 2 and not label_background:
            # a label glyph that strays onto an arrowhead does not make the arrowhead a box (a small filled
            # rectangle holding text is a label's background: its text stands on it, a box of its own)
            free.extend(cand.tokens)
            arrowheads.append(shape)
        elif visible and prims.source == "ocr" and not any(sum(c.isalnum() for c in t.text) >= 2 for t in visible):
            # a white area closed in by connectors and box sides, holding only OCR noise from arrowheads
            # (``c <C``): a drawn box holds at least one word
            continue
        elif visible:
            boxes.append(cand)
        else:
            empties.append(shape)
    # a text-less shape around text boxes may be the box itself, its text drawn on shaded pieces inside it
    # (a table cell shaded line by line): _merge_bands decides
    frames = [cand for shape, cand in zip(shapes, candidates, strict=True)
              if shape in empties and any(cand.bbox.contains(b.bbox, 0.5) for b in boxes)]
    boxes = _merge_bands(boxes + frames, free, settings)
    boxes = [b for b in boxes if b.tokens]
    segments = list(prims.segments)
    label_boxes, free_labels = _branch_label_boxes(boxes, segments, arrowheads, settings)
    for label in free_labels:
        free.extend(label.tokens)
    boxes = [b for b in boxes if b not in label_boxes and b not in free_labels]
    boxes.sort(key=lambda b: (round(b.bbox.top / 4), b.bbox.x0))
    for index, box in enumerate(boxes):
        box.id = f"p{prims.page_number}-b{index + 1}"
        box.block = TextBlock(build_lines(box.tokens))
    for index, label in enumerate(label_boxes):
        label.id = f"p{prims.page_number}-l{index + 1}"

    segments = _drop_border_segments(segments, boxes)
    text_labels = _branch_label_texts(free, boxes, segments, arrowheads, settings,
                                      prims.source != "ocr" or settings.label_broken_line_scanned)
    for index, label in enumerate(text_labels, start=len(label_boxes) + 1):
        label.id = f"p{prims.page_number}-l{index}"
    taken = {id(token) for label in text_labels for token in label.tokens}
    free = [token for token in free if id(token) not in taken]
    label_boxes = label_boxes + text_labels
    bridges, heads_in_front = _label_bridges(label_boxes, segments, arrowheads, boxes, settings)
    segments += bridges
    arrowheads += heads_in_front
    segments += _dangling_bridges(segments, arrowheads, boxes, settings)
    connectors = _connector_trees(segments, arrowheads, boxes, warnings, prims.source == "ocr", settings)
    for shape in empties:
        tip = _is_block_arrow(shape, both_axes=prims.source != "ocr")
        if tip is None:
            continue
        connector = _block_arrow(shape, tip, boxes, settings)
        if connector is not None:
            connectors.append(connector)

    connectors += _pointer_arrows(boxes, settings)
    connectors += _sibling_rows(boxes, connectors, warnings, settings)
    listed = _list_fanouts(boxes, connectors, warnings, settings)
    connectors += listed
    connectors += _stacked(boxes, connectors, warnings, settings,
                           skip={t for c in listed for t in c.targets})

    free_lines = build_lines(free)
    used = [b for b in boxes]
    if used:
        top = min(b.bbox.top for b in used)
        bottom = max(b.bbox.bottom for b in used)
        for connector in connectors:
            for seg in connector.segments:
                bottom = max(bottom, seg.a[1], seg.b[1])
    else:
        top, bottom = prims.height * 0.08, prims.height * 0.9
    header = [ln for ln in free_lines if ln.bbox.bottom <= top + 1]
    bottom_zone = [ln for ln in free_lines if ln.bbox.top >= bottom - 1 and ln not in header]
    middle = [ln for ln in free_lines if ln not in header and ln not in bottom_zone]
    label_blocks = [label.block for label in label_boxes if label.block is not None]
    other = _assign_labels(label_blocks + group_blocks(middle), connectors, settings)
    other += group_blocks(build_lines(hidden))
    code = None
    for line in reversed(bottom_zone):
        match = PAGE_CODE.findall(line.plain)
        if match:
            code = match[-1]
            break
    if code is None:
        for line in header:
            match = PAGE_CODE.findall(line.plain)
            if match:
                code = match[-1]
                break
    body = [ln for b in boxes if b.block is not None for ln in b.block.lines] + free_lines
    # a title set large may reach below the top of the first box beside it: lines that start above it count
    above = [ln for ln in free_lines if ln.bbox.top < top] if used else header
    title = page_title(above, [ln.size for ln in body], settings)
    return PageLayout(boxes, connectors, header, bottom_zone, other, code, warnings, label_boxes, title)


def page_title(header: list[Line], sizes: list[float], settings: AssemblySettings = DEFAULT_SETTINGS) -> str | None:
    """The text of the largest of the ``header`` lines (free text starting above the flowchart) when their
    size is at least ``settings.title_size_ratio`` times the median size of the page's lines (a flowchart's name
    printed above it: "TACHYCARDIA w/ PULSE"); None when no line stands out (running heads, body text).

    >>> from dkg.parsing.geometry import BBox
    >>> from dkg.parsing.textlayout import Piece
    >>> def line(text, size, top):
    ...     return Line([Piece(text)], BBox(10, top, 200, top + size), size)
    >>> header = [line("TABLE OF CONTENTS", 12, 16), line("PEDIATRIC TACHYCARDIA with", 30, 45),
    ...           line("Pulse and Poor Perfusion", 30, 80)]
    >>> page_title(header, [10, 10, 10, 12, 30, 30])
    'PEDIATRIC TACHYCARDIA with Pulse and Poor Perfusion'
    >>> page_title([line("CBRN Injury Response Part 4", 9, 50)], [9, 10, 10, 10]) is None
    True
    """
    if not header or not sizes:
        return None
    biggest = max(ln.size for ln in header)
    if biggest < settings.title_size_ratio * float(np.median(sizes)):
        return None
    lines = sorted((ln for ln in header if ln.size >= biggest - settings.title_size_tol),
                   key=lambda ln: (ln.bbox.top, ln.bbox.x0))
    text = " ".join(" ".join(ln.plain.split()) for ln in lines).strip()
    return text or None


def _overflowed(token: Token, candidates: list[RawBox], by_area: list[int],
                settings: AssemblySettings) -> int | None:
    """The box a glyph overflows: text running past a box's bottom edge (the box was drawn too short for it)
    whose glyph stands at least ``overflow_share`` of its height inside the box, horizontally within it."""
    b = token.bbox
    if b.height <= 0:
        return None
    for index in by_area:
        box = candidates[index].bbox
        inside = min(b.bottom, box.bottom) - max(b.top, box.top)
        if (box.x0 <= b.center[0] <= box.x1 and b.top < box.bottom < b.bottom
                and inside >= settings.overflow_share * b.height):
            return index
    return None


def _hidden_between(token: Token, candidates: list[RawBox], settings: AssemblySettings) -> bool:
    """Whether a glyph stands across the gap between a box and the box stacked under it (in one column), at least
    ``overflow_share`` of its height inside each: text overflowing a box that the next box covers is hidden on
    the page, part of neither box (a glyph only grazing the lower box still overflows the upper one)."""
    b = token.bbox
    x, least = b.center[0], settings.overflow_share * b.height
    boxes = [c.bbox for c in candidates if c.bbox.x0 <= x <= c.bbox.x1 and c.bbox.height > b.height]
    uppers = [c for c in boxes if b.top < c.bottom < b.bottom and c.bottom - b.top >= least]
    lowers = [c for c in boxes if b.top < c.top < b.bottom and b.bottom - c.top >= least]
    return any(upper.bottom <= lower.top and _stack_pair(upper, lower, settings)
               for upper in uppers for lower in lowers)


def _stack_pair(a: BBox, b: BBox, settings: AssemblySettings) -> bool:
    """Whether two boxes one above the other stand in one column: the narrower at least ``stack_overlap`` of
    its width under the wider, and at least ``stack_width_ratio`` of its width (a page-wide panel under a
    step box is not stacked on it)."""
    overlap = min(a.x1, b.x1) - max(a.x0, b.x0)
    narrow = min(a.width, b.width)
    return (narrow > 0 and overlap >= settings.stack_overlap * narrow
            and narrow >= settings.stack_width_ratio * max(a.width, b.width))


def drop_shadows(shapes: list[Shape], settings: AssemblySettings = DEFAULT_SETTINGS) -> list[Shape]:
    """The shapes without drop shadows: a filled shape drawn before another shape of the same size, offset
    from it by a few points, is that shape's shadow (one box, not two)."""
    if len(shapes) < 2:
        return list(shapes)
    from shapely import STRtree, box

    tree = STRtree([box(s.bbox.x0, s.bbox.top, s.bbox.x1, s.bbox.bottom) for s in shapes])
    reach = settings.shadow_offset_max + settings.shadow_size_tol
    shadows: set[int] = set()
    for index, shape in enumerate(shapes):
        if not shape.filled:
            continue
        b = shape.bbox
        for other_index in tree.query(box(b.x0 - reach, b.top - reach, b.x1 + reach, b.bottom + reach)):
            other = int(other_index)
            if other <= index or other in shadows:
                continue  # the shadow is drawn first, under its box
            o = shapes[other].bbox
            same_size = (abs(o.width - b.width) <= settings.shadow_size_tol
                         and abs(o.height - b.height) <= settings.shadow_size_tol)
            dx, dy = b.x0 - o.x0, b.top - o.top
            offset = max(abs(dx), abs(dy))
            if same_size and 0.3 <= offset <= settings.shadow_offset_max and (dx, dy) != (0.0, 0.0):
                shadows.add(index)
                break
    return [shape for index, shape in enumerate(shapes) if index not in shadows]


def _plain(box: RawBox) -> str:
    return " ".join(line.plain for line in build_lines(box.tokens)).strip()


def _branch_label_boxes(boxes: list[RawBox], segments: list[Segment], arrowheads: list[Shape],
                        settings: AssemblySettings) -> tuple[list[RawBox], list[RawBox]]:
    """``(label boxes standing on a stroke or arrowhead, label boxes standing on none)``: boxes whose only text
    is a branch label. Those on no stroke are read as free text (they may still label a nearby connector)."""
    on_connector: list[RawBox] = []
    loose: list[RawBox] = []
    for box in boxes:
        lines = build_lines(box.tokens)
        if len(lines) != 1 or not settings.is_branch_label(_plain(box)):
            continue
        box.block = TextBlock(lines)
        inner = box.bbox.expand(1.5)
        near = settings.label_on_connector
        touches = any(
            not (inner.contains_point(seg.a) and inner.contains_point(seg.b))
            and segment_box_distance(seg.a, seg.b, box.bbox) <= near for seg in segments
        ) or any(head.bbox.distance_to_box(box.bbox) <= near for head in arrowheads)
        (on_connector if touches else loose).append(box)
    return on_connector, loose


def _dangling_bridges(segments: list[Segment], arrowheads: list[Shape], boxes: list[RawBox],
                      settings: AssemblySettings) -> list[Segment]:
    """Strokes closing the small gap a straight line's free end (at no box, stroke or arrowhead) leaves before
    the line it runs onto: a tick dropped onto a fan-out bar that stops a few points short of it."""
    from shapely.geometry import LineString

    lines = [LineString([seg.a, seg.b]) for seg in segments]
    bridges: list[Segment] = []
    for index, seg in enumerate(segments):
        kind = orientation(seg)
        length = math.dist(seg.a, seg.b)
        if kind is None or length < 1:
            continue
        for end, other_end in ((seg.a, seg.b), (seg.b, seg.a)):
            if (any(_box_distance(box, end) <= settings.attach_tol for box in boxes)
                    or any(h.bbox.expand(TOUCH_TOL).contains_point(end) for h in arrowheads)
                    or any(k != index and point_segment_distance(end, o.a, o.b) <= TOUCH_TOL
                           for k, o in enumerate(segments))):
                continue
            dx, dy = (end[0] - other_end[0]) / length, (end[1] - other_end[1]) / length
            reach = LineString([end, (end[0] + dx * settings.junction_gap, end[1] + dy * settings.junction_gap)])
            hits: list[tuple[float, Point]] = []
            for k in range(len(segments)):
                if k == index or not reach.intersects(lines[k]):
                    continue
                meet = reach.intersection(lines[k])
                if meet.geom_type == "Point":  # a crossing, not a collinear continuation
                    hits.append((math.dist(end, (meet.x, meet.y)), (meet.x, meet.y)))
            if hits:
                bridges.append(Segment(end, min(hits)[1]))
    return bridges


def _touches(bbox: BBox, segments: list[Segment], arrowheads: list[Shape], near: float) -> int:
    """How many stroke ends and arrowheads come within ``near`` of ``bbox`` (strokes inside it excluded)."""
    inner = bbox.expand(1.5)
    ends = sum(1 for seg in segments for point in (seg.a, seg.b)
               if bbox.distance_to_point(point) <= near
               and not (inner.contains_point(seg.a) and inner.contains_point(seg.b)))
    return ends + sum(1 for head in arrowheads if head.bbox.distance_to_box(bbox) <= near)


def _branch_label_texts(free: list[Token], boxes: list[RawBox], segments: list[Segment], arrowheads: list[Shape],
                        settings: AssemblySettings, digital: bool = True) -> list[RawBox]:
    """Free text that only names a branch and stands in a connector's path: between two stroke ends (the line
    is broken for the label; on scanned pages only with an arrowhead at it, the broken scan strokes leave ends
    everywhere), or in front of a box an arrowhead points at through it."""
    labels: list[RawBox] = []
    for block in group_blocks(build_lines(free)):
        text = " ".join(line.plain for line in block.lines)
        branch = len(block.lines) == 1 and settings.is_branch_label(text)
        bbox = block.bbox
        count = _touches(bbox, segments, arrowheads, settings.label_on_connector)
        heads = [h for h in arrowheads if h.bbox.distance_to_box(bbox) <= settings.label_on_connector]
        in_front = (branch and len(heads) == 1 and count == 1
                    and _box_in_front(bbox, heads[0], boxes, settings) is not None)
        broken = branch and count >= 2 and bool(
            heads or (digital and _ends_on_two_sides(bbox, segments, settings.label_on_connector)))
        if broken or in_front or _arrow_through(bbox, segments, heads, settings):
            tokens = [t for t in free if bbox.expand(0.5).contains_point(t.bbox.center)]
            labels.append(RawBox(bbox, "text", tokens=tokens, block=block))
    return labels


def _ends_on_two_sides(bbox: BBox, segments: list[Segment], near: float) -> bool:
    """Whether stroke ends within ``near`` of ``bbox`` stand on at least two of its sides (left, right, above,
    below): a line broken for the label and going on from another side, its arrowhead further along."""
    sides: set[str] = set()
    for seg in segments:
        for point in (seg.a, seg.b):
            if bbox.distance_to_point(point) > near:
                continue
            x, y = point
            out = {"left": bbox.x0 - x, "right": x - bbox.x1, "above": bbox.top - y, "below": y - bbox.bottom}
            side = max(out, key=lambda k: out[k])
            if out[side] > 0:  # the side the end stands furthest out of (an end inside the label counts for none)
                sides.add(side)
    return len(sides) >= 2


def _arrow_through(bbox: BBox, segments: list[Segment], heads: list[Shape], settings: AssemblySettings) -> bool:
    """Whether an arrow runs into free text and a line leaves it again: exactly one arrowhead whose tip points
    at the text, and exactly one stroke end at the text (other than the arrow's own shaft)."""
    if len(heads) != 1:
        return False
    pointed = head_tip(heads[0], settings)
    if pointed is None or bbox.distance_to_point(pointed[0]) >= bbox.distance_to_point(pointed[1]):
        return False
    shaft = heads[0].bbox.expand(TOUCH_TOL)
    ends = [p for seg in segments for p in (seg.a, seg.b)
            if bbox.distance_to_point(p) <= settings.label_on_connector and not shaft.contains_point(p)]
    return len(ends) == 1


def _box_in_front(label: BBox, head: Shape, boxes: list[RawBox], settings: AssemblySettings) -> int | None:
    """The box an arrowhead points at through a label standing just before it: the nearest box within
    ``head_reach`` of the label, on the far side of the label from the arrowhead."""
    hx, hy = head.bbox.center
    lx, ly = label.center
    best: tuple[float, int] | None = None
    for bi, box in enumerate(boxes):
        gap = box.bbox.distance_to_box(label)
        if gap > settings.head_reach:
            continue
        bx, by = box.bbox.center
        if (bx - lx) * (lx - hx) + (by - ly) * (ly - hy) <= 0:
            continue  # the box stands on the arrowhead's side of the label
        if best is None or gap < best[0]:
            best = (gap, bi)
    return None if best is None else best[1]


def _label_bridges(labels: list[RawBox], segments: list[Segment], arrowheads: list[Shape], boxes: list[RawBox],
                   settings: AssemblySettings) -> tuple[list[Segment], list[Shape]]:
    """Strokes through each label: from every stroke end and arrowhead at the label to its centre, so the
    connector runs on through the label (question box → label → the box the connector reaches). A label that
    only an arrowhead reaches, standing just before a box, passes the arrow on into that box (an arrowhead is
    added at the box's side)."""
    bridges: list[Segment] = []
    added: list[Shape] = []
    near = settings.label_on_connector
    for label in labels:
        centre = label.bbox.center
        heads = [head for head in arrowheads if head.bbox.distance_to_box(label.bbox) <= near]
        # a scanned arrowhead's outline, traced as strokes, leaves ends in the head: with no other end at the
        # label, no line leaves it and the arrow still points through it
        outlines = [head.bbox.expand(TOUCH_TOL) for head in heads]
        touching = leaving = 0
        for seg in segments:
            for point in (seg.a, seg.b):
                if label.bbox.distance_to_point(point) <= near:
                    bridges.append(Segment(point, centre))
                    touching += 1
                    leaving += not any(outline.contains_point(point) for outline in outlines)
        for head in heads:
            bridges.append(Segment(head.bbox.center, centre))
        if len(heads) == 1 and (touching <= 1 or leaving == 0):
            target = _box_in_front(label.bbox, heads[0], boxes, settings)
            if target is not None:
                box = boxes[target].bbox
                entry = (min(max(centre[0], box.x0), box.x1), min(max(centre[1], box.top), box.bottom))
                half = 1.0
                tip = Shape(((entry[0] - half, entry[1] - half), (entry[0] + half, entry[1] - half),
                             (entry[0] + half, entry[1] + half), (entry[0] - half, entry[1] + half)),
                            BBox(entry[0] - half, entry[1] - half, entry[0] + half, entry[1] + half),
                            True, False, "inferred")
                added.append(tip)
                bridges.append(Segment(centre, entry))
    return bridges, added


def box_pointer(shape: Shape, settings: AssemblySettings = DEFAULT_SETTINGS) -> tuple[BBox, Point] | None:
    """``(body, tip)`` of a box drawn with a pointer as part of its outline: a polygon with one vertex standing
    at least ``pointer_min_depth`` out of one side, on a base much narrower than that side (a band with a
    chevron below it). Block arrows (narrow shapes holding no text) are told apart by the width test."""
    if shape.kind in ("rounded", "ellipse"):
        return None
    pts = _dedupe(shape.points)
    if len(pts) < 5:
        return None
    for axis, sign in ((1, 1), (1, -1), (0, 1), (0, -1)):
        far = max(sign * p[axis] for p in pts)
        tips = [i for i, p in enumerate(pts) if sign * p[axis] >= far - 0.5]
        if len(tips) != 1:
            continue
        rest = [p for i, p in enumerate(pts) if i != tips[0]]
        side = max(sign * p[axis] for p in rest)
        if far - side < settings.pointer_min_depth:
            continue
        n = len(pts)
        base = abs(pts[(tips[0] - 1) % n][1 - axis] - pts[(tips[0] + 1) % n][1 - axis])
        body = BBox.around(rest)
        length = body.width if axis == 1 else body.height
        if base <= 0 or length < 3 * base:
            continue
        return body, pts[tips[0]]
    return None


def _pointer_arrows(boxes: list[RawBox], settings: AssemblySettings) -> list[RawConnector]:
    """A block arrow from each box with a pointer to the box its tip reaches (to the whole row, when that box
    stands in a row of boxes side by side: a chevron into a table's header row enters every column)."""
    out = []
    for source, box in enumerate(boxes):
        if box.pointer is None:
            continue
        near = sorted((_box_distance(other, box.pointer), bi) for bi, other in enumerate(boxes) if bi != source)
        if not near or near[0][0] > settings.pointer_reach:
            continue
        targets = _row_of(near[0][1], boxes, settings)
        out.append(RawConnector([source], targets, [Segment(box.bbox.center, box.pointer)], "block"))
    return out


def _row_of(index: int, boxes: list[RawBox], settings: AssemblySettings) -> list[int]:
    """``index`` and the boxes standing side by side with it (equal tops, gaps of at most ``row_gap``)."""
    row = {index}
    changed = True
    while changed:
        changed = False
        for bi, box in enumerate(boxes):
            if bi in row:
                continue
            for member in list(row):
                m = boxes[member].bbox
                gap = max(box.bbox.x0 - m.x1, m.x0 - box.bbox.x1)
                if abs(box.bbox.top - m.top) <= settings.row_align_tol and \
                        -settings.row_overlap <= gap <= settings.row_gap:
                    row.add(bi)
                    changed = True
                    break
    return sorted(row, key=lambda bi: boxes[bi].bbox.x0)


def _abutting_chain(bboxes: list[BBox], settings: AssemblySettings) -> bool:
    """Whether the boxes are pieces of one: equal widths, each abutting the next below it (``piece_gap``)."""
    if len(bboxes) < 2:
        return False
    ordered = sorted(bboxes, key=lambda b: b.top)
    return all(abs(a.x0 - b.x0) <= 1.0 and abs(a.x1 - b.x1) <= 1.0 and abs(b.top - a.bottom) <= settings.piece_gap
               for a, b in zip(ordered, ordered[1:], strict=False))


def _entered_from_above(connectors: list[RawConnector], boxes: list[RawBox]) -> dict[int, list[int]]:
    """Each box entered by an arrow (or block arrow) from a box standing wholly above it → those sources."""
    out: dict[int, list[int]] = {}
    for c in connectors:
        if c.kind == "stacked" or not c.directed:
            continue
        for t in c.targets:
            for s in c.sources:
                if s != t and boxes[s].bbox.bottom <= boxes[t].bbox.top + 1.0:
                    out.setdefault(t, []).append(s)
    return out


def _sibling_rows(boxes: list[RawBox], connectors: list[RawConnector], warnings: list[str],
                  settings: AssemblySettings) -> list[RawConnector]:
    """An arrow from above into one box of a row of sibling boxes enters them all: the boxes side by side with
    it (equal tops and heights within ``row_align_tol``, gaps up to ``sibling_gap``) that send arrows but are
    entered by none (a chevron drawn into the middle column of a fan-out; the other columns' heads start
    there too, or they would not send arrows)."""
    entered = {t for c in connectors for t in c.targets}
    sending = {s for c in connectors for s in c.sources}
    out: list[RawConnector] = []
    for target, sources in _entered_from_above(connectors, boxes).items():
        t = boxes[target].bbox
        row = {target}
        changed = True
        while changed:
            changed = False
            for bi, box in enumerate(boxes):
                b = box.bbox
                if bi in row or bi in entered or bi not in sending:
                    continue
                if abs(b.top - t.top) > settings.row_align_tol or abs(b.height - t.height) > settings.row_align_tol:
                    continue
                if any(0 <= max(b.x0 - boxes[m].bbox.x1, boxes[m].bbox.x0 - b.x1) <= settings.sibling_gap
                       for m in row):
                    row.add(bi)
                    changed = True
        siblings = sorted(row - {target}, key=lambda bi: boxes[bi].bbox.x0)
        if not siblings:
            continue
        span = BBox.around([(boxes[bi].bbox.x0, t.top) for bi in row] + [(boxes[bi].bbox.x1, t.top) for bi in row])
        for source in sorted(set(sources)):
            if not span.x0 <= boxes[source].bbox.center[0] <= span.x1:
                continue
            out.append(RawConnector([source], siblings, [Segment(boxes[source].bbox.center, t.center)], "row"))
            warnings.append(f"arrow from {boxes[source].id} into {boxes[target].id} also enters its sibling "
                            f"boxes {', '.join(boxes[bi].id for bi in siblings)} (a row of boxes side by side, "
                            "entered by no arrow of their own)")
    return out


def _list_fanouts(boxes: list[RawBox], connectors: list[RawConnector], warnings: list[str],
                  settings: AssemblySettings) -> list[RawConnector]:
    """An arrow from above into the first box of a list (``list_min_items`` boxes of one width stacked with
    visible gaps, no connector at any of them but that arrow) enters every item: the list's boxes are the
    source's items, not steps following each other."""
    touched = {b for c in connectors for b in (*c.sources, *c.targets)}
    out: list[RawConnector] = []
    for first, sources in _entered_from_above(connectors, boxes).items():
        if any(first in c.sources for c in connectors):
            continue  # the first box leads on: a step, not the head of a list
        column = [first]
        while True:
            last = boxes[column[-1]].bbox
            below = [bi for bi, box in enumerate(boxes) if bi not in column
                     and settings.list_gap_min <= box.bbox.top - last.bottom <= settings.list_gap_max
                     and abs(box.bbox.x0 - last.x0) <= settings.list_align_tol
                     and abs(box.bbox.x1 - last.x1) <= settings.list_align_tol]
            if len(below) != 1 or below[0] in touched:
                break
            column.append(below[0])
        if len(column) < settings.list_min_items:
            continue
        items = column[1:]
        for source in sorted(set(sources)):
            out.append(RawConnector([source], items, [Segment(boxes[source].bbox.center, boxes[first].bbox.center)],
                                    "list"))
            warnings.append(f"boxes {', '.join(boxes[bi].id for bi in column)} stand in a list under "
                            f"{boxes[source].id}, whose arrow enters the first: each is read as its item")
    return out


def _stacked(boxes: list[RawBox], connectors: list[RawConnector], warnings: list[str],
             settings: AssemblySettings, skip: set[int] | frozenset[int] = frozenset()) -> list[RawConnector]:
    """Boxes stacked edge to edge (or a small gap apart) with no connector between them follow each other in
    reading order, top to bottom, when the upper one takes part in the flowchart (stacked side boxes that no
    connector reaches stay notes). Boxes in ``skip`` (list items) are not steps."""
    linked = {frozenset((s, t)) for c in connectors for s in c.sources for t in c.targets}
    on_chart = {b for c in connectors for b in (*c.sources, *c.targets)}
    out: list[RawConnector] = []
    for upper in sorted(range(len(boxes)), key=lambda i: boxes[i].bbox.top):
        if upper not in on_chart or upper in skip:
            continue
        a = boxes[upper].bbox
        for lower, box in enumerate(boxes):
            b = box.bbox
            gap = b.top - a.bottom
            overlap = min(a.x1, b.x1) - max(a.x0, b.x0)
            narrow = min(a.width, b.width)
            if (lower == upper or lower in skip or not -settings.stack_gap <= gap <= settings.stack_gap
                    or b.top <= a.top
                    or narrow <= 0 or overlap < settings.stack_overlap * narrow
                    or narrow < settings.stack_width_ratio * max(a.width, b.width)
                    or frozenset((upper, lower)) in linked):
                continue
            uppers = [i for i, other in enumerate(boxes) if i != lower and other.bbox.top < b.top
                      and -settings.stack_gap <= b.top - other.bbox.bottom <= settings.stack_gap
                      and min(other.bbox.x1, b.x1) - max(other.bbox.x0, b.x0)
                      >= settings.stack_overlap * min(other.bbox.width, b.width)]
            if len(uppers) > 1:
                continue  # several boxes standing on one: which leads on is not drawn
            out.append(RawConnector([upper], [lower], [Segment((a.center[0], a.bottom), (b.center[0], b.top))],
                                    "stacked", directed=False))
            on_chart.add(lower)
            warnings.append(f"boxes {boxes[upper].id} and {box.id} are stacked with no connector; joined in "
                            "reading order (top to bottom)")
    return out


def _merge_bands(boxes: list[RawBox], free: list[Token],
                 settings: AssemblySettings = DEFAULT_SETTINGS) -> list[RawBox]:
    """Merge title bands into their box; demote frames around several boxes to plain background."""
    boxes = sorted(boxes, key=lambda b: b.bbox.area, reverse=True)
    removed: set[int] = set()
    for i, outer in enumerate(boxes):
        if i in removed:
            continue
        inner = [j for j in range(i + 1, len(boxes)) if j not in removed and outer.bbox.contains(boxes[j].bbox, 2.0)]
        tiled = (sum(boxes[j].bbox.area for j in inner) >= settings.tile_share * outer.bbox.area
                 or _abutting_chain([boxes[j].bbox for j in inner], settings))
        if len(inner) >= 2 and tiled:
            # one box filled in pieces (a gradient drawn as stacked bands) inside its outline
            for j in inner:
                outer.tokens.extend(boxes[j].tokens)
                removed.add(j)
            outer.kind = "banded"
        elif len(inner) >= 2:
            removed.add(i)
            free.extend(outer.tokens)
        elif len(inner) == 1:
            outer.tokens.extend(boxes[inner[0]].tokens)
            removed.add(inner[0])
    kept = [b for i, b in enumerate(boxes) if i not in removed]
    changed = True
    while changed:
        changed = False
        for i, a in enumerate(kept):
            for j in range(i + 1, len(kept)):
                b = kept[j]
                gap = max(a.bbox.top - b.bbox.bottom, b.bbox.top - a.bbox.bottom)
                # a one-line band abutting a band of equal width below it with no gap is one box filled in
                # pieces (a title band, a line split over two fills); a visible gap, or an upper band of
                # several lines, makes boxes stacked in reading order (see _stacked)
                upper, lower = (a, b) if a.bbox.top <= b.bbox.top else (b, a)
                # ... and a dark one-line bar on a light box of its width, touching it, is its title (a scan's
                # shapes, each found with its own border, overlap where the digital page's abut)
                least = -settings.stack_gap if upper.dark and not lower.dark else -settings.piece_gap
                if (least <= gap <= settings.piece_gap and abs(a.bbox.x0 - b.bbox.x0) <= 4
                        and abs(a.bbox.x1 - b.bbox.x1) <= 4 and len(build_lines(upper.tokens)) <= 1):
                    a.bbox = a.bbox.union(b.bbox)
                    a.tokens.extend(b.tokens)
                    a.kind = "banded"
                    a.points = ()
                    a.dark = a.dark and b.dark
                    del kept[j]
                    changed = True
                    break
            if changed:
                break
    return kept


def _drop_border_segments(segments: list[Segment], boxes: list[RawBox]) -> list[Segment]:
    out = []
    for seg in segments:
        on_border = False
        for box in boxes:
            outer = box.bbox.expand(1.5)
            if outer.contains_point(seg.a) and outer.contains_point(seg.b):
                inner = box.bbox.expand(-1.5)
                mid = ((seg.a[0] + seg.b[0]) / 2, (seg.a[1] + seg.b[1]) / 2)
                # inside a box merged from pieces a stroke is its grid (a table's rules), never a connector
                if not inner.contains_point(mid) or box.kind in ("diamond", "banded"):
                    on_border = True
                    break
            if box.bbox.expand(-1.0).contains_point(seg.a) and box.bbox.expand(-1.0).contains_point(seg.b):
                on_border = True  # underlines and rules inside a box are text decoration
                break
        if not on_border:
            out.append(seg)
    return out


def _box_distance(box: RawBox, point: Point) -> float:
    if box.kind == "diamond" and len(box.points) >= 3:
        if polygon_contains(box.points, point):
            return 0.0
        pts = box.points
        return min(point_segment_distance(point, pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts)))
    return box.bbox.distance_to_point(point)


def head_tip(head: Shape, settings: AssemblySettings = DEFAULT_SETTINGS) -> tuple[Point, Point] | None:
    """``(tip, base midpoint)`` of a triangular arrowhead whose base is clearly its shortest side, else None."""
    pts = _dedupe(head.points)
    if len(pts) != 3:
        return None
    sides = sorted((math.dist(pts[(i + 1) % 3], pts[(i + 2) % 3]), i) for i in range(3))
    (shortest, tip_index), (second, _), (longest, _) = sides
    if shortest >= settings.head_base_ratio * second or second < settings.head_sides_ratio * longest:
        return None
    a, b = pts[(tip_index + 1) % 3], pts[(tip_index + 2) % 3]
    return pts[tip_index], ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)


def _head_target(head: Shape, boxes: list[RawBox], settings: AssemblySettings = DEFAULT_SETTINGS) -> int | None:
    near = [(_box_distance(b, head.bbox.center) - max(head.bbox.width, head.bbox.height) / 2, bi)
            for bi, b in enumerate(boxes)]
    near = [(d, bi) for d, bi in near if d <= settings.head_reach]
    pointed = head_tip(head, settings)
    if pointed is not None:
        tip, base = pointed
        # a head pointing away from a box (onto a line leaving it) does not enter it
        near = [(d, bi) for d, bi in near if _box_distance(boxes[bi], tip) < _box_distance(boxes[bi], base)]
    return min(near)[1] if near else None


def _complete_paths(segments: list[Segment], arrowheads: list[Shape], boxes: list[RawBox],
                    head_targets: list[int | None], settings: AssemblySettings
                    ) -> list[tuple[list[int], int, int, int]]:
    """Stroke paths drawn as one arrow each: ``(segment indices, source box, target box, arrowhead)``."""
    units: dict[int, list[int]] = {}
    for index, seg in enumerate(segments):
        if seg.path >= 0:
            units.setdefault(seg.path, []).append(index)
    complete = []
    for indices in units.values():
        start, end = segments[indices[0]].a, segments[indices[-1]].b
        for tip, tail in ((end, start), (start, end)):
            heads = [k for k, h in enumerate(arrowheads)
                     if head_targets[k] is not None and h.bbox.expand(TOUCH_TOL).contains_point(tip)]
            if not heads:
                continue
            target = head_targets[heads[0]]
            sources = [bi for bi, b in enumerate(boxes)
                       if bi != target and _box_distance(b, tail) <= settings.attach_tol]
            if sources and target is not None:
                complete.append((indices, sources[0], target, heads[0]))
                break
    return complete


def _connector_trees(
    segments: list[Segment], arrowheads: list[Shape], boxes: list[RawBox], warnings: list[str],
    raster: bool = False, settings: AssemblySettings = DEFAULT_SETTINGS,
) -> list[RawConnector]:
    head_targets = [_head_target(h, boxes, settings) for h in arrowheads]
    axis = _flow_axis(arrowheads, head_targets, boxes)
    connectors: list[RawConnector] = []
    complete = _complete_paths(segments, arrowheads, boxes, head_targets, settings)
    done_segments: set[int] = set()
    done_heads: set[int] = set()
    for indices, source, target, head in complete:
        segs = [segments[i] for i in indices]
        connectors.append(RawConnector([source], [target], segs, "line",
                                       target_segments={target: set(range(len(segs)))},
                                       source_segments=set(range(len(segs)))))
        done_segments.update(indices)
        done_heads.add(head)
    rest = [i for i in range(len(segments)) if i not in done_segments]
    rest_heads = [k for k in range(len(arrowheads)) if k not in done_heads]
    connectors.extend(_grouped_trees([segments[i] for i in rest], [arrowheads[k] for k in rest_heads],
                                     [head_targets[k] for k in rest_heads], boxes, warnings, connectors, axis,
                                     raster, settings))
    return connectors


def _flow_axis(arrowheads: list[Shape], head_targets: list[int | None], boxes: list[RawBox]) -> str:
    """``"x"`` when most arrows enter their boxes from the left or right side (the chart reads across),
    ``"y"`` when most enter from the top or bottom (it reads down)."""
    across = down = 0
    for head, target in zip(arrowheads, head_targets, strict=True):
        if target is None:
            continue
        box, (cx, cy) = boxes[target].bbox, head.bbox.center
        if min(abs(cx - box.x0), abs(cx - box.x1)) < min(abs(cy - box.top), abs(cy - box.bottom)):
            across += 1
        else:
            down += 1
    return "x" if across >= down else "y"


def _near_pairs(segments: list[Segment], tol: float) -> list[tuple[int, int]]:
    """Index pairs ``i < j`` of segments whose bounding boxes, grown by ``tol``, overlap: the only pairs that
    can come within ``tol`` of each other (a scanned page has thousands of strokes, so testing every pair's
    distance is quadratic in Python)."""
    if len(segments) < 2:
        return []
    ends = np.array([(s.a[0], s.a[1], s.b[0], s.b[1]) for s in segments], dtype=float)
    x0 = np.minimum(ends[:, 0], ends[:, 2]) - tol
    x1 = np.maximum(ends[:, 0], ends[:, 2]) + tol
    y0 = np.minimum(ends[:, 1], ends[:, 3]) - tol
    y1 = np.maximum(ends[:, 1], ends[:, 3]) + tol
    pairs: list[tuple[int, int]] = []
    for i in range(len(segments) - 1):
        rest = slice(i + 1, None)
        near = (x0[rest] <= x1[i]) & (x1[rest] >= x0[i]) & (y0[rest] <= y1[i]) & (y1[rest] >= y0[i])
        pairs.extend((i, i + 1 + int(k)) for k in np.flatnonzero(near))
    return pairs


def _grouped_trees(
    segments: list[Segment], arrowheads: list[Shape], head_targets: list[int | None], boxes: list[RawBox],
    warnings: list[str], complete: list[RawConnector], axis: str = "x", raster: bool = False,
    settings: AssemblySettings = DEFAULT_SETTINGS,
) -> list[RawConnector]:
    """Connector trees from strokes that are not whole arrows on their own: union touching strokes."""
    drawn = segments
    if raster:
        segments = segments + _corner_bridges(segments, boxes, settings)
    if settings.loop_arrows:
        segments = segments + _bus_bridges(segments, arrowheads, head_targets, settings)
    n_seg = len(segments)
    n = n_seg + len(arrowheads)
    if n == 0:
        return []
    uf = UnionFind(n)
    for i, j in _near_pairs(segments, TOUCH_TOL):
        seg_i, seg_j = segments[i], segments[j]
        if min(
            point_segment_distance(seg_i.a, seg_j.a, seg_j.b), point_segment_distance(seg_i.b, seg_j.a, seg_j.b),
            point_segment_distance(seg_j.a, seg_i.a, seg_i.b), point_segment_distance(seg_j.b, seg_i.a, seg_i.b),
        ) <= TOUCH_TOL:
            uf.union(i, j)
    if raster:
        # strokes whose free ends (at no box) nearly meet belong to one tree (a lost corner dash, see
        # _corner_bridges; the bridges themselves only join line ends that touch nothing else)
        free_ends = [(i, p) for i, seg in enumerate(drawn) for p in (seg.a, seg.b)
                     if all(_box_distance(box, p) > settings.attach_tol for box in boxes)]
        owners = np.array([i for i, _ in free_ends], dtype=int)
        ends = np.array([p for _, p in free_ends], dtype=float).reshape(-1, 2)
        for row in range(len(free_ends) - 1):
            gaps = np.hypot(ends[row + 1:, 0] - ends[row, 0], ends[row + 1:, 1] - ends[row, 1])
            for hit in np.flatnonzero((gaps <= settings.corner_gap) & (owners[row + 1:] != owners[row])):
                uf.union(int(owners[row]), int(owners[row + 1 + int(hit)]))
    head_boxes = [h.bbox.expand(TOUCH_TOL) for h in arrowheads]
    for k, hb in enumerate(head_boxes):
        # an arrowhead entering no box that points onto a line merges into that line
        pointed = head_tip(arrowheads[k], settings) if head_targets[k] is None else None
        for i, seg in enumerate(segments):
            if hb.contains_point(seg.a) or hb.contains_point(seg.b) or (
                    pointed is not None and point_segment_distance(pointed[0], seg.a, seg.b) <= TOUCH_TOL):
                uf.union(i, n_seg + k)
    connectors: list[RawConnector] = []
    for group in uf.groups():
        segs = [segments[i] for i in group if i < n_seg]
        heads = [arrowheads[i - n_seg] for i in group if i >= n_seg]
        head_targets_of = [head_targets[i - n_seg] for i in group if i >= n_seg]
        if not segs:
            continue  # a second arrowhead drawn on the tip of a whole arrow
        targets: list[int] = []
        target_segments: dict[int, set[int]] = {}
        for head, target in zip(heads, head_targets_of, strict=True):
            if target is not None:
                targets.append(target)
                hb = head.bbox.expand(TOUCH_TOL)
                target_segments.setdefault(target, set()).update(
                    si for si, seg in enumerate(segs) if hb.contains_point(seg.a) or hb.contains_point(seg.b))
        touched: list[int] = []
        source_segments: set[int] = set()
        stems: dict[int, set[int]] = {}
        head_zones = [_ShaftZone(h, settings) for h in heads]
        for bi, box in enumerate(boxes):
            hits = set()
            for si, seg in enumerate(segs):
                for point in (seg.a, seg.b):
                    if _box_distance(box, point) <= settings.attach_tol and not (
                        bi in targets and any(zone.holds(point) for zone in head_zones)
                    ):
                        hits.add(si)
            if not hits:
                continue
            if bi in targets:
                stems[bi] = hits  # this box receives an arrow here and also sends one from elsewhere
                continue
            touched.append(bi)
            source_segments |= hits
            target_segments.setdefault(bi, set()).update(hits)
        targets = sorted(set(targets))
        if stems or (raster and len(touched) >= 2 and targets):
            # scanned pages carry no drawing order to tell merged lines apart: follow the flow per source
            connectors.extend(_split_by_flow(segs, touched, targets, stems, target_segments, boxes, axis, heads))
            continue
        if not targets and not touched:
            continue
        if not targets and touched:
            # a stroke that merges into a complete arrow shares that arrow's target
            for other in complete:
                if any(min(point_segment_distance(p, o.a, o.b) for o in other.segments) <= TOUCH_TOL
                       for seg in segs for p in (seg.a, seg.b)):
                    targets.extend(t for t in other.targets if t not in touched)
            targets = sorted(set(targets))
        directed = True
        if not targets:
            # a headless line joins the boxes it meets end-on, not those whose side it runs along
            touched = [bi for bi in touched if any(_meets_side(boxes[bi], seg, settings) for seg in segs)]
            if len(touched) < 2:
                continue
            directed = False
            # flowcharts run down or to the right: the source is the top box, or the left box when it stands
            # further apart to the left of all the others than the top box stands above them
            ordered = sorted(touched, key=lambda bi: (boxes[bi].bbox.top, boxes[bi].bbox.x0))
            by_x = sorted(touched, key=lambda bi: boxes[bi].bbox.x0)
            left_gap = min(boxes[bi].bbox.x0 for bi in by_x[1:]) - boxes[by_x[0]].bbox.x1
            top_gap = min(boxes[bi].bbox.top for bi in ordered[1:]) - boxes[ordered[0]].bbox.bottom
            if left_gap > max(top_gap, 0.0):
                ordered = by_x
            touched, targets = ordered[:1], ordered[1:]
            source_segments = target_segments.get(touched[0], set())
            warnings.append(
                f"connector between {', '.join(boxes[b].id for b in ordered)} has no arrowhead; "
                f"assumed it runs from {boxes[ordered[0]].id} (down the page, or rightwards from a box standing "
                "left of all the others)"
            )
        if not touched and raster:
            # the short stem from the source box to the line is lost in a scan when it is hardly longer than
            # the box border's blur: the one other box standing that close to the line is the source
            near = [bi for bi, box in enumerate(boxes) if bi not in targets
                    and min(_segment_bbox_distance(seg, box.bbox) for seg in segs) <= settings.stem_gap]
            if len(near) == 1:
                touched = near
                source_segments = {si for si, seg in enumerate(segs)
                                   if _segment_bbox_distance(seg, boxes[near[0]].bbox) <= settings.stem_gap}
                warnings.append(f"connector into {', '.join(boxes[t].id for t in targets)} touches no box where "
                                f"it starts; assumed it leaves {boxes[near[0]].id}, {settings.stem_gap:g} pt or less "
                                "away")
        beside = [bi for bi, box in enumerate(boxes) if bi not in targets
                  and min(_segment_bbox_distance(seg, box.bbox) for seg in segs) <= settings.stem_gap]
        if not touched and len(targets) == 2 and not raster and not beside:
            # (a third box standing close to the line may be a source whose stem is missing: no guess)
            # a line with an arrowhead at each end (a loop between two boxes) runs both ways
            first, second = targets
            for source, target in ((first, second), (second, first)):
                connectors.append(RawConnector(
                    [source], [target], segs, "line", target_segments={target: target_segments.get(target, set())},
                    source_segments=target_segments.get(source, set())))
            warnings.append(f"connector between {boxes[first].id} and {boxes[second].id} has an arrowhead at "
                            "each end; read as running both ways")
            continue
        if not touched:
            warnings.append(
                f"connector into {', '.join(boxes[t].id for t in targets)} starts at no box; ignored"
            )
            continue
        connectors.append(RawConnector(
            touched, targets, segs, "line", directed=directed,
            target_segments={t: target_segments.get(t, set()) for t in targets},
            source_segments=source_segments,
        ))
    return connectors


def _bus_bridges(segments: list[Segment], arrowheads: list[Shape], head_targets: list[int | None],
                 settings: AssemblySettings) -> list[Segment]:
    """A stroke through each arrowhead that enters no box and points onto a line (an arrow onto a bus), from
    its base to its tip: flow runs along the arrow into the line it merges into, the head between them."""
    bridges: list[Segment] = []
    for head, target in zip(arrowheads, head_targets, strict=True):
        pointed = head_tip(head, settings) if target is None else None
        if pointed is None:
            continue
        tip, base = pointed
        if any(point_segment_distance(tip, seg.a, seg.b) <= TOUCH_TOL for seg in segments):
            bridges.append(Segment(base, tip))
    return bridges


class _ShaftZone:
    """Where the shaft of an arrowhead ends: on the line from its base to its tip (a head with a clear tip), or
    anywhere within ``attach_tol`` of it. A stroke ending there feeds the head; a stroke leaving the same box a
    few points beside it (an arrow out drawn next to the arrow in) does not."""

    def __init__(self, head: Shape, settings: AssemblySettings) -> None:
        self.zone = head.bbox.expand(settings.attach_tol)
        self.axis = head_tip(head, settings)

    def holds(self, point: Point) -> bool:
        if self.axis is None:
            return self.zone.contains_point(point)
        tip, base = self.axis
        return point_segment_distance(point, tip, base) <= TOUCH_TOL


def _meets_side(box: RawBox, seg: Segment, settings: AssemblySettings) -> bool:
    """Whether an end of ``seg`` meets ``box`` end-on: a horizontal stroke at its left or right side, a vertical
    one at its top or bottom, between the side's ends (a slanted stroke at any side)."""
    kind = orientation(seg)
    b, margin = box.bbox, settings.side_margin
    middle = ((seg.a[0] + seg.b[0]) / 2, (seg.a[1] + seg.b[1]) / 2)
    if b.expand(-margin).contains_point(middle):
        return False  # a rule drawn across the box (a table's grid), not a line into it
    for point in (seg.a, seg.b):
        if _box_distance(box, point) > settings.attach_tol:
            continue
        within_y = b.top + margin <= point[1] <= b.bottom - margin
        within_x = b.x0 + margin <= point[0] <= b.x1 - margin
        if (kind == "h" and within_y) or (kind == "v" and within_x):
            return True
        if kind not in ("h", "v") and (within_x or within_y):
            return True  # a slanted stroke meets a side between its ends, not at a corner (a brace's tip)
    return False


def _corner_bridges(segments: list[Segment], boxes: list[RawBox], settings: AssemblySettings) -> list[Segment]:
    """Strokes closing the gap between two free stroke ends (ends at no box or other stroke) that nearly meet:
    a scanned dashed elbow's corner is a dash too short to tell from a glyph and gets lost. The bridge lets
    flow round the corner, not only join the two strokes into one tree."""
    ends = []  # (line number, end point) of each straight line, at no box and touching no other line
    for number, line in enumerate(straight_lines(segments)):
        points = [p for i in line for p in (segments[i].a, segments[i].b)]
        kind = orientation(segments[line[0]])
        axis = 0 if kind in ("h", None) else 1
        for p in (min(points, key=lambda q: q[axis]), max(points, key=lambda q: q[axis])):
            if all(_box_distance(box, p) > settings.attach_tol for box in boxes) and all(
                    point_segment_distance(p, other.a, other.b) > TOUCH_TOL
                    for k, other in enumerate(segments) if k not in line):
                ends.append((number, p))
    bridges = {}
    for n, (line_number, p) in enumerate(ends):
        for other_line, q in ends[n + 1:]:
            if line_number != other_line and math.dist(p, q) <= settings.corner_gap:
                bridges[(line_number, other_line)] = Segment(p, q)
    return list(bridges.values())


def _split_by_flow(segs: list[Segment], sources: list[int], targets: list[int], stems: dict[int, set[int]],
                   target_segments: dict[int, set[int]], boxes: list[RawBox] | None = None,
                   axis: str = "x", heads: list[Shape] | None = None) -> list[RawConnector]:
    """A tree several boxes send into (or where some target also sends arrows): which source reaches which
    target?

    Flow runs along the strokes the way the chart reads (rightwards when it reads across), towards the
    arrowhead of a line that ends in one, and straight on where lines cross (see ``StrokeGraph.reach``). In a
    merge bus every stroke leads back to some source, so a first pass lets flow turn into any stroke, and each
    straight line belongs to the source clearly nearest to it along the strokes (``StrokeGraph.owners``); in the
    second pass a source does not turn into a stroke that ends on its line and belongs to another source whose
    flow came onto it elsewhere: that is the other source's line merging in. A source that reaches nothing that
    way falls back to the older rule: flow from another source may not pass a sending target's stem junction."""
    graph = StrokeGraph(segs, heads or [])
    adj = graph.adj
    all_sources = list(sources) + list(stems)
    starts = {source: stems[source] if source in stems else target_segments.get(source, set())
              for source in all_sources}
    out = []
    if boxes is not None:
        other_stems = {source: {si for other, stem in stems.items() if other != source for si in stem}
                       for source in all_sources}
        sending = {source: {si for other in all_sources if other != source for si in starts[other]}
                   for source in all_sources}
        entries = {source: {si: min((segs[si].a, segs[si].b), key=lambda p: _box_distance(boxes[source], p))
                            for si in starts[source]} for source in all_sources}
        first = {source: graph.reach(entries[source], other_stems[source], axis, sending[source], {})
                 for source in all_sources}
        owner = graph.owners(first, all_sources)
    for source in all_sources:
        start = starts[source]
        if boxes is not None:
            carried = {si: entry for si, (nearest, entry) in owner.items() if nearest != source}
            ways = graph.reach(entries[source], other_stems[source], axis, sending[source], carried)
            reached = [t for t in targets if t != source and target_segments.get(t, set()) & ways.keys()]
            if reached:
                out.append(RawConnector([source], reached, segs, "line",
                                        target_segments={t: target_segments[t] for t in reached},
                                        source_segments=set(start)))
                continue
        blocked: set[int] = set()
        for other, stem in stems.items():
            if other == source:
                continue
            junctions = [p for si in stem for p in (segs[si].a, segs[si].b)]
            for si, seg in enumerate(segs):
                if si in stem or any(point_segment_distance(p, seg.a, seg.b) <= TOUCH_TOL for p in junctions):
                    blocked.add(si)
        seen = flood(adj, set(start) - blocked, blocked)
        reached = [t for t in targets if t != source and target_segments.get(t, set()) & seen]
        if reached:
            out.append(RawConnector([source], reached, segs, "line",
                                    target_segments={t: target_segments[t] for t in reached},
                                    source_segments=set(start)))
    return out


def _block_arrow(shape: Shape, tip: Point, boxes: list[RawBox], settings: AssemblySettings) -> RawConnector | None:
    box = shape.bbox
    tip_at_end = abs(tip[1] - box.top) < 1 or abs(tip[1] - box.bottom) < 1
    tip_at_side = abs(tip[0] - box.x0) < 1 or abs(tip[0] - box.x1) < 1
    if tip_at_end and not (tip_at_side and box.width > box.height):  # the tip says which way the arrow runs
        tail = ((box.x0 + box.x1) / 2, box.top if abs(tip[1] - box.bottom) < 1 else box.bottom)
    else:
        tail = (box.x0 if abs(tip[0] - box.x1) < 1 else box.x1, (box.top + box.bottom) / 2)

    def nearest(point: Point) -> int | None:
        near = [(_box_distance(b, point), bi) for bi, b in enumerate(boxes)]
        near = [(d, bi) for d, bi in near if d <= settings.attach_tol * 2]
        return min(near)[1] if near else None

    source, target = nearest(tail), nearest(tip)
    if source is None or target is None or source == target:
        return None
    return RawConnector([source], [target], [Segment(tail, tip)], "block")


def _assign_labels(blocks: list[TextBlock], connectors: list[RawConnector],
                   settings: AssemblySettings = DEFAULT_SETTINGS) -> list[TextBlock]:
    """Attach each free text block to the nearest connector branch; return the blocks left over."""
    leftovers: list[TextBlock] = []
    candidates: list[tuple[TextBlock, list[tuple[float, int, int]]]] = []
    for block in blocks:
        bbox = block.bbox
        limit = max(settings.label_reach_min, settings.label_reach_ratio * block.size)
        if settings.is_branch_label(" ".join(line.plain for line in block.lines)):
            limit = max(limit, settings.branch_label_reach)
        scored: list[tuple[float, int, int]] = []
        for ci, connector in enumerate(connectors):
            distances = [(_segment_bbox_distance(seg, bbox), si) for si, seg in enumerate(connector.segments)]
            if distances:
                d, si = min(distances)
                if d <= limit:
                    scored.append((d, ci, si))
        if not scored:
            leftovers.append(block)
            continue
        scored.sort()
        candidates.append((block, scored))
        best = scored[0][0]
        # arrows drawn over the same stroke (merging into one target) share a label placed on it
        for d, ci, si in scored:
            if d <= best + 0.75:
                connector = connectors[ci]
                for target in _downstream_targets(connector, si):
                    connector.labels.setdefault(target, []).append(block)
    _one_answer_per_arrow(candidates, connectors)
    return leftovers


def branch_answer(text: str) -> str | None:
    """``yes`` or ``no`` when a label answers its question that way (``YES``, ``if yes``, ``No improvement``), else
    None (``OR``, free text).

    >>> branch_answer("If yes"), branch_answer("No improvement"), branch_answer("OR"), branch_answer("Nothing")
    ('yes', 'no', None, None)
    """
    words = re.findall(r"[^\W_]+", text.lower())
    if words[:1] == ["if"]:
        words = words[1:]
    first = words[0] if words else ""
    return "yes" if first in ("yes", "y") else "no" if first in ("no", "n") else None


def _block_answer(block: TextBlock) -> str | None:
    return branch_answer(" ".join(line.plain for line in block.lines))


def _one_answer_per_arrow(candidates: list[tuple[TextBlock, list[tuple[float, int, int]]]],
                          connectors: list[RawConnector]) -> None:
    """An arrow answers its question one way: where the labels found on the way to a target say both YES and NO
    (a merging connector passing the YES of a neighbouring arrow, smog-48), the answer written closest to the
    connector stays, and each label of the other answer moves to the next connector within its reach whose
    target it does not contradict (or is dropped)."""
    reach = {id(block): scored for block, scored in candidates}

    def distance(block: TextBlock, ci: int) -> float:
        return min((d for d, c, _ in reach.get(id(block), []) if c == ci), default=float("inf"))

    for ci, connector in enumerate(connectors):
        for target, blocks in list(connector.labels.items()):
            answers = {_block_answer(b) for b in blocks} - {None}
            if len(answers) < 2:
                continue
            kept = _block_answer(min(blocks, key=lambda b: distance(b, ci)))
            moved = [b for b in blocks if _block_answer(b) not in (kept, None)]
            connector.labels[target] = [b for b in blocks if b not in moved]
            for block in moved:
                answer = _block_answer(block)
                for _, other, si in reach.get(id(block), []):
                    if other == ci:
                        continue
                    targets = _downstream_targets(connectors[other], si)
                    held = [_block_answer(b) for t in targets for b in connectors[other].labels.get(t, [])]
                    if any(h not in (None, answer) for h in held):
                        continue
                    for t in targets:
                        if block not in connectors[other].labels.setdefault(t, []):
                            connectors[other].labels[t].append(block)
                    break


def _segment_bbox_distance(seg: Segment, bbox: BBox) -> float:
    return segment_box_distance(seg.a, seg.b, bbox)


def _downstream_targets(connector: RawConnector, seg_index: int) -> list[int]:
    """Targets reached only through segment ``seg_index`` (all targets when it is on the shared trunk)."""
    segs = connector.segments
    if len(connector.targets) == 1 or len(segs) <= 1:
        return list(connector.targets)
    n = len(segs)
    adj: list[set[int]] = [set() for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            a, b = segs[i], segs[j]
            if min(point_segment_distance(a.a, b.a, b.b), point_segment_distance(a.b, b.a, b.b),
                   point_segment_distance(b.a, a.a, a.b), point_segment_distance(b.b, a.a, a.b)) <= TOUCH_TOL:
                adj[i].add(j)
                adj[j].add(i)
    direct = [t for t in connector.targets if seg_index in connector.target_segments.get(t, set())]
    if direct:
        return direct
    seen = {seg_index}
    stack = [r for r in connector.source_segments if r != seg_index]
    seen.update(stack)
    while stack:
        current = stack.pop()
        for nxt in adj[current]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    downstream = [t for t in connector.targets
                  if connector.target_segments.get(t) and not (connector.target_segments[t] & seen)]
    return downstream or list(connector.targets)
