"""Box text of scanned pages: border lines cut off a box's crop and the word-level repairs of tesseract's reading
(``dkg.parsing.scan.text``), on drawn crops and on word tables as a blurred 200 dpi scan gives them."""

from __future__ import annotations

import dataclasses

import numpy as np

from dkg.parsing.scan.settings import DEFAULT_SETTINGS, ScanSettings
from dkg.parsing.scan.text import (
    inside_border_lines,
    unread_bullets,
    without_cut_words,
    without_edge_fragments,
    words_to_tokens,
)
from dkg.parsing.textlayout import build_lines


def _table(words: list[tuple[str, float, int, int]], height: int = 30) -> dict[str, list[object]]:
    """One OCR line: (text, confidence, left, width) per word."""
    return {
        "text": [w[0] for w in words], "conf": [w[1] for w in words], "left": [w[2] for w in words],
        "top": [0] * len(words), "width": [w[3] for w in words], "height": [height] * len(words),
        "block_num": [1] * len(words), "par_num": [1] * len(words), "line_num": [1] * len(words),
    }


def _box_text(words: list[tuple[str, float, int, int]], settings: ScanSettings = DEFAULT_SETTINGS) -> str:
    tokens = words_to_tokens(_table(words), (0, 0), 1.0, min_conf=settings.min_box_conf, settings=settings,
                             inner_bar_is_i=True)
    return "".join(t.text for t in tokens)


def test_a_bar_glued_before_a_capital_is_a_capital_i() -> None:
    # smog-48 at 200 dpi: ``Amiodarone IV / IO`` read ``Amiodarone IV / |O``; the bar was stripped as a border
    read = [("Amiodarone", 96, 0, 198), ("IV", 43, 211, 23), ("/", 86, 250, 7), ("|O", 77, 273, 31)]
    assert _box_text(read) == "Amiodarone IV / IO"


def test_a_low_confidence_word_is_kept_when_it_is_a_clinical_abbreviation() -> None:
    # smog-48 ``Lidocaine |V / |O``: the ``|V`` read with confidence 2, below ``min_box_conf``
    read = [("Lidocaine", 91, 0, 157), ("|V", 2, 170, 49), ("/", 42, 208, 12), ("|O", 42, 232, 32)]
    assert _box_text(read) == "Lidocaine IV / IO"
    noise = [("Lidocaine", 91, 0, 157), ("xq", 2, 170, 49)]
    assert _box_text(noise) == "Lidocaine"
    off = dataclasses.replace(DEFAULT_SETTINGS, misread_max_swaps=0)
    assert _box_text(read, off) == "Lidocaine / IO"  # the bar still read as I; the low-confidence IV dropped


def test_a_quote_read_for_an_asterisk_before_one_is_an_asterisk() -> None:
    # smog-43 ``**NTG`` read ``“*NTG``
    assert _box_text([("\u201c*NTG", 27, 0, 56), ("0.4mg", 92, 70, 76)]) == "**NTG 0.4mg"
    assert _box_text([("\"See", 90, 0, 56)]) == "\"See"


def test_a_sign_far_after_a_line_is_a_pictogram_not_text() -> None:
    # smog-48 ``Move to`` with a star pictogram 106 px (3.4 line heights) after ``to``, read ``*``
    far = [("Move", 96, 237, 83), ("to", 96, 331, 32), ("*", 84, 469, 41)]
    assert _box_text(far) == "Move to"
    near = [("Pearls", 96, 0, 90), (".", 80, 95, 6)]
    assert _box_text(near) == "Pearls."  # kept as punctuation, joined to its word (``closing_signs``)
    off = dataclasses.replace(DEFAULT_SETTINGS, lone_sign_gap=0.0)
    assert _box_text(far, off) == "Move to *"


def test_a_border_line_in_a_box_crop_is_cut_off_with_what_stands_beyond_it() -> None:
    # a crop found a little too wide: its right border runs down near its right side, a word beyond it
    ink = np.zeros((60, 200), np.uint8)
    ink[10:20, 20:120] = 255  # two lines of text
    ink[30:40, 20:120] = 255
    ink[:, 185:188] = 255  # the border
    ink[20:40, 190:198] = 255  # a word beyond it
    gray = np.where(ink > 0, 0, 210).astype(np.uint8)
    out, kept = inside_border_lines(gray, ink, DEFAULT_SETTINGS)
    assert kept == (0, 0, 185, 60)
    assert out[:, 185:].min() == 255
    assert (out[10:40, 20:120] == gray[10:40, 20:120]).all()  # the text stays
    # text alone, however dense, makes no border
    text = np.zeros((60, 200), np.uint8)
    text[10:50, 2:190:6] = 255
    dense = np.where(text > 0, 0, 210).astype(np.uint8)
    assert inside_border_lines(dense, text, DEFAULT_SETTINGS)[1] == (0, 0, 200, 60)
    off = dataclasses.replace(DEFAULT_SETTINGS, border_line_share=0.0)
    assert inside_border_lines(gray, ink, off)[1] == (0, 0, 200, 60)


def test_a_word_cut_by_a_border_line_is_dropped() -> None:
    # smog-48: the ``O`` of an ``OR`` standing on the box's right border, read ``q`` up to the border
    table = _table([("bolus", 81, 215, 81), ("q", 60, 337, 22)])
    out = without_cut_words(table, (0, 0, 347, 190), (366, 190), 12)
    assert out["text"] == ["bolus"]
    assert without_cut_words(table, (0, 0, 366, 190), (366, 190), 12)["text"] == ["bolus", "q"]


def _bullet_list(first_line_read: str) -> tuple[dict[str, list[object]], np.ndarray]:
    """A box of two bulleted lines 30 px tall; the second line's bullet read as ``first_line_read`` (or not at
    all, ""), the first line's bullet not read."""
    ink = np.zeros((80, 300), np.uint8)
    ink[10:24, 4:18] = 255  # line 1's bullet, not read
    ink[50:64, 4:18] = 255  # line 2's bullet
    words = [("Do", 1, 30, 39), ("not", 1, 80, 46), ("Move", 2, 30, 80)]
    if first_line_read:
        words.append((first_line_read, 2, 4, 14))
    table: dict[str, list[object]] = {
        "text": [w[0] for w in words], "conf": [96.0] * len(words), "left": [w[2] for w in words],
        "top": [2 if w[1] == 1 else 42 for w in words], "width": [w[3] for w in words], "height": [30] * len(words),
        "block_num": [1] * len(words), "par_num": [1] * len(words), "line_num": [w[1] for w in words],
    }
    return table, ink


def test_a_bullet_tesseract_did_not_read_is_added_in_a_list() -> None:
    # smog-43: ``• Do not delay reperfusion`` read without its bullet, the next line's bullet read ``¢``
    table, ink = _bullet_list("\u00a2")
    tokens = words_to_tokens(unread_bullets(table, ink, 0, DEFAULT_SETTINGS), (0, 0), 1.0, 10.0, DEFAULT_SETTINGS,
                             inner_bar_is_i=True)
    lines = build_lines(tokens)
    assert [line.plain for line in lines] == ["\u2022 Do not", "\u2022 Move"]
    # no line read with a bullet: not a list, nothing added (a dot may be a speck)
    table, ink = _bullet_list("")
    assert unread_bullets(table, ink, 0, DEFAULT_SETTINGS)["text"] == ["Do", "not", "Move"]
    off = dataclasses.replace(DEFAULT_SETTINGS, bullet_size=(0.2, 0.0))
    table, ink = _bullet_list("\u00a2")
    assert unread_bullets(table, ink, 0, off)["text"] == table["text"]


def _crop_with(ink: np.ndarray) -> np.ndarray:
    """A grey-filled crop (fill 210) with black where ``ink`` is set."""
    return np.where(ink > 0, 0, 210).astype(np.uint8)


def test_ink_reaching_a_little_into_a_box_crop_across_its_top_is_blanked() -> None:
    # smog-48 at 200 dpi: a label's descenders standing just above ``CPR 2 min`` reach 4 px into the crop;
    # tesseract read them as a bar and the box as ``CPR2min``
    ink = np.zeros((90, 460), np.uint8)
    ink[0:4, 423:436] = 255  # the descenders (1 pt deep at 4.17 px/pt)
    ink[30:70, 120:340] = 255  # the line of text
    ink[0:40, 20:26] = 255  # a tall letter reaching the top: not a fragment
    ink[86:90, 100:300] = 255  # a graded fill's dark bottom rows: left alone
    out = without_edge_fragments(_crop_with(ink), ink, (0, 0, 460, 90), depth=6)
    assert out[0:4, 423:436].min() > 150  # filled with the fill around it
    assert out[30:70, 120:340].max() == 0
    assert out[0:40, 20:26].max() == 0
    assert out[86:90, 100:300].max() == 0


def test_edge_fragments_are_measured_from_the_kept_top_after_a_border_line() -> None:
    ink = np.zeros((60, 200), np.uint8)
    ink[10:13, 50:60] = 255  # reaching 3 px below the border line cut off at row 10
    ink[30:50, 40:160] = 255
    crop, kept = _crop_with(ink), (0, 10, 200, 60)
    crop[:10, :] = 255
    out = without_edge_fragments(crop, ink, kept, depth=4)
    assert out[10:13, 50:60].min() > 150
    assert out[30:50, 40:160].max() == 0
    assert (without_edge_fragments(crop, ink, kept, depth=0) == crop).all()
