"""Draw laid-out guideline pages as a vector PDF with a real text layer (reportlab, deterministic)."""

from __future__ import annotations

import io
from pathlib import Path

from reportlab.pdfgen.canvas import Canvas

from dkg.corpus.layout import (
    BAND,
    FONT,
    FONT_BOLD,
    SUP_RISE,
    SUP_SCALE,
    Connector,
    Line,
    PageLayout,
    PlacedBox,
    layout_guideline,
    register_fonts,
    width,
)
from dkg.corpus.model import ArrowStyle, Guideline, Shape

INK = (0.15, 0.15, 0.2)
BAND_COLOUR = (0.16, 0.36, 0.62)
BLOCK_GREY = (0.55, 0.58, 0.62)


def _dest(code: str) -> str:
    return f"page_{code}"


def _draw_line(c: Canvas, line: Line, height: float) -> None:
    text = c.beginText(line.x, height - line.baseline)
    font = FONT_BOLD if line.bold else FONT
    for run in line.runs:
        if run.sup:
            text.setFont(font, line.size * SUP_SCALE)
            text.setRise(line.size * SUP_RISE)
        else:
            text.setFont(font, line.size)
            text.setRise(0)
        text.textOut(run.text)
    text.setRise(0)
    c.drawText(text)
    if line.link is not None:
        shown, target = line.link
        plain = "".join(r.text for r in line.runs)
        start = plain.index(f"({shown})") + 1
        x0 = line.x + width(plain[:start], line.size, line.bold)
        x1 = x0 + width(shown, line.size, line.bold)
        y = height - line.baseline
        c.linkAbsolute("", _dest(target), Rect=(x0, y - 2, x1, y + line.size * 0.8), thickness=0)
        c.setLineWidth(0.5)
        c.setStrokeColorRGB(0.1, 0.3, 0.7)
        c.line(x0, y - 1.2, x1, y - 1.2)


def _draw_box(c: Canvas, placed: PlacedBox, height: float) -> None:
    r = placed.rect
    x, y, w, h = r.x0, height - r.bottom, r.width, r.height
    c.setFillColorRGB(*placed.fill)
    c.setStrokeColorRGB(*INK)
    c.setLineWidth(0.8)
    c.setDash()
    if placed.shape is Shape.DIAMOND:
        path = c.beginPath()
        path.moveTo(x + w / 2, y + h)
        path.lineTo(x + w, y + h / 2)
        path.lineTo(x + w / 2, y)
        path.lineTo(x, y + h / 2)
        path.close()
        c.drawPath(path, fill=1, stroke=1)
    elif placed.shape is Shape.ROUNDED:
        c.roundRect(x, y, w, h, radius=min(6.0, h / 3), fill=1, stroke=1)
    else:
        c.rect(x, y, w, h, fill=1, stroke=1)
        if placed.shape is Shape.BANDED:
            c.setFillColorRGB(*BAND_COLOUR)
            c.rect(x, y + h - BAND, w, BAND, fill=1, stroke=0)
    c.setFillColorRGB(0, 0, 0)
    for line in placed.lines:
        _draw_line(c, line, height)


def _draw_connector(c: Canvas, conn: Connector, height: float) -> None:
    style = conn.arrow.style
    block = style is ArrowStyle.BLOCK
    colour = BLOCK_GREY if block else INK
    c.setStrokeColorRGB(*colour)
    c.setFillColorRGB(*colour)
    c.setLineWidth(4.0 if block else 0.8)
    c.setLineJoin(0 if block else 1)
    c.setDash(3, 2) if style is ArrowStyle.DASHED else c.setDash()
    for points in conn.polylines:
        head_len = 8.0 if block else 5.0
        dx, dy = conn.direction
        pts = list(points)
        # Stop the shaft where the arrowhead starts so a thick line does not poke through the tip.
        tx, ty = pts[-1]
        pts[-1] = (tx - dx * head_len * 0.8, ty - dy * head_len * 0.8)
        path = c.beginPath()
        path.moveTo(pts[0][0], height - pts[0][1])
        for px, py in pts[1:]:
            path.lineTo(px, height - py)
        c.drawPath(path, fill=0, stroke=1)
    if conn.head is not None:
        c.setDash()
        tx, ty = conn.head
        dx, dy = conn.direction
        half = 5.0 if block else 2.6
        head_len = 8.0 if block else 5.0
        bx, by = tx - dx * head_len, ty - dy * head_len
        path = c.beginPath()
        path.moveTo(tx, height - ty)
        path.lineTo(bx - dy * half, height - (by + dx * half))
        path.lineTo(bx + dy * half, height - (by - dx * half))
        path.close()
        c.drawPath(path, fill=1, stroke=0)


def draw_page(c: Canvas, layout: PageLayout, guideline: Guideline) -> None:
    """Draw one laid-out page on the canvas and finish it."""
    h = layout.height
    c.setPageSize((layout.width, h))
    c.bookmarkPage(_dest(layout.page.code))
    c.addOutlineEntry(f"{layout.page.code} {layout.page.title}", _dest(layout.page.code), level=0)
    c.setStrokeColorRGB(*INK)
    c.setLineWidth(0.6)
    for x0, y0, x1, y1 in layout.rules:
        c.line(x0, h - y0, x1, h - y1)
    c.setStrokeColorRGB(0.6, 0.6, 0.6)
    c.setDash(2, 3)
    for x0, y0, x1, y1 in layout.dividers:
        c.line(x0, h - y0, x1, h - y1)
    c.setDash()
    for conn in layout.connectors:
        _draw_connector(c, conn, h)
    for placed in [*layout.boxes.values(), *layout.notes]:
        _draw_box(c, placed, h)
    c.setFillColorRGB(*INK)
    for label in layout.labels:
        _draw_line(c, label.line, h)
    c.setFillColorRGB(0, 0, 0)
    for line in [*layout.header, *layout.footnotes, *layout.footer]:
        _draw_line(c, line, h)
    c.showPage()


def render_pdf(guideline: Guideline) -> tuple[bytes, list[PageLayout]]:
    """Render every page; return the PDF bytes (identical for identical input) and the layouts."""
    register_fonts()
    layouts = layout_guideline(guideline)
    buffer = io.BytesIO()
    c = Canvas(buffer, invariant=1, pageCompression=1)
    c.setTitle(f"{guideline.title} — Version {guideline.version}")
    c.setAuthor("dkg corpus (illustrative content for software testing, not clinical advice)")
    c.setSubject(f"{guideline.guideline} {guideline.version}")
    c.setCreator("dkg corpus render")
    c.showOutline()
    for layout in layouts:
        draw_page(c, layout, guideline)
    c.save()
    return buffer.getvalue(), layouts


def render_to_file(guideline: Guideline, path: Path) -> list[PageLayout]:
    """Render a guideline to ``path`` (written atomically)."""
    data, layouts = render_pdf(guideline)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".pdf.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return layouts
