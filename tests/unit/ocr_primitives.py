"""Hand-built OCR primitives for the scan-route tests: a rectangle with one line of words, as tesseract and the
shape finder would report them."""

from __future__ import annotations

from dkg.parsing.geometry import BBox
from dkg.parsing.models import PagePrimitives, Shape, Token


def add_box(prims: PagePrimitives, x0: float, y0: float, x1: float, y1: float, words: list[str], *,
            char_width: float) -> None:
    """Append a closed rectangle and its words (one line, 6 pt in from the top left, a space token between)."""
    prims.shapes.append(Shape(((x0, y0), (x1, y0), (x1, y1), (x0, y1)), BBox(x0, y0, x1, y1), False, True, "rect"))
    x = x0 + 6
    for i, word in enumerate(words):
        if i:
            prims.tokens.append(Token(" ", BBox(x, y0 + 6, x + 4, y0 + 16), 10.0))
            x += 4
        prims.tokens.append(Token(word, BBox(x, y0 + 6, x + char_width * len(word), y0 + 16), 10.0))
        x += char_width * len(word)
