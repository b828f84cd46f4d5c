"""The real pages re-saved in the page frames other PDF producers write, with pypdf: the drawing unchanged, the
page boxes, rotation and scale as a print shop, a landscape layout or a page cut out of a larger sheet leave them.
The parser must read every variant as it reads the original (``bench/parser_bench.py --real-frames``).

- ``moved``: the sheet drawn 100 pt right and 50 pt up, its MediaBox moved with it (a page cut from a larger one);
- ``bleed``: 30 pt of sheet round the CropBox (a print file), with a crop mark in each bleed corner;
- ``landscape``: the drawing turned a quarter on a landscape MediaBox, with ``/Rotate 90`` to show it upright;
- ``landscape_bleed``: both of the last two;
- ``shrunk`` / ``enlarged``: the whole page scaled to 70 % / 130 % (a letter page printed on a smaller sheet, a
  flowchart drawn for a poster; every length changes with it);
- ``no_unicode``: the Unicode maps (``/ToUnicode``) of the page's composite fonts removed, as producers that
  subset fonts without one write them: their glyphs have no character (the real pages' bullets and ``β`` on the
  SMOG pages, nearly all the text on cbrn-12).
"""

from __future__ import annotations

from pathlib import Path

from dkg.corpus.real_scans import RealPage
from dkg.errors import CorpusError

FRAME_VARIANTS = ("moved", "bleed", "landscape", "landscape_bleed", "shrunk", "enlarged", "no_unicode")
BLEED_PT = 30.0
SCALES = {"shrunk": 0.7, "enlarged": 1.3}
# short crop marks drawn in the bleed, outside the CropBox (the corners of a page of width w and height h)
_CROP_MARK = "q 0 G 0.5 w {x0} {y} m {x1} {y} l S Q\n"


def frame_variant_name(page: RealPage, kind: str) -> str:
    return f"{page.page_id}-{kind}.pdf"


def write_frame_variant(page: RealPage, kind: str, out_dir: Path) -> Path:
    """``page`` alone, re-saved as the ``kind`` variant into ``out_dir``; returns the file written."""
    import pypdf
    from pypdf.generic import RectangleObject

    if kind not in FRAME_VARIANTS:
        raise CorpusError(f"unknown page frame variant {kind!r}; choose one of {', '.join(FRAME_VARIANTS)}")
    writer = pypdf.PdfWriter()
    writer.add_page(pypdf.PdfReader(page.pdf).pages[page.page - 1])
    sheet = writer.pages[0]
    left, bottom, right, top = (float(v) for v in sheet.mediabox)
    if kind == "moved":
        sheet.add_transformation(pypdf.Transformation().translate(100, 50))
        sheet.mediabox = RectangleObject([left + 100, bottom + 50, right + 100, top + 50])
        sheet.cropbox = sheet.mediabox
    if kind in ("landscape", "landscape_bleed"):
        sheet.add_transformation(pypdf.Transformation().rotate(90).translate(top - bottom, 0))
        sheet.mediabox = RectangleObject([0, 0, top - bottom, right - left])
        sheet.cropbox = sheet.mediabox
        sheet.rotate(90)
        left, bottom, right, top = (float(v) for v in sheet.mediabox)
    if kind in ("bleed", "landscape_bleed"):
        sheet.cropbox = RectangleObject([left, bottom, right, top])
        sheet.mediabox = RectangleObject([left - BLEED_PT, bottom - BLEED_PT, right + BLEED_PT, top + BLEED_PT])
        marks = "".join(_CROP_MARK.format(x0=x - 25, x1=x - 5, y=y) for x in (left, right + 30)
                        for y in (bottom - 10, top + 10))
        _append_content(sheet, marks.encode())
    if kind in SCALES:
        sheet.scale_by(SCALES[kind])
    if kind == "no_unicode":
        _without_unicode_maps(sheet)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / frame_variant_name(page, kind)
    with target.open("wb") as fh:
        writer.write(fh)
    return target


def _append_content(sheet: object, content: bytes) -> None:
    """Draw ``content`` (PDF operators in the page's user space) over the page's own content."""
    import pypdf
    from pypdf.generic import DecodedStreamObject, NameObject

    stream = DecodedStreamObject()
    stream.set_data(content)
    overlay = pypdf.PageObject.create_blank_page(width=1, height=1)
    overlay[NameObject("/Contents")] = stream
    sheet.merge_page(overlay)  # type: ignore[attr-defined]


def _without_unicode_maps(sheet: object) -> None:
    """Remove ``/ToUnicode`` from every composite (Type0) font of the page."""
    from pypdf.generic import NameObject

    fonts = sheet["/Resources"].get("/Font", {})  # type: ignore[index]
    for ref in fonts.values():
        font = ref.get_object()
        if font.get("/Subtype") == "/Type0" and "/ToUnicode" in font:
            del font[NameObject("/ToUnicode")]
