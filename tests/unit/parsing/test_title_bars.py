"""A dark title bar on a box (cbrn-12's criteria table: ``Agent Criteria`` in white on dark grey over its list),
and list markers drawn as pictograms that tesseract reads as a letter, on pages read by the scan pipeline."""

from __future__ import annotations

import cv2
import numpy as np

from dkg.parsing.assemble import assemble
from dkg.parsing.geometry import BBox
from dkg.parsing.models import PagePrimitives, Shape, Token
from dkg.parsing.scan.pipeline import pipeline_primitives
from dkg.parsing.scan.settings import DEFAULT_SETTINGS
from dkg.parsing.scan.text import words_to_tokens
from tests.unit.scan_images import DrawingScale

SCALE = DrawingScale(200)
_px = SCALE.px
WIDTH_PT, HEIGHT_PT = 300.0, 260.0


def _table_page() -> np.ndarray:
    """A box whose outline runs into a wide, shallow chevron, its tip reaching into a dark title bar between the
    bar's two white words (their tops above the tip's reach), the bar edge to edge on an outlined white box with
    one line of words."""
    img = np.full((_px(HEIGHT_PT), _px(WIDTH_PT)), 250, np.uint8)
    x0, x1 = _px(40), _px(260)
    cx, body_bottom, tip = _px(150), _px(80), _px(100)
    outline = np.array([[x0, _px(40)], [x1, _px(40)], [x1, body_bottom], [cx + _px(30), body_bottom], [cx, tip],
                        [cx - _px(30), body_bottom], [x0, body_bottom]], np.int32)
    cv2.polylines(img, [outline], True, 60, 5)
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.putText(img, "Recognize criteria", (x0 + _px(12), _px(68)), font, 1.1, 0, 3)
    bar_top, bar_bottom = _px(92), _px(122)
    cv2.rectangle(img, (x0, bar_top), (x1, bar_bottom), 95, -1)
    (left_width, _), _ = cv2.getTextSize("Agent", font, 1.1, 3)
    cv2.putText(img, "Agent", (cx - _px(12) - left_width, _px(105)), font, 1.1, 255, 3)
    cv2.putText(img, "Criteria", (cx + _px(12), _px(105)), font, 1.1, 255, 3)
    cv2.rectangle(img, (x0, bar_bottom), (x1, _px(200)), 60, 4)
    cv2.putText(img, "Unusual strains", (x0 + _px(12), _px(150)), font, 1.1, 0, 3)
    rng = np.random.default_rng(3)
    return np.clip(img.astype(np.int16) + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)


def _box_texts(prims: PagePrimitives) -> list[str]:
    layout = assemble(prims, DEFAULT_SETTINGS.pipeline_assembly)
    return [" ".join(line.plain for line in b.block.lines) if b.block else "" for b in layout.boxes]


def test_a_dark_title_bar_under_a_chevron_is_read_and_is_the_title_of_the_box_it_sits_on() -> None:
    prims = pipeline_primitives(_table_page(), 1, WIDTH_PT, HEIGHT_PT, DEFAULT_SETTINGS)
    assert [s.dark for s in sorted(prims.shapes, key=lambda s: s.bbox.top)] == [False, True, False]
    # the chevron is blanked from the bar's reading as a triangle: the words beside its tip are kept
    texts = _box_texts(prims)
    assert len(texts) == 2
    assert "Recognize criteria" in texts[0]
    assert "Agent Criteria" in texts[1] and "Unusual strains" in texts[1]


def _stacked(dark: bool) -> PagePrimitives:
    prims = PagePrimitives(1, 300.0, 300.0, "ocr")
    for top, bottom, words, is_dark in ((40.0, 62.0, ["Agent", "Criteria"], dark), (60.0, 140.0, ["Unusual"], False)):
        prims.shapes.append(Shape(((40.0, top), (260.0, top), (260.0, bottom), (40.0, bottom)),
                                  BBox(40.0, top, 260.0, bottom), is_dark, not is_dark, "rect", is_dark))
        x = 50.0
        for word in words:
            prims.tokens.append(Token(word, BBox(x, top + 6, x + 7 * len(word), top + 16), 10.0))
            prims.tokens.append(Token(" ", BBox(x + 7 * len(word), top + 6, x + 7 * len(word) + 4, top + 16), 10.0))
            x += 7 * len(word) + 4
    return prims


def test_only_a_dark_bar_merges_with_the_box_it_overlaps_by_their_borders() -> None:
    # the pipeline's shapes overlap by two grown borders where boxes touch: two light boxes stay steps
    assert _box_texts(_stacked(dark=True)) == ["Agent Criteria Unusual"]
    assert _box_texts(_stacked(dark=False)) == ["Agent Criteria", "Unusual"]


def _table(*words: tuple[str, int, int]) -> dict[str, list[object]]:
    """A tesseract word table: (text, left, line number), each word 10 px tall, 60 px apart per line."""
    return {"text": [w[0] for w in words], "conf": [95] * len(words), "left": [w[1] for w in words],
            "top": [w[2] * 20 for w in words], "width": [8 if len(w[0]) == 1 else 50 for w in words],
            "height": [10] * len(words), "block_num": [1] * len(words), "par_num": [1] * len(words),
            "line_num": [w[2] for w in words]}


def test_a_letter_opening_several_lines_at_one_place_is_a_pictogram_marker_and_dropped() -> None:
    data = _table(("P", 2, 1), ("Unusual", 20, 1), ("strains", 20, 2), ("P", 3, 3), ("Genomic", 20, 3),
                  ("P", 2, 4), ("waves", 14, 4))
    words = [t.text for t in words_to_tokens(data, (0, 0), 1.0, 0.0, DEFAULT_SETTINGS, inner_bar_is_i=True)
             if t.text.strip()]
    # the last line's letter stands on the markers' margin but a word space before its word: text
    assert words == ["Unusual", "strains", "Genomic", "P", "waves"]


def test_a_letter_a_word_space_before_its_word_is_text_even_on_several_lines() -> None:
    # "P waves absent" / "P waves upright": the letter stands where a word would, not at a hanging indent
    data = _table(("P", 2, 1), ("waves", 13, 1), ("P", 2, 2), ("waves", 13, 2))
    assert [t.text for t in words_to_tokens(data, (0, 0), 1.0, 0.0, DEFAULT_SETTINGS, inner_bar_is_i=True)
            if t.text.strip()] == ["P", "waves", "P", "waves"]


def test_a_letter_opening_one_line_or_the_word_a_is_kept() -> None:
    once = _table(("P", 2, 1), ("waves", 14, 1), ("absent", 2, 2))
    assert [t.text for t in words_to_tokens(once, (0, 0), 1.0, 0.0, DEFAULT_SETTINGS, inner_bar_is_i=True)
            if t.text.strip()] == ["P", "waves", "absent"]
    article = _table(("A", 2, 1), ("single", 14, 1), ("A", 2, 2), ("similar", 14, 2))
    assert [t.text for t in words_to_tokens(article, (0, 0), 1.0, 0.0, DEFAULT_SETTINGS, inner_bar_is_i=True)
            if t.text.strip()] == ["A", "single", "A", "similar"]
