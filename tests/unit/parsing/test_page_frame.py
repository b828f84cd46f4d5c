"""Pages whose MediaBox does not start at the origin, or whose CropBox lies inside it (print files with
bleed), are read in the frame a viewer shows and pypdfium2 renders (``dkg.parsing.page_frame``)."""

from __future__ import annotations

from pathlib import Path

import pdfplumber
import pytest
from PIL import Image

from dkg.corpus.page_frames import FRAME_VARIANTS, write_frame_variant
from dkg.corpus.real_scans import RealPage
from dkg.parsing import parse_pdf
from dkg.parsing.page_frame import VisiblePage, visible_page
from tests.unit.reportlab_sheet import Sheet

WIDTH, HEIGHT = 400.0, 300.0


def _flowchart(path: Path, picture: Path) -> None:
    """Two boxes joined by an arrow that starts a little below its source box, and a picture in the lower right
    corner."""
    s = Sheet(path, width=WIDTH, height=HEIGHT, font="Helvetica")  # 10 pt: the size the assembly's lengths suit
    s.box(40, 40, 150, 40)
    s.text(48, 54, "Patient stable?")
    s.box(40, 160, 150, 40)
    s.text(48, 174, "Observe and reassess")
    s.line((115, 84), (115, 152))  # the line starts 4 pt below its box (attach_tol is 5)
    s.polygon((111, 152), (119, 152), (115, 160))
    s.image(str(picture), 260, 200, 100, 60)
    s.save()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("frames")
    picture = folder / "picture.png"
    Image.new("L", (50, 30), 128).save(picture)
    out = {"plain": folder / "plain.pdf"}
    _flowchart(out["plain"], picture)
    plain = RealPage("plain", out["plain"], 1, "dev")
    for kind in FRAME_VARIANTS:
        out[kind] = write_frame_variant(plain, kind, folder)
    return out


def _boxes(path: Path) -> list[tuple[str, tuple[float, ...]]]:
    page = parse_pdf(path, pages="1").pages[0]
    return sorted((b.text, tuple(round(v, 1) for v in (b.bbox.x0, b.bbox.top, b.bbox.x1, b.bbox.bottom)))
                  for b in page.boxes)


@pytest.mark.parametrize("kind", ["moved", "bleed", "landscape", "landscape_bleed"])
def test_boxes_and_edges_stand_where_the_page_shows_them(pages: dict[str, Path], kind: str) -> None:
    plain = parse_pdf(pages["plain"], pages="1").pages[0]
    assert [(e.head, e.tail) for e in plain.edges] == [("Patient stable?", "Observe and reassess")]
    moved = parse_pdf(pages[kind], pages="1").pages[0]
    assert _boxes(pages[kind]) == _boxes(pages["plain"])
    assert [(e.head, e.tail) for e in moved.edges] == [(e.head, e.tail) for e in plain.edges]


@pytest.mark.parametrize("kind", ["shrunk", "enlarged"])
def test_a_page_drawn_smaller_or_larger_keeps_its_edges(pages: dict[str, Path], kind: str) -> None:
    # enlarged by 130 %, the line starts 5.2 pt below its box: past the 5 pt of a 10 pt drawing, within the
    # tolerance grown with the page's 13 pt text
    assert [(e.head, e.tail) for e in parse_pdf(pages[kind], pages="1").pages[0].edges] == [
        ("Patient stable?", "Observe and reassess")]


@pytest.mark.parametrize("kind", ["moved", "bleed"])
def test_pictures_and_page_size_are_in_the_rendered_frame(pages: dict[str, Path], kind: str) -> None:
    with pdfplumber.open(pages["plain"]) as plain, pdfplumber.open(pages[kind]) as moved:
        seen = visible_page(moved.pages[0])
        assert isinstance(seen, VisiblePage)
        assert (seen.width, seen.height) == (WIDTH, HEIGHT)
        expected = plain.pages[0].images[0]
        got = seen.images[0]
        assert all(got[k] == pytest.approx(float(expected[k])) for k in ("x0", "top", "x1", "bottom"))


def test_a_crop_mark_in_the_bleed_is_not_on_the_page(pages: dict[str, Path]) -> None:
    with pdfplumber.open(pages["bleed"]) as pdf:
        raw = pdf.pages[0]
        assert len(raw.lines) + len(raw.curves) > len(VisiblePage(raw).lines) + len(VisiblePage(raw).curves)


def test_a_page_at_the_origin_is_read_unchanged(pages: dict[str, Path]) -> None:
    with pdfplumber.open(pages["plain"]) as pdf:
        assert visible_page(pdf.pages[0]) is pdf.pages[0]


@pytest.mark.parametrize("crop", [(0, 0, 0, 0), (2000, 2000, 2600, 2800)], ids=["empty", "outside the sheet"])
def test_a_cropbox_that_shows_nothing_reads_the_mediabox(pages: dict[str, Path], tmp_path: Path,
                                                         crop: tuple[int, int, int, int]) -> None:
    import pypdf
    from pypdf.generic import RectangleObject

    writer = pypdf.PdfWriter(clone_from=pages["plain"])
    writer.pages[0].cropbox = RectangleObject(crop)
    broken = tmp_path / "broken.pdf"
    writer.write(broken)
    assert _boxes(broken) == _boxes(pages["plain"])
