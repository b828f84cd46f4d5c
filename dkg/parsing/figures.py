"""Flowcharts drawn as images inside born-digital pages: find them, read them from pixels, merge the result.

A born-digital page may carry a figure pasted in as a raster image: the vector route sees no box in it. Each
large image with (almost) no text layer over it is rendered at its own resolution, read by the scan pipeline
in page coordinates (:func:`dkg.parsing.scan.pipeline.region_primitives`), assembled with the pipeline's
settings, and merged into the page's vector layout. A box both routes see (a vector box drawn over the
image) is kept once, as the vector box.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dkg.parsing.assemble import PageLayout, RawBox, RawConnector, assemble
from dkg.parsing.geometry import BBox
from dkg.parsing.models import PagePrimitives, PixelRegion
from dkg.parsing.settings import DEFAULT_FIGURE_SETTINGS, FigureSettings
from dkg.parsing.textlayout import group_blocks

BOX_ID = re.compile(r"\bp\d+-b(\d+)\b")
# renders a region of the page: (bbox in points, dpi) -> greyscale numpy image of exactly that region
RegionRenderer = Callable[[BBox, float], Any]


@dataclass(frozen=True)
class FigureRegion:
    """An embedded image that may hold a flowchart: where it stands on the page and its own resolution."""

    bbox: BBox
    native_dpi: float


def figure_regions(page: Any, settings: FigureSettings = DEFAULT_FIGURE_SETTINGS) -> list[FigureRegion]:
    """The images of a pdfplumber ``page`` that may hold a flowchart drawn in pixels: at least
    ``min_width`` × ``min_height`` (clipped to the page), with at most ``max_text_chars`` visible characters
    of the text layer over them. Overlapping images are read once, as the region around them."""
    width, height = float(page.width), float(page.height)
    found: list[FigureRegion] = []
    for image in page.images:
        bbox = BBox(max(float(image["x0"]), 0.0), max(float(image["top"]), 0.0),
                    min(float(image["x1"]), width), min(float(image["bottom"]), height))
        if bbox.width < settings.min_width or bbox.height < settings.min_height:
            continue
        over = sum(1 for c in page.chars if c.get("text", "").strip()
                   and bbox.contains_point(((float(c["x0"]) + float(c["x1"])) / 2,
                                            (float(c["top"]) + float(c["bottom"])) / 2)))
        if over > settings.max_text_chars:
            continue
        source_width = float((image.get("srcsize") or (0, 0))[0] or 0)
        native = source_width / float(image["width"]) * 72 if source_width and float(image["width"]) > 0 else 0
        found.append(FigureRegion(bbox, native or settings.min_dpi))
    merged: list[FigureRegion] = []
    for region in sorted(found, key=lambda r: r.bbox.area, reverse=True):
        if any(_overlap(region.bbox, kept.bbox) > 0 for kept in merged):
            continue  # a smaller image inside (or across) a figure already taken is read with it
        merged.append(region)
    return sorted(merged, key=lambda r: (r.bbox.top, r.bbox.x0))


def is_searchable_scan(page: Any, settings: FigureSettings = DEFAULT_FIGURE_SETTINGS) -> bool:
    """Whether a pdfplumber ``page`` with a text layer is a scan all the same: images cover at least
    ``scan_page_share`` of it and it draws no vector shape or line (the text is OCR laid over the picture, so
    the vector route would find no box)."""
    area = float(page.width) * float(page.height)
    if area <= 0 or page.rects or page.curves or page.lines:
        return False
    covered = sum(max(0.0, min(float(i["x1"]), float(page.width)) - max(float(i["x0"]), 0.0))
                  * max(0.0, min(float(i["bottom"]), float(page.height)) - max(float(i["top"]), 0.0))
                  for i in page.images)
    return covered >= settings.scan_page_share * area


def read_figure(render: RegionRenderer, region: FigureRegion, page: PagePrimitives,
                settings: FigureSettings = DEFAULT_FIGURE_SETTINGS) -> tuple[PageLayout, float]:
    """The figure read from pixels by the scan pipeline (:func:`dkg.parsing.scan.pipeline.region_primitives`,
    which returns primitives in page points) and assembled with the pipeline's settings:
    ``(layout, dpi read at)``. The pipeline read cbrn-12's figure at page edge F1 0.923 against 0.480 by the
    default hybrid scan route, which kept the rule-based reader there.

    Raises :class:`~dkg.errors.ServiceError` when tesseract is missing or fails."""
    from dkg.parsing.scan.pipeline import region_primitives
    from dkg.parsing.scan.settings import DEFAULT_SETTINGS as SCAN_SETTINGS

    dpi = settings.render_dpi(region.native_dpi)
    prims = region_primitives(render(region.bbox, dpi), page.page_number, region.bbox, page.width, page.height,
                              SCAN_SETTINGS)
    # lengths scaled by the figure's own text size, as a born-digital page's are by its glyphs
    assembly = SCAN_SETTINGS.pipeline_assembly.for_text_size(t.size for t in prims.tokens if t.text.strip())
    return assemble(prims, assembly), dpi


def merge_figure(vector: PageLayout, figure: PageLayout, region: FigureRegion, dpi: float, page_number: int,
                 settings: FigureSettings = DEFAULT_FIGURE_SETTINGS) -> tuple[PageLayout, PixelRegion]:
    """The page's layout with the figure's boxes, connectors, labels and text added, and the record of the
    region read from pixels. A figure box overlapping a vector box by ``duplicate_share`` is that vector box;
    a connector joining only pairs the vector layout already joins is not added again. A figure in which no
    connector was found adds nothing (its boxes would all be side boxes): the record says so."""
    where = place(region.bbox)
    if not figure.connectors:
        return vector, PixelRegion(region.bbox, round(dpi, 1), (), 0)
    index_map: dict[int, int] = {}
    added: list[RawBox] = []
    renamed: dict[int, str] = {}
    for fi, box in enumerate(figure.boxes):
        duplicate = _duplicate_of(box.bbox, vector.boxes, settings.duplicate_share)
        if duplicate is not None:
            index_map[fi] = duplicate
            renamed[fi] = vector.boxes[duplicate].id
            continue
        index_map[fi] = len(vector.boxes) + len(added)
        box.id = f"p{page_number}-b{index_map[fi] + 1}"
        renamed[fi] = box.id
        added.append(box)
    joined = {(s, t) for c in vector.connectors for s in c.sources for t in c.targets}
    connectors = list(vector.connectors)
    for c in figure.connectors:
        sources = [index_map[s] for s in c.sources]
        targets = [index_map[t] for t in c.targets]
        if all((s, t) in joined or s == t for s in sources for t in targets):
            continue
        connectors.append(RawConnector(
            sources, targets, c.segments, c.kind, {index_map[k]: v for k, v in c.labels.items()}, c.directed,
            {index_map[k]: v for k, v in c.target_segments.items()}, set(c.source_segments)))
    labels = list(vector.label_boxes)
    for label in figure.label_boxes:
        label.id = f"p{page_number}-l{len(labels) + 1}"
        labels.append(label)

    def rename(message: str) -> str:
        return BOX_ID.sub(lambda m: renamed.get(int(m[1]) - 1, m[0]), message)

    # the figure's own title and notes (text above or below its boxes) are text on the chart, not page text
    other = vector.other + figure.other + group_blocks(figure.header + figure.bottom)
    warnings = vector.warnings + [f"raster figure {where}: {rename(w)}" for w in figure.warnings]
    layout = PageLayout(vector.boxes + added, connectors, vector.header, vector.bottom, other, vector.code,
                        warnings, labels, vector.title)
    ids = tuple(renamed[fi] for fi in range(len(figure.boxes)))
    return layout, PixelRegion(region.bbox, round(dpi, 1), ids, len(connectors) - len(vector.connectors))


def place(bbox: BBox) -> str:
    """Where a region stands, for messages: ``at (54, 700)–(737, 1014) pt``."""
    return f"at ({bbox.x0:.0f}, {bbox.top:.0f})–({bbox.x1:.0f}, {bbox.bottom:.0f}) pt"


def describe(region: PixelRegion) -> str:
    """One line for the page's warnings: which region was read from pixels and what it gave."""
    if not region.connectors:
        return (f"image {place(region.bbox)} read from pixels at {region.dpi:g} dpi: no flowchart connector "
                "found; nothing added")
    return (f"image {place(region.bbox)} read from pixels at {region.dpi:g} dpi: {len(set(region.box_ids))} "
            f"boxes, {region.connectors} connectors (box texts are OCR)")


def _overlap(a: BBox, b: BBox) -> float:
    return max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0)) * max(0.0, min(a.bottom, b.bottom) - max(a.top, b.top))


def _duplicate_of(bbox: BBox, boxes: list[RawBox], share: float) -> int | None:
    best: tuple[float, int] | None = None
    for index, box in enumerate(boxes):
        smaller = min(bbox.area, box.bbox.area)
        if smaller <= 0:
            continue
        covered = _overlap(bbox, box.bbox) / smaller
        if covered >= share and (best is None or covered > best[0]):
            best = (covered, index)
    return None if best is None else best[1]
