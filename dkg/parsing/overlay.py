"""Review pictures: one PNG per parsed page showing what the parser understood, drawn over the page.

Boxes found are outlined with their ids, edges are arrows from the head box to the tail box with their labels,
and what was left out of the graph (side boxes kept as page notes, branch-label boxes, unattached text) is
outlined in its own colour; a legend in the top-left corner names the colours and the page title read. The page
itself is rendered with pypdfium2 and drawn on with Pillow.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dkg.errors import ParseError
from dkg.parsing.geometry import BBox, Point
from dkg.parsing.models import ParsedPage, ParseResult
from dkg.types import HeadTailEdge

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class OverlayStyle:
    """Colours and sizes of the review picture (``scale`` pixels per PDF point)."""

    scale: float = 2.0
    box: RGB = (30, 90, 220)
    edge: RGB = (215, 25, 30)
    label: RGB = (0, 130, 40)
    side_box: RGB = (245, 140, 0)
    branch_label: RGB = (170, 40, 200)
    free_text: RGB = (120, 120, 120)
    page_text: RGB = (160, 160, 160)
    pixels: RGB = (0, 150, 160)
    link: RGB = (0, 110, 200)
    width: int = 2
    font_size: int = 14

    def __post_init__(self) -> None:
        if not 0.25 <= self.scale <= 8:
            raise ValueError(f"OverlayStyle.scale must be between 0.25 and 8 pixels per point; got {self.scale}")


NOTE_LEGEND = {
    "side_box": "side box (page note, not a node)",
    "branch_label": "branch label box (became an edge label)",
    "free_text": "text on no connector (dropped)",
    "page_text": "text outside the chart (title, panels, footer)",
}


def overlay_names(result: ParseResult, folder: Path) -> dict[int, Path]:
    """The PNG path of each parsed page: ``<pdf stem>-p<page>.png`` in ``folder``."""
    stem = Path(result.path).stem
    return {page.number: folder / f"{stem}-p{page.number}.png" for page in result.pages}


def render_overlay(pdf_path: str | Path, page: ParsedPage, style: OverlayStyle = OverlayStyle(),
                   links: Sequence[HeadTailEdge] = ()) -> Any:
    """The review picture of one parsed page, as a Pillow image (``links``: the document's links to other pages'
    first boxes, :mod:`dkg.parsing.title_links`; those leaving this page's boxes are drawn)."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(pdf_path))
    try:
        pdf_page = document[page.number - 1]
        try:
            image = pdf_page.render(scale=style.scale).to_pil().convert("RGB")
        finally:
            pdf_page.close()
    finally:
        document.close()
    draw_overlay(image, page, style, links)
    return image


def draw_overlay(image: Any, page: ParsedPage, style: OverlayStyle = OverlayStyle(),
                 links: Sequence[HeadTailEdge] = ()) -> None:
    """Draw boxes, edges, notes, links to other pages and the legend of ``page`` on ``image`` (a Pillow RGB image
    of the page)."""
    from PIL import ImageDraw, ImageFont

    draw = ImageDraw.Draw(image, "RGBA")
    font = ImageFont.load_default(size=style.font_size)
    small = ImageFont.load_default(size=max(8, style.font_size - 3))
    s = style.scale

    def rect(bbox: BBox) -> tuple[float, float, float, float]:
        return (bbox.x0 * s, bbox.top * s, bbox.x1 * s, bbox.bottom * s)

    for region in page.pixel_regions:
        draw.rectangle(rect(region.bbox), outline=style.pixels, width=style.width)
        draw.text((region.bbox.x0 * s + 2, region.bbox.bottom * s + 2), f"read from pixels ({region.dpi:g} dpi)",
                  fill=style.pixels, font=small)
    for note in page.notes:
        colour = getattr(style, note.kind, style.free_text)
        draw.rectangle(rect(note.bbox), outline=colour, width=style.width, fill=(*colour, 28))
        tag = note.box_id or note.kind
        draw.text((note.bbox.x0 * s, note.bbox.top * s - style.font_size), tag, fill=colour, font=small)
    dropped = set(page.dropped_boxes)
    boxes = {box.id: box for box in page.boxes}
    for box in page.boxes:
        if box.id in dropped:
            continue
        draw.rectangle(rect(box.bbox), outline=style.box, width=style.width)
        draw.text((box.bbox.x0 * s + 2, box.bbox.top * s - style.font_size - 1), box.id.split("-")[-1],
                  fill=style.box, font=font)
    for connector in page.connectors:
        for source in connector.sources:
            for target in connector.targets:
                if source not in boxes or target not in boxes:
                    continue
                a, b = _between(boxes[source].bbox, boxes[target].bbox)
                tip = (b[0] * s, b[1] * s)
                dashed = connector.direction != "arrowhead"
                _arrow(draw, (a[0] * s, a[1] * s), tip, style.edge, style.width, dashed)
                label = connector.labels.get(target)
                if label:
                    middle = ((a[0] + b[0]) / 2 * s + 4, (a[1] + b[1]) / 2 * s - style.font_size / 2)
                    draw.text(middle, label, fill=style.label, font=font, stroke_width=2, stroke_fill="white")
    leaving = [link for link in links if link.head_box_id in boxes]
    for link in leaving:
        # a dashed stub out of the box's right side, with the box it continues at on the other page
        bbox = boxes[link.head_box_id].bbox
        start = (bbox.x1 * s, (bbox.top + bbox.bottom) / 2 * s)
        end = (start[0] + 24 * s, start[1])
        _arrow(draw, start, end, style.link, style.width, True)
        target = link.tail if len(link.tail) <= 40 else link.tail[:39] + "…"
        draw.text((end[0] + 4, end[1] - style.font_size / 2), f"to {link.tail_box_id}: {target}", fill=style.link,
                  font=small, stroke_width=2, stroke_fill="white")
    _legend(draw, style, font, _legend_rows(page, style, len(leaving)))


def write_overlays(result: ParseResult, folder: str | Path, style: OverlayStyle = OverlayStyle(), *,
                   prune: bool = False) -> list[Path]:
    """Write one review PNG per parsed page into ``folder`` (created if missing); return the paths written.

    Each picture is written to a temporary file and renamed, so a failure leaves no half-written PNG. With
    ``prune``, the other PNGs in ``folder`` (pictures of an earlier parse of other pages) are removed once every
    picture is written, so the folder shows this parse only."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ParseError(f"--overlay {folder} is a file; give a folder for the page pictures")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ParseError(f"cannot create overlay folder {folder}: {exc.strerror or exc}") from None
    names = overlay_names(result, folder)
    written = []
    for page in result.pages:
        path = names[page.number]
        image = render_overlay(result.path, page, style, result.links)
        partial = path.with_name(f".{path.name}.part")
        try:
            image.save(partial, format="PNG")
            partial.replace(path)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise ParseError(f"cannot write overlay {path}: {exc.strerror or exc}") from None
        written.append(path)
    if prune:
        for stale in set(folder.glob("*.png")) - set(written):
            stale.unlink(missing_ok=True)
    return written


def _between(head: BBox, tail: BBox) -> tuple[Point, Point]:
    """Where the straight line between two box centres leaves the head box and enters the tail box."""
    from shapely.geometry import LineString, box

    line = LineString([head.center, tail.center])

    def exit_point(bbox: BBox, fallback: Point) -> Point:
        crossing = line.intersection(box(bbox.x0, bbox.top, bbox.x1, bbox.bottom).exterior)
        points = [(p.x, p.y) for p in getattr(crossing, "geoms", [crossing]) if p.geom_type == "Point"]
        return min(points, key=lambda p: math.dist(p, fallback)) if points else fallback

    return exit_point(head, tail.center), exit_point(tail, head.center)


def _arrow(draw: Any, a: Point, b: Point, colour: RGB, width: int, dashed: bool) -> None:
    length = math.dist(a, b)
    if length < 1:
        return
    if dashed:  # direction inferred (no arrowhead drawn on the page): a dashed shaft says so
        steps = max(1, int(length // 8))
        for i in range(0, steps, 2):
            p = _along(a, b, i / steps)
            q = _along(a, b, min(1.0, (i + 1) / steps))
            draw.line([p, q], fill=colour, width=width)
    else:
        draw.line([a, b], fill=colour, width=width)
    angle = math.atan2(b[1] - a[1], b[0] - a[0])
    size = 6 + 2 * width
    left = (b[0] - size * math.cos(angle - 0.45), b[1] - size * math.sin(angle - 0.45))
    right = (b[0] - size * math.cos(angle + 0.45), b[1] - size * math.sin(angle + 0.45))
    draw.polygon([b, left, right], fill=colour)


def _along(a: Point, b: Point, t: float) -> Point:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def _legend_rows(page: ParsedPage, style: OverlayStyle, links: int = 0) -> list[tuple[RGB, str]]:
    rows: list[tuple[RGB, str]] = [
        (style.box, f"title: {page.title[:60] if page.title else 'none read'}"),
        (style.box, f"box found ({len(page.boxes) - len(page.dropped_boxes)}), with its id"),
        (style.edge, f"edge ({len(page.edges)}); dashed: direction inferred, no arrowhead"),
        (style.label, "edge label"),
    ]
    if links:
        rows.append((style.link, f"link to another page's first box ({links}): the box names that chart"))
    if page.pixel_regions:
        rows.append((style.pixels, f"image read from pixels ({len(page.pixel_regions)})"))
    kinds = _kinds(note.kind for note in page.notes)
    rows += [(getattr(style, kind, style.free_text), f"{NOTE_LEGEND.get(kind, kind)} ({count})")
             for kind, count in kinds.items()]
    return rows


def _kinds(kinds: Iterable[str]) -> dict[str, int]:
    counts = {kind: 0 for kind in NOTE_LEGEND}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def _legend(draw: Any, style: OverlayStyle, font: Any, rows: list[tuple[RGB, str]]) -> None:
    line = style.font_size + 6
    width = 12 + max(int(draw.textlength(text, font=font)) for _, text in rows) + 30
    height = 10 + line * len(rows)
    draw.rectangle((6, 6, 6 + width, 6 + height), fill=(255, 255, 255, 235), outline=(0, 0, 0), width=1)
    for index, (colour, text) in enumerate(rows):
        y = 12 + index * line
        draw.rectangle((14, y + 2, 32, y + style.font_size), outline=colour, width=3)
        draw.text((40, y), text, fill=(0, 0, 0), font=font)
