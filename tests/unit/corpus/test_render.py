"""Rendered PDFs: deterministic bytes, text inside its box, no overlaps, labels beside connectors, links."""

from __future__ import annotations

import io
import re
from typing import Any

import pdfplumber
import pytest

from dkg.corpus.layout import Rect, page_words
from dkg.corpus.model import Shape, discover, load_guideline
from dkg.corpus.render import render_pdf
from dkg.corpus.scan import scan_pdf

from .conftest import Rendered

TOL = 0.6


_CACHE: dict[str, Rendered] = {}


def _shipped(name: str) -> Rendered:
    if name not in _CACHE:
        path = next((p for g, v, p in discover() if g == name and v == "1.2026"), None)
        if path is None:
            pytest.fail(f"datasets/guidelines/{name}/1.2026.yaml is missing")
        _CACHE[name] = Rendered(load_guideline(path))
    return _CACHE[name]


@pytest.fixture(scope="session")
def rendered_all() -> Rendered:
    return _shipped("ALL")


@pytest.fixture(params=["fixture", "ALL", "bone", "kidney"])
def rendered(request: pytest.FixtureRequest) -> Rendered:
    return request.getfixturevalue("rendered_fixture") if request.param == "fixture" else _shipped(request.param)


def _char_rect(char: dict[str, Any]) -> Rect:
    return Rect(float(char["x0"]), float(char["top"]), float(char["x1"]), float(char["bottom"]))


def test_rendering_is_deterministic(fixture_guideline: Any, rendered_fixture: Rendered) -> None:
    again, _ = render_pdf(fixture_guideline)
    assert again == rendered_fixture.pdf


def test_page_sizes_match_layouts(rendered: Rendered) -> None:
    assert rendered.sizes == [(round(lay.width, 2), round(lay.height, 2)) for lay in rendered.layouts] or all(
        abs(w - lay.width) < 0.01 and abs(h - lay.height) < 0.01
        for (w, h), lay in zip(rendered.sizes, rendered.layouts, strict=True))


def test_every_character_lies_inside_exactly_one_text_region(rendered: Rendered) -> None:
    for chars, layout in zip(rendered.chars, rendered.layouts, strict=True):
        regions = layout.regions()
        for char in chars:
            if not char["text"].strip():
                continue
            rect = _char_rect(char)
            cx, cy = (rect.x0 + rect.x1) / 2, (rect.top + rect.bottom) / 2
            owners = [r for r in regions if r.rect.x0 <= cx <= r.rect.x1 and r.rect.top <= cy <= r.rect.bottom]
            assert len(owners) == 1, f"{layout.page.code}: {char['text']!r} at {rect} in {len(owners)} regions"
            assert owners[0].rect.contains(rect, TOL), (
                f"{layout.page.code}: {char['text']!r} at {rect} overflows {owners[0].key} {owners[0].rect}")


def test_box_text_stays_inside_the_box_outline(rendered: Rendered) -> None:
    for layout in rendered.layouts:
        for placed in [*layout.boxes.values(), *layout.notes]:
            outer, inner = placed.rect, placed.text_rect
            assert outer.contains(inner), f"{placed.box.id}: text {inner} outside box {outer}"
            if placed.shape is Shape.DIAMOND:
                cx, cy = (outer.x0 + outer.x1) / 2, (outer.top + outer.bottom) / 2
                a, b = outer.width / 2, outer.height / 2
                for x in (inner.x0, inner.x1):
                    for y in (inner.top, inner.bottom):
                        assert abs(x - cx) / a + abs(y - cy) / b <= 1.0 + 1e-6, f"{placed.box.id} corner"


def test_boxes_labels_and_frame_never_overlap(rendered: Rendered) -> None:
    for layout in rendered.layouts:
        shapes = [(p.box.id, p.rect) for p in [*layout.boxes.values(), *layout.notes]]
        shapes += [(f"label {lab.text}", lab.rect) for lab in layout.labels]
        shapes += [(r.key, r.rect) for r in layout.regions() if r.key in ("header", "footer", "footnotes")]
        for i, (name_a, a) in enumerate(shapes):
            assert 0 <= a.x0 and a.x1 <= layout.width and 0 <= a.top and a.bottom <= layout.height, name_a
            for name_b, b in shapes[i + 1:]:
                assert not a.overlaps(b), f"{layout.page.code}: {name_a} {a} overlaps {name_b} {b}"


def test_every_box_shows_its_words_in_the_text_layer(rendered: Rendered) -> None:
    for chars, layout in zip(rendered.chars, rendered.layouts, strict=True):
        for placed in [*layout.boxes.values(), *layout.notes]:
            r = placed.text_rect
            inside = [c for c in chars if r.contains(_char_rect(c), TOL)]
            shown = re.sub(r"\s+", "", "".join(c["text"] for c in inside))
            expected = "".join(page_words(placed.box.text)).replace(",", "")
            assert shown.replace(",", "") == expected, f"{layout.page.code} {placed.box.id}: {shown!r}"


def test_superscripts_are_smaller_and_raised(rendered_fixture: Rendered) -> None:
    layout = rendered_fixture.layouts[0]
    box = layout.boxes["fix1_tki_steroid"]  # "TKI^a + corticosteroids"
    chars = [c for c in rendered_fixture.chars[0] if box.text_rect.contains(_char_rect(c), TOL)]
    i_char, a_char = chars[2], chars[3]
    assert (i_char["text"], a_char["text"]) == ("I", "a")
    assert a_char["size"] < 0.8 * i_char["size"]
    assert a_char["top"] < i_char["top"] - 0.5 or a_char["bottom"] < i_char["bottom"] - 1.0


def test_every_label_sits_beside_its_connector(rendered: Rendered) -> None:
    for layout in rendered.layouts:
        labelled = [c for c in layout.connectors if c.arrow.label]
        assert {id(c.label) for c in labelled} == {id(lab) for lab in layout.labels}
        for conn in labelled:
            label = conn.label
            assert label is not None and label.text == conn.arrow.label
            (x0, y0), (x1, y1) = conn.polylines[0][-2], conn.polylines[0][-1]
            r = label.rect
            dx = max(r.x0 - max(x0, x1), min(x0, x1) - r.x1, 0.0)
            dy = max(r.top - max(y0, y1), min(y0, y1) - r.bottom, 0.0)
            assert (dx * dx + dy * dy) ** 0.5 <= 4.0, f"{layout.page.code}: label {label.text!r} far from line"


def test_connectors_end_on_their_target_box(rendered: Rendered) -> None:
    for layout in rendered.layouts:
        for conn in layout.connectors:
            tip = conn.polylines[0][-1]
            target = layout.boxes[conn.arrow.to].rect
            assert target.contains(Rect(tip[0], tip[1], tip[0], tip[1]), 0.01), (layout.page.code, conn.arrow)


def test_layout_is_computed_and_differs_between_pages(rendered_all: Rendered) -> None:
    signatures = {tuple(sorted((round(p.rect.x0), round(p.rect.top)) for p in lay.boxes.values()))
                  for lay in rendered_all.layouts}
    assert len(signatures) == len(rendered_all.layouts)


def test_page_header_footer_and_footnotes(rendered_fixture: Rendered) -> None:
    text = rendered_fixture.text[0]
    assert "Fixture Leukemia (illustrative) — Version 1.2026" in text
    assert "Illustrative content for software testing — not clinical advice" in text
    assert text.rstrip().endswith("FIX-1")
    assert "a TKI options include dasatinib, imatinib or ponatinib." in text


def test_link_boxes_are_internal_hyperlinks(rendered_fixture: Rendered) -> None:
    with pdfplumber.open(io.BytesIO(rendered_fixture.pdf)) as pdf:
        link = pdf.pages[0].hyperlinks or pdf.pages[0].annots
        assert len(link) == 1
        dest = link[0]["data"].get("Dest")
        assert dest is not None, link[0]["data"]
        crop = pdf.pages[0].crop((link[0]["x0"], link[0]["top"], link[0]["x1"], link[0]["bottom"]))
        assert "FIX-2" in (crop.extract_text() or "")


def test_scanned_variant_has_no_text_layer_and_is_deterministic(rendered_fixture: Rendered) -> None:
    first = scan_pdf(rendered_fixture.pdf, "FIX-1.2026", dpi=200)
    assert scan_pdf(rendered_fixture.pdf, "FIX-1.2026", dpi=200) == first
    with pdfplumber.open(io.BytesIO(first)) as pdf:
        assert len(pdf.pages) == len(rendered_fixture.layouts)
        assert all(not page.chars for page in pdf.pages)
        image = pdf.pages[0].images[0]
        assert abs(image["srcsize"][0] - rendered_fixture.layouts[0].width * 200 / 72) < 3
