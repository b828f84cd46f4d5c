"""Pure raster text geometry: row baseline and cap height, raised marker runs, per-key marker tokens."""

from __future__ import annotations

import numpy as np

from dkg.parsing.geometry import BBox
from dkg.parsing.glyphs import is_bare_bar
from dkg.parsing.models import Token
from dkg.parsing.raster import (
    _Char,
    _hinted_runs,
    _key_tokens,
    bars_read_as_one,
    dotted_runs,
    is_text_chain,
    relation_sign,
    row_metrics,
    superscript_runs,
)

# one row, baseline y=100, cap height 30: "TKI" then a raised "a,b" then "or"
T, K, EYE = (0, 70, 20, 100), (22, 70, 42, 100), (44, 70, 48, 100)
A, COMMA, B = (50, 64, 58, 80), (59, 76, 61, 82), (62, 60, 70, 80)
OH, R = (80, 80, 95, 100), (97, 80, 108, 100)
ROW = [T, K, EYE, A, COMMA, B, OH, R]


def test_row_metrics_ignore_raised_markers_and_descenders() -> None:
    descender = (110, 80, 125, 110)
    assert row_metrics([*ROW, descender]) == (100.0, 30.0)
    assert row_metrics([]) is None


def test_raised_letters_and_their_comma_make_one_run() -> None:
    assert superscript_runs(ROW, 100.0, 30.0) == [(50.0, 70.0)]


def test_a_run_opening_the_row_is_found_too() -> None:
    # a footnote entry: raised key, then its text
    assert superscript_runs([(0, 64, 8, 80), (12, 70, 32, 100), (34, 80, 50, 100)], 100.0, 30.0) == [(0.0, 8.0)]


def test_a_key_with_a_descender_opening_the_row_is_found() -> None:
    # raised g: top at cap height, descender stopping 7 px above the baseline (inside the usual 0.3 limit)
    g_key = (0, 74, 10, 93)
    assert superscript_runs([g_key, (14, 70, 32, 100), (34, 80, 50, 100)], 100.0, 30.0) == [(0.0, 10.0)]
    # the same blob inside the row is a grounded glyph, and a full-height letter opening a row is no key
    assert superscript_runs([T, g_key, (34, 80, 50, 100)], 100.0, 30.0) == []
    assert superscript_runs([(0, 70, 12, 96), (14, 70, 32, 100)], 100.0, 30.0) == []


def test_hyphens_dots_and_i_dots_are_not_markers() -> None:
    hyphen = (50, 86, 58, 90)
    i_stem, i_dot = (60, 80, 64, 100), (60, 68, 64, 73)
    period_high = (70, 92, 73, 95)
    assert superscript_runs([T, K, hyphen, i_stem, i_dot, period_high], 100.0, 30.0) == []


def test_grounded_glyph_between_raised_blobs_splits_runs() -> None:
    second = (110, 62, 118, 80)
    assert superscript_runs([*ROW, second], 100.0, 30.0) == [(50.0, 70.0), (110.0, 118.0)]


def test_key_tokens_spread_keys_and_commas_over_the_run() -> None:
    tokens = _key_tokens(["a", "f"], Token("?", BBox(10.0, 0.0, 16.0, 4.0), 5.0))
    assert [t.text for t in tokens] == ["a", ",", "f"]
    assert [t.bbox.x0 for t in tokens] == [10.0, 12.0, 14.0]
    assert all(t.size == 5.0 for t in tokens)


def test_the_top_of_a_question_mark_is_not_a_marker() -> None:
    hook, dot = (50, 70, 62, 90), (54, 95, 58, 100)
    assert superscript_runs([T, K, EYE, hook, dot], 100.0, 30.0) == []


def test_joined_letters_are_text_and_a_connector_with_its_arrowhead_is_not() -> None:
    connector = np.zeros((12, 80), dtype=bool)
    connector[5:7, :] = True
    connector[1:11, 70:] = True  # the arrowhead
    word = np.zeros((12, 80), dtype=bool)
    for x0 in range(0, 80, 10):  # a row of o-like letters: a column crosses their top and bottom strokes
        word[1:3, x0: x0 + 8] = True
        word[9:11, x0: x0 + 8] = True
        word[1:11, x0] = True
    assert not is_text_chain(connector)
    assert is_text_chain(word)


def _fused_pair() -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """A grounded letter (columns 0-10, rows 10-30) with a raised marker (columns 11-18, rows 2-14) joined to
    it by the blur; baseline 30, cap height 20."""
    ink = np.zeros((40, 40), dtype=np.uint8)
    ink[10:31, 0:11] = 1
    ink[2:15, 11:19] = 1
    return ink, [(0, 2, 19, 31)]


def test_a_marker_fused_to_the_letter_before_is_cut_at_its_raised_columns() -> None:
    ink, blobs = _fused_pair()
    word = [_Char("y", (0, 10, 12, 31)), _Char("\u201d", (10, 2, 19, 14))]
    assert _hinted_runs([word], blobs, [], 30.0, 20.0, ink) == [(11.0, 19.0)]


def test_a_raised_letter_tesseract_read_as_a_capital_is_a_marker() -> None:
    # "SBRT" + raised u read "SBRTY": the Y's box stops well above the baseline, unlike any letter's
    ink, blobs = _fused_pair()
    word = [_Char("T", (0, 10, 11, 31)), _Char("Y", (11, 2, 19, 14))]
    assert _hinted_runs([word], blobs, [], 30.0, 20.0, ink) == [(11.0, 19.0)]
    grounded = [_Char("T", (0, 10, 11, 31)), _Char("Y", (11, 10, 19, 31))]
    assert _hinted_runs([grounded], blobs, [], 30.0, 20.0, ink) == []


def test_a_marker_before_closing_punctuation_is_found() -> None:
    ink, blobs = _fused_pair()
    word = [_Char("k", (0, 10, 12, 31)), _Char("\u00ae", (10, 2, 19, 14)), _Char(";", (20, 18, 22, 33))]
    assert _hinted_runs([word], blobs, [], 30.0, 20.0, ink) == [(11.0, 19.0)]


def test_a_marker_joined_by_the_arm_of_an_r_is_cut_past_the_arm() -> None:
    # an r (stem columns 0-3, arm columns 4-8 two rows thick) with a raised e (columns 9-16) fused to its
    # arm: the grounded stem is narrow, but no ? is as wide as the blob, and the arm is not the marker
    ink = np.zeros((40, 40), dtype=np.uint8)
    ink[12:31, 0:4] = 1
    ink[12:14, 4:9] = 1
    ink[2:14, 9:17] = 1
    word = [_Char("r", (0, 12, 8, 31)), _Char("\u00ae", (1, 2, 17, 31))]  # boxed over the pair
    assert _hinted_runs([word], [(0, 2, 17, 31)], [], 30.0, 20.0, ink) == [(9.0, 17.0)]


def test_a_marker_fused_to_the_bowl_of_a_p_starts_where_tesseract_boxed_it() -> None:
    # a P (stem columns 0-3 on the baseline, bowl columns 4-11 raised) fused to a raised p (columns 12-18):
    # every column right of the stem is raised, but the bowl belongs to the P that tesseract boxed apart
    ink = np.zeros((40, 40), dtype=np.uint8)
    ink[10:31, 0:4] = 1
    ink[10:20, 4:12] = 1
    ink[10:22, 12:19] = 1
    word = [_Char("P", (0, 10, 12, 31)), _Char("?", (12, 10, 19, 22))]
    assert _hinted_runs([word], [(0, 10, 19, 31)], [], 30.0, 20.0, ink) == [(12.0, 19.0)]


def test_a_mark_beside_a_marker_found_in_the_pixels_adds_no_second_run() -> None:
    # tesseract's boxes run a glyph off: the raised marker (a run at columns 21-27) was boxed as the ";"
    # and the "’" before it is the letter before; one marker, so no run for the mark
    ink, blobs = _fused_pair()
    word = [_Char("y", (0, 10, 12, 31)), _Char("\u2019", (10, 2, 19, 14)), _Char(";", (21, 2, 27, 31))]
    assert _hinted_runs([word], blobs, [(21.0, 27.0)], 30.0, 20.0, ink) == []
    assert _hinted_runs([word], blobs, [(60.0, 66.0)], 30.0, 20.0, ink) == [(11.0, 19.0)]


def test_a_question_mark_standing_on_the_baseline_is_not_a_marker() -> None:
    # the blur joined the dot to the hook: one blob from cap height to the baseline, the mark's own width
    ink = np.zeros((40, 60), dtype=np.uint8)
    ink[10:31, 0:11] = 1
    ink[10:31, 14:24] = 1
    blobs = [(0, 10, 11, 31), (14, 10, 24, 31)]
    word = [_Char("s", (0, 10, 11, 31)), _Char("?", (14, 10, 24, 31))]
    assert _hinted_runs([word], blobs, [], 30.0, 20.0, ink) == []


def test_a_raised_i_with_its_dot_is_a_marker() -> None:
    # "HCT" then a raised i whose stem (rows 78-88) stops short of cap height (70) and whose dot sits above
    row = [(0, 70, 20, 100), (22, 70, 42, 100), (44, 70, 62, 100), (66, 78, 69, 88), (66, 72, 69, 75)]
    assert superscript_runs(row, 100.0, 30.0) == [(66.0, 69.0)]


def _at_least_sign(joined: bool) -> np.ndarray:
    """A blurred-scan ``≥``: a chevron pointing right over a bar, the lower arm touching the bar if ``joined``."""
    glyph = np.zeros((16, 14), dtype=np.uint8)
    for i in range(6):
        glyph[i, 1 + 2 * i: 4 + 2 * i] = glyph[10 - i, 1 + 2 * i: 4 + 2 * i] = 255
    glyph[12:15, 1:13] = 255
    if joined:
        glyph[11, 1:4] = 255
    return glyph


def test_a_comparison_sign_read_as_equals_is_told_by_its_chevron() -> None:
    for joined in (False, True):
        assert relation_sign(_at_least_sign(joined)) == "≥"
        assert relation_sign(_at_least_sign(joined)[:, ::-1].copy()) == "≤"
    equals = np.zeros((10, 14), dtype=np.uint8)
    equals[1:4, 1:13] = 255
    equals[6:9, 1:13] = 255
    assert relation_sign(equals) is None
    assert relation_sign(np.zeros((5, 5), dtype=np.uint8)) is None


def test_a_speck_under_the_bar_or_a_plain_chevron_is_handled() -> None:
    specked = np.vstack([_at_least_sign(True), np.zeros((1, 14), dtype=np.uint8)])
    specked[-1, 3:5] = 255
    assert relation_sign(specked) == "≥"
    chevron = _at_least_sign(False)[:12].copy()  # a '>' alone: no bar under it
    assert relation_sign(chevron) is None


def test_a_raised_i_fused_to_the_capital_before_it_is_found_by_its_dot() -> None:
    ink = np.zeros((44, 40), dtype=np.uint8)
    ink[10:38, 4:20] = 255            # a capital T's stem and bar, standing on the baseline (y 38)
    ink[10:13, 20:24] = 255           # the T's bar runs into the raised i's stem (blurred together)
    ink[10:22, 22:24] = 255
    ink[5:7, 22:24] = 255             # the i's dot, above the cap line
    blobs = [(4, 10, 24, 38), (22, 5, 24, 7)]
    assert dotted_runs(blobs, [], 38.0, 28.0, ink) == [(21.0, 25.0)]
    # neighbours whose blurred letter groups reach down with their descenders do not lower the line
    assert dotted_runs(blobs + [(26, 16, 38, 44)], [], 38.0, 28.0, ink) == [(21.0, 25.0)]
    # the dot of a text i sits below the cap line, over a stem standing on the baseline
    text_i = np.zeros((44, 40), dtype=np.uint8)
    text_i[18:38, 10:13] = 255
    text_i[12:15, 10:13] = 255
    assert dotted_runs([(10, 18, 13, 38), (10, 12, 13, 15)], [], 38.0, 28.0, text_i) == []
    # ... also when its neighbours are letter groups with descenders (their bottoms below the line)
    assert dotted_runs([(0, 18, 8, 43), (10, 18, 13, 38), (10, 12, 13, 15), (15, 18, 30, 44)], [], 38.0, 28.0,
                       text_i) == []
    # a run already found there is not found twice
    assert dotted_runs(blobs, [(20.0, 26.0)], 38.0, 28.0, ink) == []


def _glyph_row(*glyphs: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """The glyphs' ink side by side, 3 columns apart, and each glyph's column span."""
    height = max(g.shape[0] for g in glyphs)
    ink, spans, x = np.zeros((height + 4, 200), np.uint8), [], 2
    for glyph in glyphs:
        ink[2: 2 + glyph.shape[0], x: x + glyph.shape[1]] = glyph
        spans.append((x, x + glyph.shape[1] - 1))
        x += glyph.shape[1] + 3
    return ink, spans


def _bar(height: int = 22, width: int = 4) -> np.ndarray:
    return np.ones((height, width), np.uint8)


def _one(height: int = 22) -> np.ndarray:
    """A sans-serif digit 1: a stem with a flag at its top left and a foot."""
    glyph = np.zeros((height, 12), np.uint8)
    glyph[:, 5:9] = 1
    glyph[1:5, 1:6] = 1
    glyph[-3:, 1:12] = 1
    return glyph


def _block(width: int = 10) -> np.ndarray:
    return np.ones((22, width), np.uint8)


def test_a_bare_bar_is_not_a_flagged_one() -> None:
    assert is_bare_bar(_bar())
    assert not is_bare_bar(_one())
    assert not is_bare_bar(_block())  # a wide glyph is no bar
    no_foot = _one()
    no_foot[-3:, :] = 0
    no_foot[-3:, 5:9] = 1
    assert not is_bare_bar(no_foot)  # the flag alone tells a 1


def test_a_bar_read_as_one_in_a_capitalised_word_is_a_capital_i() -> None:
    # "T315I" read "T3151": the last glyph is a bare bar, the first 1 has its flag
    ink, spans = _glyph_row(_block(), _block(), _one(), _block(), _bar())
    word = [_Char(ch, (a, 2, b, 23)) for ch, (a, b) in zip("T3151", spans, strict=True)]
    assert "".join(c.text for c in bars_read_as_one(word, ink)) == "T315I"
    # small letters: the bar is a small l ("a1so")
    word = [_Char(ch, (a, 2, b, 23)) for ch, (a, b) in zip("a1", spans[3:], strict=True)]
    assert "".join(c.text for c in bars_read_as_one(word, ink[:, : spans[4][1] + 2])) == "al"


def test_numbers_and_words_whose_glyphs_touch_are_left_as_read() -> None:
    ink, spans = _glyph_row(_bar(), _block())
    number = [_Char(ch, (a, 2, b, 23)) for ch, (a, b) in zip("15", spans, strict=True)]
    assert "".join(c.text for c in bars_read_as_one(number, ink)) == "15"  # no letter: a number stays one
    touching = ink.copy()
    touching[10, spans[0][1]: spans[1][0] + 1] = 1  # the bar runs into the next glyph: which glyph is the 1?
    word = [_Char(ch, (a, 2, b, 23)) for ch, (a, b) in zip("1T", spans, strict=True)]
    assert "".join(c.text for c in bars_read_as_one(word, touching)) == "1T"
    assert "".join(c.text for c in bars_read_as_one(word, ink)) == "IT"
