"""The real guideline pages: their gold is well formed and quotes the page, and their scans are deterministic."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import pdfplumber
import pytest

from dkg.corpus.real_scans import RealPage, RealScanSettings, real_pages, scan_page
from dkg.errors import CorpusError
from dkg.parsing import ParsedPage, parse_pdf
from dkg.parsing.evaluate import prf, read_edges
from dkg.parsing.geometry import BBox

ROOT = Path(__file__).resolve().parents[2] / "datasets" / "realpdfs"
GOLD = ROOT / "gold"
EDGE_COLUMNS = ["head", "tail", "label", "page", "head_box_id", "tail_box_id", "direction"]
ICON_GLYPHS = re.compile(r"[\ue000-\uf8ff\s]")
PAGES = real_pages(ROOT)
ANNOTATED = [p for p in PAGES if (GOLD / f"{p.page_id}-edges.csv").is_file()]


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _raster_regions(page: RealPage) -> list[tuple[float, ...]]:
    notes = GOLD / f"{page.page_id}-notes.csv"
    if not notes.is_file():
        return []
    return [tuple(float(n[k]) for k in ("x0", "top", "x1", "bottom"))
            for n in _rows(notes) if n["kind"] == "raster_figure"]


def test_split_holds_out_a_third_spread_over_documents() -> None:
    heldout = [p for p in PAGES if p.split == "heldout"]
    assert len(PAGES) == 9 and len(heldout) == 3
    assert len({p.pdf.name for p in heldout}) == 2
    assert all(p.pdf.is_file() for p in PAGES)
    assert {p.split for p in ANNOTATED} == {"dev", "heldout"}


@pytest.mark.parametrize("page", ANNOTATED, ids=[p.page_id for p in ANNOTATED])
def test_gold_edges_are_well_formed(page: RealPage) -> None:
    with (GOLD / f"{page.page_id}-edges.csv").open(newline="", encoding="utf-8") as handle:
        assert next(csv.reader(handle)) == EDGE_COLUMNS
    nodes = {n["id"]: n for n in _rows(GOLD / f"{page.page_id}-nodes.csv")}
    edges = read_edges(GOLD / f"{page.page_id}-edges.csv")
    assert edges, f"{page.page_id}: no gold edges"
    pairs = [(e["head_box_id"], e["tail_box_id"]) for e in edges]
    assert len(pairs) == len(set(pairs)), f"{page.page_id}: duplicate gold edge"
    for edge in edges:
        assert edge["page"] == page.page_id
        assert edge["head_box_id"] != edge["tail_box_id"]
        assert edge["head"] == nodes[edge["head_box_id"]]["text"]
        assert edge["tail"] == nodes[edge["tail_box_id"]]["text"]
        assert edge["label"] not in {n["text"] for n in nodes.values()}, "a branch label must not be a node"
    used = {i for pair in pairs for i in pair}
    assert used <= set(nodes)
    notes = " ".join(n["text"] for n in _rows(GOLD / f"{page.page_id}-notes.csv"))
    unexplained = [i for i in sorted(set(nodes) - used) if not re.search(rf"\b{i}\b", notes)]
    assert not unexplained, f"{page.page_id}: nodes on no edge and not explained in the page notes: {unexplained}"


@pytest.mark.parametrize("page", ANNOTATED, ids=[p.page_id for p in ANNOTATED])
def test_gold_box_texts_are_the_words_in_their_boxes(page: RealPage) -> None:
    """Each node's text uses exactly the characters printed inside its bbox (spacing and order may be fixed by
    hand; a dropped line-end hyphen is allowed); nodes inside a raster figure are typed from the picture."""
    rasters = _raster_regions(page)
    with pdfplumber.open(page.pdf) as pdf:
        pdf_page = pdf.pages[page.page - 1]
        for node in _rows(GOLD / f"{page.page_id}-nodes.csv"):
            bbox = tuple(float(node[k]) for k in ("x0", "top", "x1", "bottom"))
            assert node["text"].strip(), f"{page.page_id}/{node['id']}: empty text"
            inside_raster = any(r[0] <= bbox[0] and r[1] <= bbox[1] and bbox[2] <= r[2] and bbox[3] <= r[3]
                                for r in rasters)
            printed = ICON_GLYPHS.sub("", pdf_page.within_bbox(bbox).extract_text() or "")
            if inside_raster:
                assert printed == "", f"{page.page_id}/{node['id']}: text layer inside the raster figure"
                continue
            extra = Counter(printed) - Counter(ICON_GLYPHS.sub("", node["text"]))
            missing = Counter(ICON_GLYPHS.sub("", node["text"])) - Counter(printed)
            assert not missing, f"{page.page_id}/{node['id']}: gold has characters not in the box: {missing}"
            assert set(extra) <= {"-"}, f"{page.page_id}/{node['id']}: box characters left out: {extra}"


def test_scans_are_deterministic_image_only_pdfs() -> None:
    page = next(p for p in PAGES if p.page_id == "vap-10")
    first = scan_page(page, 150)
    assert first == scan_page(page, 150)
    assert first != scan_page(page, 200)
    path = ROOT.parent.parent / ".pytest-real-scan.pdf"
    try:
        path.write_bytes(first)
        with pdfplumber.open(path) as pdf:
            assert len(pdf.pages) == 1
            assert not pdf.pages[0].chars and len(pdf.pages[0].images) == 1
    finally:
        path.unlink(missing_ok=True)


def test_scan_settings_reject_unrealistic_resolutions() -> None:
    with pytest.raises(CorpusError, match="100–400 dpi"):
        RealScanSettings(dpis=(72,))


def test_split_file_rejects_an_unknown_split(tmp_path: Path) -> None:
    (tmp_path / "split.json").write_text(json.dumps({"pages": {"x-1": {"pdf": "x.pdf", "page": 1,
                                                                       "split": "train"}}}))
    with pytest.raises(CorpusError, match="use dev or heldout"):
        real_pages(tmp_path)


DEV = [p for p in ANNOTATED if p.split == "dev"]
# edge F1 each development page reached when the digital conventions were built (see docs/parser.md); a page
# falling below its floor is a regression. cbrn-12's second figure is a raster image read from pixels (0.923 at
# c4237ba; its floor leaves room for one more tesseract misread).
DEV_FLOORS = {"smog-41": 1.0, "smog-43": 1.0, "smog-46": 1.0, "smog-48": 0.95, "smog-50": 1.0, "cbrn-12": 0.88}


def _parsed(page: RealPage) -> ParsedPage:
    return parse_pdf(page.pdf, pages=str(page.page)).pages[0]


@pytest.mark.parametrize("page", DEV, ids=[p.page_id for p in DEV])
def test_digital_parse_of_development_pages_matches_their_gold(page: RealPage) -> None:
    parsed = _parsed(page)
    pred = [{"head": e.head, "tail": e.tail} for e in parsed.edges]
    scores = prf(pred, read_edges(GOLD / f"{page.page_id}-edges.csv"))
    assert scores["f1"] >= DEV_FLOORS[page.page_id], f"{page.page_id}: edge scores {scores}"


@pytest.mark.parametrize("page", DEV, ids=[p.page_id for p in DEV])
def test_side_boxes_of_development_pages_are_notes_not_nodes(page: RealPage) -> None:
    parsed = _parsed(page)
    on_edges = {i for e in parsed.edges for i in (e.head_box_id, e.tail_box_id)}
    for note in _rows(GOLD / f"{page.page_id}-notes.csv"):
        if note["kind"] != "side_box":
            continue
        area = BBox(*(float(note[k]) for k in ("x0", "top", "x1", "bottom"))).expand(6)
        inside = [b for b in parsed.boxes if area.contains(b.bbox)]
        assert not [b.id for b in inside if b.id in on_edges], f"{page.page_id}: side box {note['text'][:40]!r}"
        opening = re.findall(r"\w+", note["text"])[0].lower()
        kept = [n for n in parsed.notes if opening in " ".join(re.findall(r"\w+", n.text)).lower()]
        assert kept, f"{page.page_id}: side box {note['text'][:40]!r} is in no page note"


def test_raster_figure_of_a_development_page_is_read_from_pixels() -> None:
    page = next(p for p in DEV if p.page_id == "cbrn-12")
    parsed = _parsed(page)
    [region] = parsed.pixel_regions
    assert region.connectors >= 8 and len(region.box_ids) >= 15  # 9 and 20 at c4237ba
    assert region.bbox.top > 600  # Figure 6, below the vector Figure 5
    assert any("read from pixels" in issue.message for issue in parsed.issues)
