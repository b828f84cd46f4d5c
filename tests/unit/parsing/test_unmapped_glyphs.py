"""Glyphs a PDF gives no character for (``(cid:N)``: a font embedded without a Unicode map) are never left out
of the text: a symbol font's glyph leading its line is a list bullet, any other is ``\ufffd``."""

from __future__ import annotations

from typing import Any

from dkg.parsing.digital import BULLET, UNKNOWN, extract_primitives, unmapped_share


class _Page:
    """The parts of a pdfplumber page :func:`extract_primitives` reads: glyphs only."""

    page_number = 1
    width, height = 300.0, 200.0
    rects: list[dict[str, Any]] = []
    curves: list[dict[str, Any]] = []
    lines: list[dict[str, Any]] = []
    annots: list[dict[str, Any]] = []

    def __init__(self, chars: list[dict[str, Any]]) -> None:
        self.chars = chars


def _line(x: float, top: float, *glyphs: tuple[str, str]) -> list[dict[str, Any]]:
    """Glyphs ``(text, font)`` set side by side from ``x``, 6 pt apart, 10 pt high."""
    return [{"text": text, "fontname": font, "x0": x + 6 * i, "x1": x + 6 * i + 5, "top": top, "bottom": top + 10,
             "size": 10.0} for i, (text, font) in enumerate(glyphs)]


def _texts(page: _Page) -> list[str]:
    return [t.text for t in sorted(extract_primitives(page, {}).tokens, key=lambda t: (t.bbox.top, t.bbox.x0))]


def test_a_symbol_glyph_leading_its_line_is_a_bullet() -> None:
    page = _Page(_line(20, 20, ("(cid:120)", "ABCDEF+SymbolMT")) + _line(40, 20, *[(c, "Arial") for c in "Give"]))
    assert _texts(page)[0] == BULLET
    prims = extract_primitives(page, {})
    assert (prims.unmapped_glyphs, prims.unmapped_bullets) == (1, 1)


def test_a_symbol_glyph_inside_a_phrase_is_unknown_not_a_bullet() -> None:
    # "OR β-blocker" with β unmapped: the sign after a word is not a list bullet
    page = _Page(_line(20, 20, ("O", "Arial"), ("R", "Arial"), ("(cid:98)", "ABCDEF+SymbolMT"), ("-", "Arial")))
    assert _texts(page) == ["O", "R", UNKNOWN, "-"]


def test_an_unmapped_letter_or_digit_is_kept_as_unknown() -> None:
    # a dose whose zero has no character must not read as another dose
    page = _Page(_line(20, 20, ("1", "Arial"), ("(cid:19)", "XDLSPT+ArialMT"), ("m", "Arial"), ("g", "Arial")))
    assert _texts(page) == ["1", UNKNOWN, "m", "g"]
    assert unmapped_share(page.chars) == 0.25
