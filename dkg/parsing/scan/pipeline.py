"""The scanned-page pipeline: binarise/deskew → shapes → connectors and arrowheads → text per shape →
primitives (assembled into boxes and edges by :func:`dkg.parsing.assemble.assemble`, shared with the
digital route)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from dkg.parsing.geometry import BBox, Point
from dkg.parsing.models import PagePrimitives, Segment, Shape
from dkg.parsing.scan.binarise import PageImage, binarise
from dkg.parsing.scan.connectors import find_connectors, network_strokes, reach_boxes
from dkg.parsing.scan.settings import DEFAULT_SETTINGS, ScanSettings
from dkg.parsing.scan.shapes import FoundShape, cover_outer_borders, find_shapes, snap_to_borders
from dkg.parsing.scan.text import box_tokens, free_tokens, token_rects


def pipeline_primitives(gray: np.ndarray, page_number: int, width_pt: float, height_pt: float,
                        settings: ScanSettings = DEFAULT_SETTINGS) -> PagePrimitives:
    """Primitives of one page image (greyscale, any resolution) of a ``width_pt`` × ``height_pt`` page."""
    page = binarise(gray, width_pt, settings)
    scale = page.ppt

    def pt(x: float, y: float) -> tuple[float, float]:
        return (x / scale, y / scale)

    shapes = find_shapes(page, settings)
    free = free_tokens(page, shapes, settings)
    connectors = find_connectors(page, shapes, token_rects(free, scale), settings)
    level = [(st.a[1], st.a[0], st.b[0]) if st.a[1] == st.b[1] else (-1e9, 0.0, 0.0) for st in connectors.strokes]
    upright = [(st.a[0], st.a[1], st.b[1]) if st.a[0] == st.b[0] and st.a[1] != st.b[1] else (-1e9, 0.0, 0.0)
               for st in connectors.strokes]
    shapes, used_level, used_upright = snap_to_borders(shapes, level, upright, page, settings)
    shapes = cover_outer_borders(shapes, level, upright, page, settings)
    borders = used_level | used_upright
    heads = connectors.heads
    if settings.trace_networks:
        strokes, heads = network_strokes(page, shapes, token_rects(free, scale), connectors, settings)
    else:
        strokes = reach_boxes([st for i, st in enumerate(connectors.strokes) if i not in borders], shapes,
                              settings.attach_pt * scale)
    inside = [BBox(*(v / scale for v in s.rect)) for s in shapes]
    free = [t for t in free if not any(b.contains_point(t.bbox.center) for b in inside)]
    prims = PagePrimitives(page_number, width_pt, height_pt, "ocr")
    for shape in shapes:
        x0, y0, x1, y1 = shape.rect
        prims.shapes.append(Shape(tuple(pt(px, py) for px, py in shape.outline()),
                                  BBox(x0 / scale, y0 / scale, x1 / scale, y1 / scale),
                                  shape.filled, not shape.filled, shape.kind, _dark(page, shape, settings)))
    for stroke in strokes:
        prims.segments.append(Segment(pt(*stroke.a), pt(*stroke.b)))
    for head in heads:
        x0, y0, x1, y1 = head.rect
        prims.arrowheads.append(Shape(tuple(pt(px, py) for px, py in head.points),
                                      BBox(x0 / scale, y0 / scale, x1 / scale, y1 / scale), True, False))
    prims.tokens = box_tokens(page, shapes, settings) + free
    return prims


def _dark(page: PageImage, shape: FoundShape, settings: ScanSettings) -> bool:
    """Whether ``shape`` is filled darker than ``settings.dark_fill_grey`` inside its border."""
    x0, y0, x1, y1 = shape.rect
    border = page.px(settings.border_pt)
    inside = page.gray[y0 + border:y1 - border, x0 + border:x1 - border]
    return inside.size > 0 and float(np.median(inside)) < settings.dark_fill_grey


def region_primitives(gray: np.ndarray, page_number: int, region: BBox, width_pt: float, height_pt: float,
                      settings: ScanSettings = DEFAULT_SETTINGS) -> PagePrimitives:
    """Primitives of a raster figure placed at ``region`` (page points) on a ``width_pt`` × ``height_pt`` page,
    read by the pipeline from its greyscale image ``gray`` (any resolution), in page points: to be added to the
    born-digital page's own primitives and assembled with them."""
    if region.width <= 0 or region.height <= 0:
        raise ValueError(f"a raster figure needs a region with a positive size; got {region}")
    local = pipeline_primitives(gray, page_number, region.width, region.height, settings)
    dx, dy = region.x0, region.top

    def move(point: Point) -> Point:
        return (point[0] + dx, point[1] + dy)

    def moved(box: BBox) -> BBox:
        return BBox(box.x0 + dx, box.top + dy, box.x1 + dx, box.bottom + dy)

    def shape(s: Shape) -> Shape:
        return replace(s, points=tuple(move(p) for p in s.points), bbox=moved(s.bbox))

    prims = PagePrimitives(page_number, width_pt, height_pt, "ocr")
    prims.tokens = [replace(t, bbox=moved(t.bbox)) for t in local.tokens]
    prims.shapes = [shape(s) for s in local.shapes]
    prims.arrowheads = [shape(s) for s in local.arrowheads]
    prims.segments = [replace(s, a=move(s.a), b=move(s.b)) for s in local.segments]
    return prims
