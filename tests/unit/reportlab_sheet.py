"""Born-digital test pages drawn with reportlab in the parser's top-left coordinates (y grows down the page)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

LETTER = (612.0, 792.0)
# reportlab's own Vera font (shipped with it) embeds a Unicode map: the standard Helvetica writes a bullet that
# pdfminer cannot map back ("(cid:127)")
VERA = "Vera"


class Sheet:
    """One reportlab page of ``width`` × ``height`` points written to ``path`` by :meth:`save`, drawn in top-left
    coordinates (like the parser's), its text in ``font`` at ``size`` points unless told otherwise."""

    def __init__(self, path: Path, *, width: float = LETTER[0], height: float = LETTER[1], font: str = VERA,
                 size: float = 10) -> None:
        from reportlab.pdfgen import canvas

        if font == VERA:
            from reportlab.pdfbase import pdfmetrics
            from reportlab.pdfbase.ttfonts import TTFont

            pdfmetrics.registerFont(TTFont(VERA, "Vera.ttf"))
        self.width, self.height, self.font, self.size = width, height, font, size
        self.c: Any = canvas.Canvas(str(path), pagesize=(width, height))
        self.c.setFont(font, size)

    def save(self) -> None:
        self.c.save()

    def box(self, x: float, top: float, w: float, h: float, *lines: str, fill: tuple[float, float, float] | None
            = None, stroke: bool = True, radius: float = 0.0) -> None:
        """A rectangle (rounded by ``radius``), its ``lines`` of text 6 pt in from its left side, 12 pt apart."""
        if fill is not None:
            self.c.setFillColorRGB(*fill)
        if radius:
            self.c.roundRect(x, self.height - top - h, w, h, radius, stroke=int(stroke), fill=int(fill is not None))
        else:
            self.c.rect(x, self.height - top - h, w, h, stroke=int(stroke), fill=int(fill is not None))
        self.c.setFillColorRGB(0, 0, 0)
        for i, line in enumerate(lines):
            self.c.drawString(x + 6, self.height - top - 14 - 12 * i, line)

    def text(self, x: float, top: float, words: str, size: float | None = None) -> None:
        """``words`` whose line of ``size`` points (the sheet's size unless told) starts ``top`` down the page."""
        size = self.size if size is None else size
        self.c.setFont(self.font, size)
        self.c.drawString(x, self.height - top - size, words)
        self.c.setFont(self.font, self.size)

    def line(self, *points: tuple[float, float]) -> None:
        path = self.c.beginPath()
        path.moveTo(points[0][0], self.height - points[0][1])
        for x, y in points[1:]:
            path.lineTo(x, self.height - y)
        self.c.drawPath(path, stroke=1, fill=0)

    def polygon(self, *points: tuple[float, float], fill: tuple[float, float, float] = (0, 0, 0)) -> None:
        self.c.setFillColorRGB(*fill)
        path = self.c.beginPath()
        path.moveTo(points[0][0], self.height - points[0][1])
        for x, y in points[1:]:
            path.lineTo(x, self.height - y)
        path.close()
        self.c.drawPath(path, stroke=0, fill=1)
        self.c.setFillColorRGB(0, 0, 0)

    def arrow_down(self, x: float, top: float, bottom: float) -> None:
        self.line((x, top), (x, bottom - 7))
        self.polygon((x - 4, bottom - 7), (x + 4, bottom - 7), (x, bottom))

    def image(self, picture: Any, x: float, top: float, w: float, h: float) -> None:
        """``picture`` (a file name or a reportlab ``ImageReader``) drawn ``w`` × ``h`` from (``x``, ``top``)."""
        self.c.drawImage(picture, x, self.height - top - h, w, h)
