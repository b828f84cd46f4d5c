"""A raster figure inside a born-digital page read by the scan pipeline (``region_primitives``): its primitives
come back in page points, where the figure is placed on the page."""

from __future__ import annotations

import pytest

from dkg.parsing.assemble import assemble
from dkg.parsing.geometry import BBox
from dkg.parsing.scan.pipeline import pipeline_primitives, region_primitives
from dkg.parsing.scan.settings import DEFAULT_SETTINGS
from tests.unit.test_scan_pipeline import HEIGHT_PT, WIDTH_PT, _page


def test_a_figure_placed_on_a_page_is_read_in_page_points() -> None:
    image = _page()
    # the figure's 300 x 300 pt drawing placed at half size, 100 pt in and 200 pt down a letter page
    region = BBox(100.0, 200.0, 100.0 + WIDTH_PT / 2, 200.0 + HEIGHT_PT / 2)
    local = pipeline_primitives(image, 4, WIDTH_PT / 2, HEIGHT_PT / 2, DEFAULT_SETTINGS)
    placed = region_primitives(image, 4, region, 612.0, 792.0, DEFAULT_SETTINGS)
    assert (placed.page_number, placed.width, placed.height, placed.source) == (4, 612.0, 792.0, "ocr")
    assert len(placed.shapes) == len(local.shapes) == 2
    for here, there in zip(local.shapes, placed.shapes, strict=True):
        assert there.bbox == BBox(here.bbox.x0 + 100, here.bbox.top + 200, here.bbox.x1 + 100,
                                  here.bbox.bottom + 200)
        assert all(region.contains_point(p, tol=1.0) for p in there.points)
    assert [t.text for t in placed.tokens] == [t.text for t in local.tokens]
    assert all(region.contains(t.bbox, tol=1.0) for t in placed.tokens if t.text.strip())
    assert all(region.contains_point(s.a, 1.0) and region.contains_point(s.b, 1.0) for s in placed.segments)
    layout = assemble(placed, DEFAULT_SETTINGS.pipeline_assembly)
    edges = [(c.sources, c.targets) for c in layout.connectors]
    assert len(edges) == 1  # the figure's one arrow, between its two boxes, found in page coordinates


def test_an_empty_region_is_refused_with_its_size() -> None:
    with pytest.raises(ValueError, match="positive size"):
        region_primitives(_page(), 1, BBox(10.0, 10.0, 10.0, 50.0), 612.0, 792.0)
