"""Branch labels on scanned pages read by the scan pipeline: a line broken for a branch word and going on
from another side of it (smog-41: "Signs of Hemodynamic Compromise" —— YES, then down to "Unstable ...")."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from dkg.parsing.assemble import assemble
from dkg.parsing.geometry import BBox
from dkg.parsing.models import PagePrimitives, Segment, Shape, Token
from dkg.parsing.scan.settings import DEFAULT_SETTINGS
from dkg.parsing.settings import SCANNED_SETTINGS
from dkg.parsing.textlayout import TextBlock
from tests.unit.ocr_primitives import add_box


def _broken_line_page() -> PagePrimitives:
    """A question box, a line from its right side stopping 4 pt short of the word YES, and a line leaving YES
    from below (4 pt under it), down into a box with an arrowhead at it: no arrowhead at the label itself."""
    prims = PagePrimitives(1, 400.0, 300.0, "ocr")

    box = partial(add_box, prims, char_width=7.0)

    box(40, 40, 160, 70, ["Signs", "of", "compromise"])
    box(200, 140, 340, 170, ["Unstable", "with", "block"])
    prims.tokens.append(Token("YES", BBox(256, 50, 280, 62), 10.0))
    prims.segments.append(Segment((160, 56), (252, 56)))  # from the box's right side to the label
    prims.segments.append(Segment((268, 66), (268, 139)))  # from under the label down to the box
    prims.arrowheads.append(Shape(((264, 133), (272, 133), (268, 140)), BBox(264, 133, 272, 140), True, False))
    return prims


def _pairs(prims: PagePrimitives, settings: object) -> set[tuple[str, str, str]]:
    from dkg.parsing.settings import AssemblySettings

    assert isinstance(settings, AssemblySettings)
    layout = assemble(prims, settings)

    def words(blocks: list[TextBlock]) -> str:
        return " ".join(line.plain for block in blocks for line in block.lines)

    text = [words([b.block]) if b.block else "" for b in layout.boxes]
    return {(text[s], text[t], words(c.labels.get(t, []))) for c in layout.connectors for s in c.sources
            for t in c.targets}


def test_a_line_broken_for_a_branch_word_is_one_labelled_edge_on_a_pipeline_page() -> None:
    assert _pairs(_broken_line_page(), DEFAULT_SETTINGS.pipeline_assembly) == {
        ("Signs of compromise", "Unstable with block", "YES")}


def test_the_rule_based_readers_settings_keep_needing_an_arrowhead_at_the_label() -> None:
    """Its broken strokes leave ends everywhere, so it keeps the older rule: no edge through the word."""
    assert ("Signs of compromise", "Unstable with block", "YES") not in _pairs(_broken_line_page(),
                                                                               SCANNED_SETTINGS)


def test_a_slanted_arrow_read_as_a_tall_word_does_not_join_the_labels_beside_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """smog-46 at 200 dpi: tesseract's sparse pass read the slanted arrow ``↘YES`` as one word ``Mies`` (conf 50,
    27 pt tall among 8 pt labels); its height joined the labels NO ... NO on either side into one row, one
    branch label "NO Mies NO" for two arrows, and its box hid the arrow from the connector step."""
    from dkg.parsing.scan import text as scan_text
    from dkg.parsing.scan.binarise import binarise
    from dkg.parsing.textlayout import build_lines
    from tests.unit.test_scan_pipeline import _word_table

    ppt = 300 / 72
    table = _word_table([  # left, top, width, height in pixels at 300 dpi (the smog-46 read, in points × ppt)
        ("NO", 96.0, 329, 1271, 54, 33, 1), ("Mies", 50.0, 654, 1200, 133, 112, 1),
        ("NO", 95.0, 1050, 1283, 54, 37, 1), ("Chest", 91.0, 600, 1000, 90, 33, 1),
        ("TACHYCARDIA", 93.0, 400, 200, 700, 90, 1),  # a title: tall, read clearly, kept
    ])
    table["block_num"] = list(range(1, 6))  # the sparse pass gives each its own block
    monkeypatch.setattr(scan_text, "_image_to_data", lambda *a, **k: table)
    page = binarise(np.full((3300, 2550), 250, np.uint8), 612.0, DEFAULT_SETTINGS)
    assert abs(page.ppt - ppt) < 1e-6
    tokens = scan_text.free_tokens(page, [], DEFAULT_SETTINGS)
    assert sorted(t.text for t in tokens if t.text.strip()) == ["Chest", "NO", "NO", "TACHYCARDIA"]
    rows = [line.plain for line in build_lines(tokens)]
    assert rows.count("NO") == 2
