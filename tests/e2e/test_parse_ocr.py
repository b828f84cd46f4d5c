"""The raster route end to end with the real tesseract binary (no mocks)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dkg.parsing import parse_pdf
from dkg.parsing.evaluate import normalise, prf, read_edges
from dkg.parsing.models import Box, ParsedPage

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pdfs"
CORPUS = Path(__file__).resolve().parents[2] / "datasets" / "guidelines"

pytestmark = [
    pytest.mark.ocr,
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract not installed (apt-get install "
                                                                  "tesseract-ocr)"),
]


@pytest.mark.parametrize("name", ["basic_rect_arrows-scanned", "shapes_diamond_rounded_banded-scanned"])
def test_scanned_fixture_edges(name: str) -> None:
    result = parse_pdf(FIXTURES / f"{name}.pdf")
    assert {p.source for p in result.pages} == {"ocr"}
    pred = [e.model_dump() for e in result.edges]
    assert prf(pred, read_edges(FIXTURES / f"{name}-edges.csv"))["f1"] == 1.0


@pytest.mark.slow
def test_scanned_footnotes_and_link_resolution() -> None:
    result = parse_pdf(FIXTURES / "footnotes_links-scanned.pdf")
    page = result.pages[0]
    assert page.footnotes.get("a") == "Dasatinib or imatinib are options."
    tails = {normalise(e.tail) for e in result.edges}
    assert "consolidation with high-dose methotrexate" in tails
    assert "clinical trial or tki (dasatinib or imatinib are options.) plus chemotherapy" in tails


def test_ocr_always_on_a_digital_pdf_uses_the_raster_route() -> None:
    result = parse_pdf(FIXTURES / "basic_rect_arrows.pdf", ocr="always")
    assert result.pages[0].source == "ocr"
    assert prf([e.model_dump() for e in result.edges],
               read_edges(FIXTURES / "basic_rect_arrows-edges.csv"))["f1"] == 1.0


@pytest.mark.slow
def test_corpus_scanned_page_when_rendered() -> None:
    pdf = CORPUS / "kidney" / "pdf" / "kidney-1.2026-scanned.pdf"
    gold = CORPUS / "kidney" / "gold" / "kidney-1.2026-edges.csv"
    if not pdf.is_file() or not gold.is_file():
        pytest.skip("corpus not rendered (dkg corpus render)")
    result = parse_pdf(pdf, pages="1")
    code = result.pages[0].code
    gold_rows = [g for g in read_edges(gold) if g["page"] == code]
    assert code is not None and gold_rows
    scores = prf([e.model_dump() for e in result.edges], gold_rows, fuzzy=True)
    assert scores["recall"] >= 0.5, scores


def _kidney_scanned_page(number: int) -> ParsedPage:
    pdf = CORPUS / "kidney" / "pdf" / "kidney-1.2026-scanned.pdf"
    if not pdf.is_file():
        pytest.skip("corpus not rendered (dkg corpus render)")
    return parse_pdf(pdf, pages=str(number)).pages[0]


@pytest.mark.slow
def test_connectors_running_around_whole_boxes_close_in_no_box() -> None:
    # KID-3: the connector from "Pathology review" runs up to one box, along two boxes and back below a third,
    # closing a rectangle around "Completion nephrectomy" and the "Positive margins" label
    page = _kidney_scanned_page(3)
    assert not [b.original for b in page.boxes if "Positive" in b.original]
    pairs = [(normalise(e.head), normalise(e.tail)) for e in page.edges]
    for head, tail in [("pathology review", "completion nephrectomy"), ("pathology review", "clear-cell rcc"),
                       ("pathology review", "surveillance:"), ("adjuvant pembrolizumab", "surveillance:")]:
        assert any(h.startswith(head) and t.startswith(tail) for h, t in pairs), (head, tail, pairs)


@pytest.mark.slow
def test_a_bold_connector_with_its_labels_is_no_box() -> None:
    # KID-5: the split under "Review sites of disease" is drawn bold; it survived the arrowhead opening
    # together with the "Bone metastases" label and was taken for a box holding that label
    page = _kidney_scanned_page(5)
    assert len(page.boxes) == 9
    assert not [b.original for b in page.boxes if "metastas" in b.original]
    # and the bold split's own arrowheads (told from its corners) still lead into both boxes
    tails = {normalise(e.tail)[:20] for e in page.edges if normalise(e.head).startswith("review sites")}
    assert tails == {"stereotactic radiosu", "palliative radiother"}


def test_a_tesseract_failure_is_reported_as_such_not_as_a_timeout() -> None:
    import numpy as np

    from dkg.errors import ServiceError
    from dkg.services.tesseract import ocr_hocr

    too_tall = np.full((33000, 8), 255, dtype=np.uint8)  # past tesseract's 32767-pixel limit
    with pytest.raises(ServiceError, match="tesseract failed") as caught:
        ocr_hocr(too_tall, psm=6)
    assert "did not finish" not in str(caught.value)


def _corpus_page(pdf_name: str, number: int) -> tuple[ParsedPage, ParsedPage]:
    """The scanned page and its born-digital twin (whose markers the digital route reads exactly)."""
    folder = CORPUS / pdf_name.split("-")[0] / "pdf"
    scanned, digital = folder / f"{pdf_name}-scanned.pdf", folder / f"{pdf_name}.pdf"
    if not scanned.is_file() or not digital.is_file():
        pytest.skip("corpus not rendered (dkg corpus render)")
    return parse_pdf(scanned, pages=str(number)).pages[0], parse_pdf(digital, pages=str(number)).pages[0]


@pytest.mark.slow
def test_box_markers_are_read_by_the_page_letters_they_look_like() -> None:
    # ALL-7: tesseract read these clear raised letters as s, y, s or nothing; the page's own body letters
    # (g, d, m, h) and the stems of the thin i tell them
    scanned, digital = _corpus_page("ALL-1.2026", 7)
    assert [b.markers for b in scanned.boxes] == [b.markers for b in digital.boxes]
    assert set(scanned.footnotes) >= {"a", "d", "g", "h", "i", "m", "n"}
    # tesseract reads the bare bar closing "T315I" as a 1; the flag of a real 1 tells them apart
    assert "T315I." in scanned.footnotes["m"] and "ABL1 " in scanned.footnotes["m"]


@pytest.mark.slow
@pytest.mark.parametrize(("pdf_name", "number", "text"), [
    ("ALL-1.2026", 5, "regimen^e: interim"),  # the colon boxed over the marker
    ("bone-1.2026", 16, "therapy^y; late"),  # the marker boxed as the semicolon
    ("bone-1.2026", 14, "primary tumor^e"),  # the raised e joined to the arm of the r
    ("bone-1.2026", 8, "Postoperative radiotherapy^"),  # the re-read of the word kept the marker's edge as '
    ("bone-2.2026", 6, "adjustment and dexrazoxane^"),  # the raised j's dot is no "." of its own
    ("bone-2.2026", 8, "imaging: chest CT"),  # sloped connectors had tilted the deskewed page by 2 degrees
])
def test_scanned_box_text_keeps_its_words_punctuation_and_markers(pdf_name: str, number: int, text: str) -> None:
    scanned, _ = _corpus_page(pdf_name, number)
    assert any(text in b.original for b in scanned.boxes), [b.original for b in scanned.boxes]


def _same_page_edges(scanned: ParsedPage, digital: ParsedPage) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """Both pages' edges between boxes of the page, the scanned boxes named by the digital box they overlap."""
    def overlap(a: Box, b: Box) -> float:
        x0, y0 = max(a.bbox.x0, b.bbox.x0), max(a.bbox.top, b.bbox.top)
        x1, y1 = min(a.bbox.x1, b.bbox.x1), min(a.bbox.bottom, b.bbox.bottom)
        return max(0.0, x1 - x0) * max(0.0, y1 - y0)

    named = {box.id: max(digital.boxes, key=lambda d: overlap(box, d)).id for box in scanned.boxes}
    ids = {box.id for box in digital.boxes}
    return ({(named[e.head_box_id], named[e.tail_box_id]) for e in scanned.edges
             if e.head_box_id in named and e.tail_box_id in named},
            {(e.head_box_id, e.tail_box_id) for e in digital.edges if e.head_box_id in ids and e.tail_box_id in ids})


@pytest.mark.slow
@pytest.mark.parametrize(("pdf_name", "number"), [
    ("bone-1.2026", 17),  # four decisions' lines merge into one drop and cross each other's stems; an
    # arrow-shaped white area between two diamonds and the bus is no block arrow swallowing their arrowheads
    ("bone-1.2026", 3),  # lines cross another source's bus and drop onto an arrow line beyond it
    ("ALL-1.2026", 3),  # a line joins another source's drop just below its bus
])
def test_scanned_merging_and_crossing_lines_lead_each_source_to_its_own_targets(pdf_name: str, number: int) -> None:
    scanned, digital = _corpus_page(pdf_name, number)
    found, gold = _same_page_edges(scanned, digital)
    assert found == gold


@pytest.mark.slow
def test_a_faint_marker_after_a_term_cites_the_term_s_footnote_as_on_the_other_pages() -> None:
    # ALL-6's two "MRD^d" markers are read "a" and nothing; ALL-4 and ALL-5 read "MRD^d", and footnote d
    # ("MRD is measured by ...") is printed on ALL-6 too
    folder = CORPUS / "ALL" / "pdf"
    if not (folder / "ALL-1.2026-scanned.pdf").is_file():
        pytest.skip("corpus not rendered (dkg corpus render)")
    scanned = parse_pdf(folder / "ALL-1.2026-scanned.pdf", pages="4-6")
    digital = parse_pdf(folder / "ALL-1.2026.pdf", pages="4-6")
    page, twin = scanned.pages[-1], digital.pages[-1]
    assert page.code == "ALL-6"
    mrd = [b.markers for b in page.boxes if "MRD" in b.original and "monitoring" not in b.original]
    assert mrd == [b.markers for b in twin.boxes if "MRD" in b.original and "monitoring" not in b.original]
    assert mrd and all(markers == ["d"] for markers in mrd), mrd
