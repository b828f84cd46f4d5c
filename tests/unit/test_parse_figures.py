"""Flowcharts pasted as images into born-digital pages (``dkg.parsing.figures``): found, read from pixels by the
scan route, merged with the page's vector boxes, and reported in the sidecar."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest

from dkg.parsing import parse_pdf
from dkg.parsing.assemble import PageLayout, RawBox, RawConnector
from dkg.parsing.figures import FigureRegion, merge_figure
from dkg.parsing.geometry import BBox
from dkg.parsing.models import Segment
from dkg.parsing.output import sidecar
from dkg.parsing.settings import FigureSettings
from tests.unit.reportlab_sheet import Sheet

DPI = 200
# where the picture stands on the page, in points (origin top-left)
FIGURE = BBox(100.0, 400.0, 400.0, 640.0)


def _figure_png() -> bytes:
    """A 300 × 240 pt picture at 200 dpi: two outlined boxes joined by an arrow, drawn in pixels."""
    ppt = DPI / 72

    def px(points: float) -> int:
        return int(round(points * ppt))

    img = np.full((px(FIGURE.height), px(FIGURE.width)), 255, np.uint8)
    for top, word in ((30, "Assess rhythm"), (150, "Treat cause")):
        cv2.rectangle(img, (px(60), px(top)), (px(240), px(top + 50)), 0, 3)
        cv2.putText(img, word, (px(72), px(top + 32)), cv2.FONT_HERSHEY_SIMPLEX, 1.5, 0, 3)
    cv2.line(img, (px(150), px(80)), (px(150), px(142)), 0, 3)
    head = np.array([[px(144), px(141)], [px(156), px(141)], [px(150), px(150)]], np.int32)
    cv2.fillPoly(img, [head], 0)
    ok, data = cv2.imencode(".png", img)
    assert ok
    return data.tobytes()


def _page_with_figure(path: Path) -> Path:
    """A born-digital page: a vector flowchart (two boxes, one arrow) above a flowchart drawn as an image."""
    from reportlab.lib.utils import ImageReader

    s = Sheet(path, font="Helvetica", size=11)
    s.text(72, 49, "Figure: mitigation steps drawn as a picture")
    for top, word in ((100, "Recognise the event"), (200, "Report it")):
        s.box(200, top, 200, 40)
        s.text(215, top + 14, word)
    s.line((300, 140), (300, 193))
    s.polygon((296, 192), (304, 192), (300, 200))
    s.image(ImageReader(io.BytesIO(_figure_png())), FIGURE.x0, FIGURE.top, FIGURE.width, FIGURE.height)
    s.save()
    return path


@pytest.fixture(scope="module")
def figure_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _page_with_figure(tmp_path_factory.mktemp("figure") / "figure.pdf")


def test_flowchart_drawn_as_an_image_is_read_from_pixels_and_merged(figure_pdf: Path) -> None:
    page = parse_pdf(figure_pdf).pages[0]
    assert page.source == "digital"
    pairs = {(e.head, e.tail) for e in page.edges}
    assert ("Recognise the event", "Report it") in pairs  # the vector chart, as before
    assert ("Assess rhythm", "Treat cause") in pairs  # the chart drawn in pixels
    [region] = page.pixel_regions
    assert region.dpi == pytest.approx(DPI, abs=1)
    assert region.bbox.x0 == pytest.approx(FIGURE.x0, abs=0.5) and region.bbox.top == pytest.approx(FIGURE.top,
                                                                                                      abs=0.5)
    pixel_boxes = [page.box(box_id) for box_id in region.box_ids]
    assert {b.text for b in pixel_boxes} == {"Assess rhythm", "Treat cause"}
    for box in pixel_boxes:  # in page coordinates, inside the picture
        assert FIGURE.contains(box.bbox, 1.0)
    assert len({b.id for b in page.boxes}) == len(page.boxes)
    record = sidecar(parse_pdf(figure_pdf))["pages"][0]["pixel_regions"]
    assert record == [{"bbox": region.bbox.as_list(), "dpi": region.dpi, "boxes": list(region.box_ids),
                       "connectors": 1}]
    assert any("read from pixels" in issue.message for issue in page.issues)


def test_ocr_never_reports_the_picture_without_reading_it(figure_pdf: Path) -> None:
    page = parse_pdf(figure_pdf, ocr="never").pages[0]
    assert {(e.head, e.tail) for e in page.edges} == {("Recognise the event", "Report it")}
    assert page.pixel_regions == []
    assert any("--ocr never" in issue.message for issue in page.issues)


def _box(x0: float, top: float, x1: float, bottom: float, box_id: str) -> RawBox:
    return RawBox(BBox(x0, top, x1, bottom), "rect", id=box_id)


def test_a_box_both_routes_see_is_kept_once_and_its_arrow_not_doubled() -> None:
    vector = PageLayout([_box(0, 0, 100, 40, "p1-b1"), _box(0, 100, 100, 140, "p1-b2")],
                        [RawConnector([0], [1], [Segment((50, 40), (50, 100))], "line")], [], [], [], None, [])
    # the picture holds the second vector box again (drawn over it) and a third box it leads to
    figure = PageLayout([_box(1, 101, 99, 139, "p1-b1"), _box(0, 200, 100, 240, "p1-b2")],
                        [RawConnector([0], [1], [Segment((50, 140), (50, 200))], "line"),
                         RawConnector([0], [0], [], "line")],
                        [], [], [], None, ["boxes p1-b1 and p1-b2 are stacked"])
    merged, record = merge_figure(vector, figure, FigureRegion(BBox(0, 90, 100, 250), 200.0), 200.0, 1)
    assert [b.id for b in merged.boxes] == ["p1-b1", "p1-b2", "p1-b3"]
    assert [(c.sources, c.targets) for c in merged.connectors] == [([0], [1]), ([1], [2])]
    assert record.box_ids == ("p1-b2", "p1-b3") and record.connectors == 1
    assert merged.warnings[-1].endswith("boxes p1-b2 and p1-b3 are stacked")


def test_figure_settings_validate_themselves() -> None:
    with pytest.raises(ValueError, match="min_dpi"):
        FigureSettings(min_dpi=500)
    with pytest.raises(ValueError, match="min_width"):
        FigureSettings(min_width=-1)


def test_scan_with_a_text_layer_laid_over_it_is_read_by_ocr(tmp_path: Path) -> None:
    # a "searchable" scan: the page is one picture of the chart, with invisible OCR text over it and no vector
    # drawing; the vector route would find the text but no box
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    path = tmp_path / "searchable.pdf"
    pdf = canvas.Canvas(str(path), pagesize=(FIGURE.width, FIGURE.height))
    pdf.drawImage(ImageReader(io.BytesIO(_figure_png())), 0, 0, FIGURE.width, FIGURE.height)
    text = pdf.beginText(72, FIGURE.height - 50)
    text.setTextRenderMode(3)  # invisible, as OCR tools write it
    text.textLine("Assess rhythm")
    text.setTextOrigin(72, FIGURE.height - 170)
    text.textLine("Treat cause")
    pdf.drawText(text)
    pdf.save()
    page = parse_pdf(path).pages[0]
    assert page.source == "ocr"
    assert {(e.head, e.tail) for e in page.edges} == {("Assess rhythm", "Treat cause")}
    assert any("scan with a text layer" in issue.message for issue in page.issues)
    assert parse_pdf(path, ocr="never").pages[0].source == "digital"  # never: the text layer only, as before
