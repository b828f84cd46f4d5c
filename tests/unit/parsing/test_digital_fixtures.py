"""The vector route on the committed fixture PDFs (made by tests/fixtures/pdfs/make_fixtures.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.parsing import parse_pdf
from dkg.parsing.evaluate import normalise, prf, read_edges

CASES = ["basic_rect_arrows", "shapes_diamond_rounded_banded", "dashed_block_merge", "footnotes_links"]


@pytest.mark.parametrize("name", CASES)
def test_fixture_edges_match_expected(fixtures: Path, name: str) -> None:
    result = parse_pdf(fixtures / f"{name}.pdf", ocr="never")
    pred = [e.model_dump() for e in result.edges]
    gold = read_edges(fixtures / f"{name}-edges.csv")
    assert prf(pred, gold)["f1"] == 1.0, pred
    got = {(normalise(e["head"]), normalise(e["tail"])): e["label"] for e in pred}
    for row in gold:
        assert got[(normalise(row["head"]), normalise(row["tail"]))] == row["label"]


def test_footnotes_expanded_and_originals_kept(fixtures: Path) -> None:
    result = parse_pdf(fixtures / "footnotes_links.pdf")
    page = result.pages[0]
    assert page.code == "FIX-4"
    assert page.footnotes["a"] == "Dasatinib or imatinib are options."
    tki = next(b for b in page.boxes if b.original.startswith("Clinical trial"))
    assert tki.original == "Clinical trial or TKI^a plus chemotherapy"
    assert tki.text == "Clinical trial or TKI (Dasatinib or imatinib are options.) plus chemotherapy"
    assert tki.markers == ["a"]


def test_link_box_resolves_to_target_entry_even_outside_page_range(fixtures: Path) -> None:
    result = parse_pdf(fixtures / "footnotes_links.pdf", pages="1")
    assert [p.number for p in result.pages] == [1]
    link = next(b for b in result.pages[0].boxes if b.link_code)
    assert link.link_code == "FIX-5" and link.link_page == 1
    last = result.edges[-1]
    assert last.tail == "Consolidation with high-dose methotrexate"
    assert last.tail_box_id == "p2-b1"
    assert result.pages[0].originals[-1][1] == "See Consolidation (FIX-5)"


def test_side_box_is_dropped_with_warning(fixtures: Path) -> None:
    page = parse_pdf(fixtures / "footnotes_links.pdf").pages[0]
    assert len(page.dropped_boxes) == 1
    assert any("side box" in i.message and "doses per local protocol" in i.message for i in page.issues)


def test_pages_without_arrows_or_flowchart_warn_with_empty_result(fixtures: Path) -> None:
    result = parse_pdf(fixtures / "no_arrows_no_flowchart.pdf")
    assert result.edges == []
    messages = [i.message for i in result.issues]
    assert any("no arrows" in m for m in messages)
    assert any("no flowchart" in m for m in messages)


def test_ocr_never_on_scanned_page_warns_instead_of_guessing(fixtures: Path) -> None:
    result = parse_pdf(fixtures / "basic_rect_arrows-scanned.pdf", ocr="never")
    assert result.edges == []
    assert any("no text layer" in i.message for i in result.issues)
