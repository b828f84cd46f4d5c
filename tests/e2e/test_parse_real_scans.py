"""Scans of real guideline pages parsed end to end (real tesseract, no mocks) against their gold edges.

Only development pages of ``datasets/realpdfs/split.json`` are used here; held-out pages are scored by
``bench/parser_bench.py --real`` only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dkg.corpus.real_scans import real_pages, scan_page
from dkg.parsing import parse_pdf
from dkg.parsing.evaluate import prf, read_edges

ROOT = Path(__file__).resolve().parents[2] / "datasets" / "realpdfs"
PAGES = {p.page_id: p for p in real_pages(ROOT)}

pytestmark = pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract is not installed")


def _scan(tmp_path: Path, page_id: str, dpi: int) -> Path:
    page = PAGES[page_id]
    assert page.split == "dev"
    out = tmp_path / f"{page_id}-scan{dpi}.pdf"
    out.write_bytes(scan_page(page, dpi))
    return out


def test_a_200_dpi_scan_of_a_shaded_box_page_gives_its_edges(tmp_path: Path) -> None:
    # grey graded boxes with drop shadows, thin connectors and small heads: the rule-based reader found no
    # edge here; the scan pipeline finds most of the drawn structure
    result = parse_pdf(_scan(tmp_path, "smog-43", 200))
    page = result.pages[0]
    assert page.source == "ocr"
    gold = read_edges(ROOT / "gold" / "smog-43-edges.csv")
    pred = [e.model_dump() for e in result.edges]
    assert len(pred) >= 8
    fuzzy = prf(pred, gold, fuzzy=True)
    assert fuzzy["matched"] >= 6, fuzzy  # head and tail read to within a letter or two
    assert prf(pred, gold)["matched"] >= 2  # and some read exactly


def test_the_150_dpi_scan_that_crashed_the_reader_is_read(tmp_path: Path) -> None:
    # the rule-based reader raised IndexError on this page (issue #16); the page must give edges and no
    # "could not be read" warning
    result = parse_pdf(_scan(tmp_path, "smog-41", 150))
    messages = [i.message for i in result.issues]
    assert not any("could not be read" in m for m in messages), messages
    assert len(result.edges) >= 3


def test_a_branch_label_read_glued_to_its_arrow_labels_that_arrow(tmp_path: Path) -> None:
    # "Chest Pain / SOB / Dizziness? <- YES <- "Sinus Tach"": tesseract reads the left arrow and the label as one
    # low-confidence word ('<—yYES'); cut down to YES, it is the label of the line broken for it
    result = parse_pdf(_scan(tmp_path, "smog-46", 200))
    edges = {(e.head, e.tail): e.label for e in result.edges}
    assert edges.get(("\u201cSinus Tach\u201d", "Chest Pain / SOB / Dizziness?")) == "YES", sorted(edges)


def test_bands_joined_by_chevrons_are_a_chain_and_the_last_enters_every_titled_column(tmp_path: Path) -> None:
    # cbrn-12 Figure 5: four bands outlined in thick grey, each running on into a chevron over the next, the last
    # over a table of four criteria columns. The adaptive threshold read each outline as two thin lines, traced as
    # one headless network from the top band to the three below (6 gold edges missed, 4 stray ones)
    result = parse_pdf(_scan(tmp_path, "cbrn-12", 200), pages="1")
    gold = read_edges(ROOT / "gold" / "cbrn-12-edges.csv")
    band_gold = [g for g in gold if g["head"].startswith(("Obtain", "Conduct", "Maintain"))]
    assert len(band_gold) == 7  # three band-to-band edges and the last band into four columns
    pred = [e.model_dump() for e in result.edges]
    assert prf(pred, band_gold[:3])["matched"] == 3  # the chain, read exactly
    fuzzy = prf(pred, band_gold, fuzzy=True)
    assert fuzzy["matched"] == 7, fuzzy
    assert not any(e.head.startswith("Obtain") and e.tail.startswith("Maintain") for e in result.edges)
    # each column opens with its dark title bar (white on grey, a box of its own in the scan) and its flag
    # bullets, which tesseract reads "P", are dropped; the chevron above the middle bar no longer erases its words
    columns = sorted(e.tail for e in result.edges if e.head.startswith("Maintain a healthy"))
    assert [c.split(" Criteria ")[0] for c in columns] == ["Agent", "Disease", "Miscellaneous", "Population"], columns
    assert not any(" P " in f" {c} " for c in columns), columns
    # the biohazard sign after the box's words, twice their height, was read as a letter "A"
    assert ("Criteria Met for Potential Bioincident", "Initial Mitigation Steps") in {(e.head, e.tail)
                                                                                      for e in result.edges}
