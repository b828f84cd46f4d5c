"""A pdfplumber page seen in the frame a viewer shows and pypdfium2 renders: origin at the top-left corner of
the page's CropBox, width and height of the CropBox.

pdfplumber measures ``x`` from the user-space origin and ``top`` from the MediaBox's height, so on a page whose
MediaBox does not start at (0, 0) (pages cut out of a larger sheet) or whose CropBox lies inside it (print files
with bleed round the trim) its coordinates are offset from the rendered picture, and from the page size the
scan route is given. Read through :class:`VisiblePage`, every object is moved into the visible frame and
objects wholly outside it (crop marks in the bleed) are left out, so vector objects, rendered figure regions and
scans agree.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

# coordinates of pdfplumber objects measured in the page's top-left frame (y0/y1 count from the bottom and are
# not read by the parser)
_X_KEYS = ("x0", "x1")
_TOP_KEYS = ("top", "bottom", "doctop")
# an object reaching this far (points) past the visible edge is still drawn on the page (a border on the edge)
_EDGE_SLACK = 0.5


def _visible_objects(name: str) -> cached_property[list[dict[str, Any]]]:
    """The pdfplumber page's object list ``name``, moved into the visible frame (read once)."""
    return cached_property(lambda self: self._visible(getattr(self._page, name) or []))


class VisiblePage:
    """The objects of one pdfplumber ``page`` in the visible (CropBox) frame; see the module docstring."""

    def __init__(self, page: Any) -> None:
        self._page = page
        x0, top, x1, bottom = shown_box(page)
        self.offset = (x0, top)
        self.width = x1 - x0
        self.height = bottom - top
        self.page_number = page.page_number
        self.pdf = page.pdf
        self.page_obj = page.page_obj

    chars = _visible_objects("chars")
    rects = _visible_objects("rects")
    lines = _visible_objects("lines")
    curves = _visible_objects("curves")
    images = _visible_objects("images")
    annots = _visible_objects("annots")

    def extract_text(self, **kwargs: Any) -> str:
        return str(self._page.extract_text(**kwargs) or "")

    def _visible(self, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [moved for obj in objects if self._shows(moved := self._moved(obj))]

    def _shows(self, obj: dict[str, Any]) -> bool:
        if not all(k in obj for k in ("x0", "x1", "top", "bottom")):
            return True
        return (float(obj["x1"]) >= -_EDGE_SLACK and float(obj["x0"]) <= self.width + _EDGE_SLACK
                and float(obj["bottom"]) >= -_EDGE_SLACK and float(obj["top"]) <= self.height + _EDGE_SLACK)

    def _moved(self, obj: dict[str, Any]) -> dict[str, Any]:
        dx, dy = self.offset
        out = dict(obj)
        for key in _X_KEYS:
            if key in out:
                out[key] = float(out[key]) - dx
        for key in _TOP_KEYS:
            if key in out:
                out[key] = float(out[key]) - dy
        if out.get("pts"):
            out["pts"] = [(float(x) - dx, float(y) - dy) for x, y in out["pts"]]
        if out.get("path"):
            out["path"] = [(command[0], *((float(x) - dx, float(y) - dy) for x, y in command[1:]))
                           for command in out["path"]]
        return out


def shown_box(page: Any) -> tuple[float, float, float, float]:
    """The part of a pdfplumber ``page`` a viewer shows, ``(x0, top, x1, bottom)`` in pdfplumber's frame: the
    CropBox clipped to the MediaBox, or the MediaBox when the CropBox is empty or lies wholly outside it (as
    PDFium reads a CropBox of zero size).

    >>> class Page: cropbox = (0.0, 60.0, 700.0, 852.0); mediabox = (-30.0, 30.0, 642.0, 882.0)
    >>> shown_box(Page())
    (0.0, 60.0, 642.0, 852.0)
    >>> Page.cropbox = (0.0, 792.0, 0.0, 792.0)
    >>> shown_box(Page())
    (-30.0, 30.0, 642.0, 882.0)
    """
    crop = [float(v) for v in page.cropbox]
    media = [float(v) for v in page.mediabox]
    x0, top = max(crop[0], media[0]), max(crop[1], media[1])
    x1, bottom = min(crop[2], media[2]), min(crop[3], media[3])
    if x1 - x0 <= 0 or bottom - top <= 0:
        return media[0], media[1], media[2], media[3]
    return x0, top, x1, bottom


def visible_page(page: Any) -> Any:
    """``page`` itself when the part it shows starts at the origin and fills the page (nothing to move or
    leave out), else the page seen through :class:`VisiblePage`."""
    if shown_box(page) == (0.0, 0.0, float(page.width), float(page.height)):
        return page
    return VisiblePage(page)
