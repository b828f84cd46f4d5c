"""Step 4: text per shape (tesseract's own layout analysis on each box, one PSM per box) and text outside
boxes (sparse text: connector labels, titles, page codes)."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import cv2
import numpy as np

from dkg.config import get_settings
from dkg.errors import ServiceError
from dkg.parsing.geometry import BBox
from dkg.parsing.models import Token
from dkg.parsing.scan.binarise import PageImage
from dkg.parsing.scan.readings import corrected_line, corrected_word, load_terms
from dkg.parsing.scan.settings import ScanSettings
from dkg.parsing.scan.shapes import FoundShape
from dkg.services.tesseract import configured_pytesseract

KEPT_SIGNS = frozenset("()+-/<>=%&:;,.?\u2022")
EDGE_NOISE = "_|~"  # box borders and shadows read at a word's ends
LONE_BAR = "|"
# what tesseract reads for a bullet that opens a line of text
BULLET_READS = frozenset({"e", "©", "@", "¢", "«", "»", "*", "°", "o", "\u2022"})
SPACE_EPSILON_PT = 0.01


def _image_to_data(image: np.ndarray, psm: int, timeout_s: float) -> dict[str, list[Any]]:
    from PIL import Image

    pytesseract = configured_pytesseract()
    try:
        data: dict[str, list[Any]] = pytesseract.image_to_data(
            Image.fromarray(image), lang="eng", config=f"--psm {psm}", output_type=pytesseract.Output.DICT,
            timeout=timeout_s)
    except pytesseract.TesseractError as exc:
        raise ServiceError(f"tesseract failed (status {exc.status}): {exc.message}") from exc
    except RuntimeError as exc:  # pytesseract's timeout
        raise ServiceError(f"tesseract did not finish within {timeout_s:.0f} s; try a lower --dpi") from exc
    return data


def _images_to_data(images: list[np.ndarray], psm: int, timeout_s: float) -> list[dict[str, list[Any]]]:
    """:func:`_image_to_data` of each image, in order, up to ``tesseract_processes`` (platform settings; 0: one per
    core) at once: the calls are independent, and each is mostly one process's start and single-threaded
    reading."""
    workers = get_settings().tesseract_processes or os.cpu_count() or 1
    if workers == 1 or len(images) < 2:
        return [_image_to_data(image, psm, timeout_s) for image in images]
    with ThreadPoolExecutor(max_workers=min(workers, len(images)), thread_name_prefix="tesseract") as pool:
        return list(pool.map(lambda image: _image_to_data(image, psm, timeout_s), images))


def words_to_tokens(data: dict[str, list[Any]], offset: tuple[int, int], scale: float, min_conf: float,
                    settings: ScanSettings | None = None, inner_bar_is_i: bool = False) -> list[Token]:
    """Tesseract words → tokens in points, one size per OCR line (so no word reads as a superscript), with a
    space token between neighbouring words of a line; with ``settings.misread_max_swaps`` above 0, look-alike
    misreads of clinical abbreviations and units are undone line by line (:mod:`dkg.parsing.scan.readings`).

    A lone ``|`` is a border remnant and dropped, except, with ``inner_bar_is_i`` (the text inside one box),
    between two words of a line, or opening a line with the next word a word gap away
    (``ScanSettings.bar_word_gap``): no border stands there, it is a capital I that tesseract read as a bar
    (smog-41 ``2° type I (PR gets longer``, the ``I`` opening the box's second line)."""
    swaps = settings.misread_max_swaps if settings is not None else 0
    chosen = settings or ScanSettings()
    bar_gap, pictogram_ratio, sign_gap = chosen.bar_word_gap, chosen.pictogram_height_ratio, chosen.lone_sign_gap
    terms = load_terms() if swaps > 0 else frozenset()
    lines: dict[tuple[int, int, int], list[tuple[str, int, int, int, int]]] = defaultdict(list)
    for i, text in enumerate(data.get("text", [])):
        word = str(text).strip()
        if inner_bar_is_i:
            word = glued_bar_as_i(word)
        word = word if word == LONE_BAR and inner_bar_is_i else word.strip(EDGE_NOISE)
        word = _QUOTE_BEFORE_STAR.sub("*", word)
        if (not any(c.isalnum() for c in word) and word not in KEPT_SIGNS and word not in BULLET_READS
                and word != LONE_BAR):
            continue  # a border remnant or speck read as ``|``, ``_``, ``—``
        if float(data["conf"][i]) < min_conf and not (swaps > 0 and _lexicon_word(word, terms, swaps)):
            continue
        left, top, width, height = (int(data[k][i]) for k in ("left", "top", "width", "height"))
        key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
        lines[key].append((word, left, top, width, height))
    ox, oy = offset
    tokens: list[Token] = []
    if inner_bar_is_i:
        lines = pictogram_markers_dropped(lines, chosen.marker_min_lines, chosen.marker_align, chosen.marker_gap)
    for words in lines.values():
        words.sort(key=lambda w: w[1])
        words = [("I", *w[1:]) if w[0] == LONE_BAR and _bar_is_i(words, k, bar_gap) else w
                 for k, w in enumerate(words)]
        words = [w for w in words if w[0] != LONE_BAR and not _pictogram(w, words, pictogram_ratio)]
        words = _without_lone_end_sign(words, sign_gap)
        if not words:
            continue
        if len(words) > 1 and words[0][0] in BULLET_READS:
            words[0] = ("\u2022", *words[0][1:])
        first = words[0][0]
        if len(first) > 1 and first[0] in "-\u2014" and not first[1].isalnum():
            words[0] = (first[1:], *words[0][1:])  # a border or connector end read before the line
        if swaps > 0:
            texts = corrected_line([w[0] for w in words], terms, swaps)
            words = [(text, *word[1:]) for text, word in zip(texts, words, strict=True)]
        words = spaced_slashes(words)
        if inner_bar_is_i:
            words = glued_closing_signs(words, chosen.closing_signs)
        size = max(h for *_, h in words) / scale
        previous: BBox | None = None
        for word, left, top, width, height in words:
            bbox = BBox((ox + left) / scale, (oy + top) / scale, (ox + left + width) / scale,
                        (oy + top + height) / scale)
            if previous is not None:
                # tesseract's words are words: a space between each two, even where it boxed the first too
                # wide (over the words after it), as it does on blurred scans; the space sorts just before
                # the word it precedes
                start = max(previous.x0, min(previous.x1, bbox.x0 - SPACE_EPSILON_PT))
                tokens.append(Token(" ", BBox(start, previous.top, max(start, bbox.x0), previous.bottom), size))
            tokens.append(Token(word, bbox, size))
            previous = bbox
    return tokens


def _lexicon_word(word: str, terms: frozenset[str], swaps: int) -> bool:
    """Whether ``word`` (look-alikes undone) is a whole entry of the clinical lexicon: tesseract's dictionary is
    general English, so it reads such abbreviations with little confidence even when it reads them right (smog-48
    ``|V`` of ``IV / IO``, confidence 2)."""
    return len(word) > 1 and corrected_word(word, terms, swaps) in terms


def _pictogram(word: tuple[str, int, int, int, int], line: list[tuple[str, int, int, int, int]], ratio: float
               ) -> bool:
    """Whether ``word`` is a pictogram read as a letter: one letter at least ``ratio`` times as tall as the
    median of the line's other words, at least two of them (cbrn-12's biohazard sign read ``A``, 88 px among
    words of 34, with confidence 96)."""
    others = [w[4] for w in line if w is not word]
    return (ratio > 0 and len(word[0]) == 1 and word[0].isalpha() and len(others) >= 2
            and word[4] >= ratio * float(np.median(others)))


_WORD_LETTERS = frozenset("AI")  # capital letters that are English words and may open a line


def pictogram_markers_dropped(lines: dict[Any, list[tuple[str, int, int, int, int]]], min_lines: int,
                              align: float, gap: float) -> dict[Any, list[tuple[str, int, int, int, int]]]:
    """A box's lines without the list markers drawn as pictograms that tesseract read as a capital letter: the
    same letter (not ``A`` or ``I``) opening at least ``min_lines`` lines, their left ends within ``align`` of the
    line height of each other, each at least ``gap`` of its height before the word after it (a hanging indent:
    cbrn-12's flags read ``P Unusual organism strains``, ``P Unusual genomic profiles``). A letter a word space
    before its word is text (``P waves absent``, ``P waves upright``), and so is one opening a single line.

    >>> lines = {1: [("P", 10, 0, 6, 9), ("Unusual", 24, 0, 40, 9)], 2: [("strains", 24, 12, 30, 9)],
    ...          3: [("P", 11, 24, 6, 9), ("Genomic", 24, 24, 40, 9)],
    ...          4: [("P", 60, 36, 6, 9), ("waves", 70, 36, 30, 9)]}
    >>> [[w[0] for w in words] for words in pictogram_markers_dropped(lines, 2, 0.5, 0.7).values()]
    [['Unusual'], ['strains'], ['Genomic'], ['P', 'waves']]
    """
    if min_lines <= 0:
        return lines
    openers: dict[str, list[tuple[Any, int, int]]] = defaultdict(list)
    for key, words in lines.items():
        if len(words) < 2:
            continue
        first, after = sorted(words, key=lambda w: w[1])[:2]
        hanging = after[1] - (first[1] + first[3]) >= gap * first[4]
        if len(first[0]) == 1 and first[0].isupper() and first[0] not in _WORD_LETTERS and hanging:
            openers[first[0]].append((key, first[1], first[4]))
    dropped: set[Any] = set()
    for found in openers.values():
        for _key, left, height in found:
            aligned = [k for k, x, _ in found if abs(x - left) <= align * height]
            if len(aligned) >= min_lines:
                dropped.update(aligned)
    return {key: (sorted(words, key=lambda w: w[1])[1:] if key in dropped else words) for key, words in lines.items()}


_QUOTE_BEFORE_STAR = re.compile("[\"\u201c\u201d](?=\\*)")


def glued_bar_as_i(word: str) -> str:
    """``word`` with a bar read glued before a capital letter (``|V``, ``|O``: the blurred capital I of ``IV / IO``)
    given back as ``I``; a bar before anything else stays (a border remnant, stripped later).

    >>> glued_bar_as_i("|V"), glued_bar_as_i("|O)"), glued_bar_as_i("|"), glued_bar_as_i("|access")
    ('IV', 'IO)', '|', '|access')
    """
    return "I" + word[1:] if len(word) > 1 and word[0] == LONE_BAR and word[1].isupper() else word


def _without_lone_end_sign(words: list[tuple[str, int, int, int, int]], gap: float
                           ) -> list[tuple[str, int, int, int, int]]:
    """A line's words without a last word of signs only (no letter or digit) standing more than ``gap`` times the
    line's height from the word before it: a pictogram or speck read as a sign (smog-48's star after ``Move to``,
    read ``*``), not punctuation, which stands next to its word. A line of that sign alone keeps it."""
    if gap <= 0 or len(words) < 2 or any(c.isalnum() for c in words[-1][0]):
        return words
    _, left, _, _, _ = words[-1]
    _, p_left, _, p_width, _ = words[-2]
    height = max(w[4] for w in words[:-1])
    return words[:-1] if left - (p_left + p_width) > gap * height else words


def _bar_is_i(words: list[tuple[str, int, int, int, int]], k: int, gap_share: float) -> bool:
    """Whether the lone bar ``words[k]`` of a box line (sorted left to right) is a capital I: between two words,
    or first with the next word starting within ``gap_share`` × its height of it."""
    if k == len(words) - 1:
        return False
    if k > 0:
        return True
    _, left, _, width, height = words[0]
    return words[1][1] - (left + width) <= gap_share * height


def glued_closing_signs(words: list[tuple[str, int, int, int, int]], signs: str
                        ) -> list[tuple[str, int, int, int, int]]:
    """A line's words with a word made only of closing signs (``signs``: ``?``, ``:``, ``)``, ...) joined to the word
    before it: writers set no space before them, and tesseract splits one off where the blur widened the gap
    (smog-48 at 300 dpi: ``Shockable ?``). The joined word's box spans both.

    >>> glued_closing_signs([("Shockable", 0, 2, 90, 12), ("?", 96, 2, 8, 12), ("Yes", 110, 0, 30, 14)], "?:")
    [('Shockable?', 0, 2, 104, 12), ('Yes', 110, 0, 30, 14)]
    """
    out: list[tuple[str, int, int, int, int]] = []
    for word in words:
        if out and signs and word[0] and all(c in signs for c in word[0]):
            text, left, top, width, height = out[-1]
            bottom = max(top + height, word[2] + word[4])
            top = min(top, word[2])
            out[-1] = (text + word[0], left, top, max(left + width, word[1] + word[3]) - left, bottom - top)
        else:
            out.append(word)
    return out


def spaced_slashes(words: list[tuple[str, int, int, int, int]]) -> list[tuple[str, int, int, int, int]]:
    """A line's words with a slash spaced on one side only between two words spaced on both (``IV /IO``,
    ``IV/ 10`` → ``IV / IO``): a space lost on one side of a slash is a misread, as the writer spaces a slash on
    both sides or on neither (``mcg/kg/min``). The slash gets the word box's share of its one character."""
    out: list[tuple[str, int, int, int, int]] = []
    for k, (word, left, top, width, height) in enumerate(words):
        cut = len(word)
        if len(word) > 1 and word.startswith("/") and k > 0 and word[1].isalnum():
            cut = 1
        elif len(word) > 1 and word.endswith("/") and k + 1 < len(words) and word[-2].isalnum():
            cut = len(word) - 1
        if cut == len(word):
            out.append((word, left, top, width, height))
            continue
        split = left + max(1, round(width * cut / len(word)))
        out.append((word[:cut], left, top, split - left, height))
        out.append((word[cut:], split, top, max(1, left + width - split), height))
    return out


def box_tokens(page: PageImage, shapes: list[FoundShape], settings: ScanSettings) -> list[Token]:
    """The words inside each shape, read as one uniform block of text per shape."""
    inset = page.px(settings.box_inset_pt)
    pad = page.px(3.0)
    h, w = page.gray.shape
    gray = page.gray.copy()
    for shape in shapes:
        chevron = shape.chevron_area(page.px(settings.chevron_blank_pt))
        if chevron is not None:
            cv2.fillPoly(gray, [np.array(chevron, np.int32)], 255)
    boxes: list[tuple[np.ndarray, tuple[int, int, int, int], tuple[int, int, int, int]]] = []
    for shape in shapes:
        x0, y0, x1, y1 = shape.rect
        x0, y0 = max(0, x0 + inset), max(0, y0 + inset)
        x1, y1 = min(w, x1 - inset), min(h, y1 - inset)
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        crop, kept = inside_border_lines(np.ascontiguousarray(gray[y0:y1, x0:x1]), page.ink[y0:y1, x0:x1], settings)
        crop = without_edge_fragments(crop, page.ink[y0:y1, x0:x1], kept, page.px(settings.edge_fragment_pt, 0))
        crop = without_edge_arrows(crop, page.ink[y0:y1, x0:x1], kept, page, settings)
        boxes.append((cv2.copyMakeBorder(crop, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255), kept,
                      (x0, y0, x1, y1)))
    read = _images_to_data([crop for crop, _, _ in boxes], settings.box_psm, settings.ocr_timeout_s)
    read = with_weak_lines_reread([crop for crop, _, _ in boxes], read, settings, page.px(settings.flat_field_pt, 3))
    tokens: list[Token] = []
    for (_, kept, (x0, y0, x1, y1)), data in zip(boxes, read, strict=True):
        data = without_cut_words(data, kept, (x1 - x0, y1 - y0), pad)
        data = unread_bullets(data, page.ink[y0:y1, x0:x1], pad, settings)
        tokens += words_to_tokens(data, (x0 - pad, y0 - pad), page.ppt, settings.min_box_conf, settings,
                                  inner_bar_is_i=True)
    return tokens


_LINE_KEYS = ("block_num", "par_num", "line_num")


def _lines(data: dict[str, list[Any]]) -> dict[tuple[int, int, int], list[int]]:
    """Tesseract's words with text, by line: (block, paragraph, line) → word indices."""
    lines: dict[tuple[int, int, int], list[int]] = defaultdict(list)
    for i, text in enumerate(data.get("text", [])):
        if str(text).strip():
            lines[(int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))].append(i)
    return lines


def line_confidence(data: dict[str, list[Any]], words: list[int]) -> float:
    """The mean confidence of a line's words, each counted once per character.

    >>> line_confidence({"text": ["(MAX", "3mg)"], "conf": [90, 60]}, [0, 1])
    75.0
    """
    sizes = [len(str(data["text"][i]).strip()) for i in words]
    return sum(float(data["conf"][i]) * n for i, n in zip(words, sizes, strict=True)) / max(1, sum(sizes))


def flattened(crop: np.ndarray, size: int) -> np.ndarray:
    """``crop`` divided by its background (a grey closing ``size`` pixels across: the fill without the strokes),
    so a fill graded from light to dark becomes one paper white and its text stays dark.

    >>> crop = np.tile(np.linspace(230, 120, 40).astype(np.uint8)[:, None], (1, 40)); crop[30:33, 5:35] = 20
    >>> flat = flattened(crop, 9)
    >>> int(flat[5:10].min()) > 225, int(flat[36:].min()) > 225, int(flat[30:33, 10:30].max()) < 60
    (True, True, True)
    """
    background = cv2.morphologyEx(crop, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (size, size)))
    ratio = crop.astype(np.float32) / np.maximum(background.astype(np.float32), 1.0)
    return np.clip(ratio * 255.0, 0, 255).astype(np.uint8)


def with_weak_lines_reread(crops: list[np.ndarray], read: list[dict[str, list[Any]]], settings: ScanSettings,
                           flat_px: int) -> list[dict[str, list[Any]]]:
    """``read`` (tesseract's words of each crop) with each line read with less than ``settings.weak_line_conf``
    confidence replaced by the line the :func:`flattened` crop gives at the same height, when that reading holds
    one line there and reads it with more confidence (see ``ScanSettings.weak_line_conf``)."""
    if settings.weak_line_conf <= 0:
        return read
    weak = [k for k, data in enumerate(read)
            if any(line_confidence(data, words) < settings.weak_line_conf for words in _lines(data).values())]
    if not weak:
        return read
    again = _images_to_data([flattened(crops[k], flat_px) for k in weak], settings.box_psm, settings.ocr_timeout_s)
    out = list(read)
    for k, second in zip(weak, again, strict=True):
        out[k] = _replaced_weak_lines(read[k], second, settings.weak_line_conf)
    return out


def _replaced_weak_lines(first: dict[str, list[Any]], second: dict[str, list[Any]], weak_conf: float
                         ) -> dict[str, list[Any]]:
    """``first`` with its weak lines replaced by the one line of ``second`` whose middle lies within each (its
    words given the replaced line's key), where that line is read with more confidence."""
    second_lines = list(_lines(second).values())
    dropped: set[int] = set()
    added: list[tuple[tuple[int, int, int], int]] = []
    for key, words in _lines(first).items():
        confidence = line_confidence(first, words)
        if confidence >= weak_conf:
            continue
        top = min(int(first["top"][i]) for i in words)
        bottom = max(int(first["top"][i]) + int(first["height"][i]) for i in words)
        middles = [line for line in second_lines
                   if top <= sum(int(second["top"][i]) + int(second["height"][i]) / 2 for i in line) / len(line)
                   <= bottom]
        if len(middles) != 1 or line_confidence(second, middles[0]) <= confidence:
            continue
        dropped.update(words)
        added += [(key, i) for i in middles[0]]
    if not added:
        return first
    out = {column: [v for i, v in enumerate(values) if i not in dropped] for column, values in first.items()}
    for key, i in added:
        for column in first:
            out[column].append(key[_LINE_KEYS.index(column)] if column in _LINE_KEYS else second[column][i])
    return out


def inside_border_lines(crop: np.ndarray, ink: np.ndarray, settings: ScanSettings
                        ) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A copy of a box's crop blanked (white) from any border line near its sides outwards, and the rectangle
    ``(x0, y0, x1, y1)`` left: a column or row of the crop that is ink along at least ``border_line_share`` of its
    length and lies within ``border_line_zone`` of the crop's width or height from a side is a border (the box's
    own outline left in the crop, or a neighbouring box's) and what lies beyond it is outside the box (smog-48: a
    box found a little too wide holds its right border and the branch word ``OR`` standing on it). Letters never
    make a line that long.

    >>> ink = np.zeros((20, 40), np.uint8); ink[:, 36] = 255; ink[5:9, 38] = 255; ink[8:12, 10:20] = 255
    >>> gray = np.where(ink > 0, 0, 200).astype(np.uint8)
    >>> out, kept = inside_border_lines(gray, ink, ScanSettings())
    >>> int(out[:, 36:].min()), int(out[8:12, 10:20].max()), kept
    (255, 0, (0, 0, 36, 20))
    """
    share, zone = settings.border_line_share, settings.border_line_zone
    out = crop.copy()
    if share <= 0 or crop.size == 0:
        return out, (0, 0, crop.shape[1], crop.shape[0])
    mask = ink > 0
    h, w = mask.shape
    cols, rows = mask.mean(axis=0), mask.mean(axis=1)
    near_w, near_h = int(zone * w), int(zone * h)
    left = [x for x in range(near_w) if cols[x] >= share]
    right = [x for x in range(w - near_w, w) if cols[x] >= share]
    top = [y for y in range(near_h) if rows[y] >= share]
    bottom = [y for y in range(h - near_h, h) if rows[y] >= share]
    kept = (max(left) + 1 if left else 0, max(top) + 1 if top else 0, min(right) if right else w,
            min(bottom) if bottom else h)
    out[:, : kept[0]] = 255
    out[:, kept[2]:] = 255
    out[: kept[1], :] = 255
    out[kept[3]:, :] = 255
    return out, kept


def without_edge_fragments(crop: np.ndarray, ink: np.ndarray, kept: tuple[int, int, int, int], depth: int
                           ) -> np.ndarray:
    """A copy of a box's crop with the ink that crosses the top of its ``kept`` rectangle (what
    :func:`inside_border_lines` left) and reaches no more than ``depth`` pixels into it painted over with the fill
    around it (``cv2.inpaint``; white would stand out of a grey fill as a shape of its own): the cut-off end of
    something standing above the box, such as the descenders of a label. Tesseract reads such a fragment as a
    bar, counts it into the line's height and then reads the words of a one-line box glued (smog-48
    ``CPR 2 min`` read ``CPR2min |`` below a label's descenders, ``CPR 2 min`` without them). The bottom is left
    alone: there a graded fill's dark last rows and a drop shadow make many such pieces of ink, and painting
    them over shifts tesseract's threshold for the box's last line.

    >>> ink = np.zeros((30, 60), np.uint8); ink[0:2, 10:20] = 255; ink[10:20, 10:20] = 255; ink[0:12, 40:44] = 255
    >>> gray = np.where(ink > 0, 0, 200).astype(np.uint8)
    >>> out = without_edge_fragments(gray, ink, (0, 0, 60, 30), 3)
    >>> int(out[0:2, 10:20].min()) > 150, int(out[10:20, 10:20].max()), int(out[0:12, 40:44].max())
    (True, 0, 0)
    """
    out = crop.copy()
    x0, y0, x1, y1 = kept
    if depth <= 0 or x1 - x0 < 2 or y1 - y0 < 2:
        return out
    inside = np.zeros(ink.shape, np.uint8)
    inside[y0:y1, x0:x1] = (ink[y0:y1, x0:x1] > 0).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(inside, connectivity=8)
    fragments = [k for k in range(1, count) if stats[k][1] <= y0 and stats[k][3] <= depth]
    if not fragments:
        return out
    mask = np.isin(labels, fragments).astype(np.uint8) * 255
    # with a pixel's margin: the blurred rim of the ink that the ink mask leaves out
    return cv2.inpaint(out, cv2.dilate(mask, np.ones((3, 3), np.uint8)), 3, cv2.INPAINT_TELEA)


def without_edge_arrows(crop: np.ndarray, ink: np.ndarray, kept: tuple[int, int, int, int], page: PageImage,
                        settings: ScanSettings) -> np.ndarray:
    """A copy of a box's crop with each arrow that runs in across a side of its ``kept`` rectangle painted over with
    the fill around it (``cv2.inpaint``): an ink piece crossing a side that holds a solid arrowhead (what survives
    an elliptical opening ``head_open_pt`` wide, ``head_min_pt``-``head_max_pt`` across, at least
    ``head_min_aspect`` as wide as long) standing clear of that side, its stem reaching the side. Tesseract reads
    the head as a letter (``v Hypotension / Shock?`` on smog-43 at 300 dpi, ``v Wide QRS?`` on smog-46 at 150
    dpi). A bold letter cut by a tight crop has its thick part on the side, not clear of it."""
    out = crop.copy()
    x0, y0, x1, y1 = kept
    if not settings.edge_arrows or x1 - x0 < 2 or y1 - y0 < 2:
        return out
    inside = np.zeros(ink.shape, np.uint8)
    inside[y0:y1, x0:x1] = (ink[y0:y1, x0:x1] > 0).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(inside, connectivity=8)
    crossing = [k for k in range(1, count)
                if stats[k][0] <= x0 or stats[k][1] <= y0 or stats[k][0] + stats[k][2] >= x1
                or stats[k][1] + stats[k][3] >= y1]
    if not crossing:
        return out
    k = page.px(settings.head_open_pt, 3)
    solid = cv2.morphologyEx(inside * 255, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, _, hs, _ = cv2.connectedComponentsWithStats((solid > 0).astype(np.uint8), connectivity=8)
    least, most = settings.head_min_pt * page.ppt, settings.head_max_pt * page.ppt
    clear = page.px(settings.edge_arrow_clear_pt)
    arrows = set()
    for i in range(1, n):
        hx, hy, hw, hh, _ = (int(v) for v in hs[i])
        if not (least <= max(hw, hh) <= most and min(hw, hh) >= settings.head_min_aspect * max(hw, hh)):
            continue
        if hx - x0 < clear or hy - y0 < clear or x1 - (hx + hw) < clear or y1 - (hy + hh) < clear:
            continue
        piece = int(np.bincount(labels[hy:hy + hh, hx:hx + hw].ravel(), minlength=2)[1:].argmax() + 1)
        if piece in crossing and _stem_to_side(labels == piece, (hx, hy, hx + hw, hy + hh), kept, page, settings):
            arrows.add(piece)
    if not arrows:
        return out
    mask = np.isin(labels, sorted(arrows)).astype(np.uint8) * 255
    return cv2.inpaint(out, cv2.dilate(mask, np.ones((3, 3), np.uint8)), 3, cv2.INPAINT_TELEA)


def _stem_to_side(piece: np.ndarray, head: tuple[int, int, int, int], kept: tuple[int, int, int, int],
                  page: PageImage, settings: ScanSettings) -> bool:
    """Whether the ink ``piece`` is its ``head`` and a stem running from it to a side of ``kept``: every row (or
    column) between the head and that side holds ink, at least ``edge_arrow_stem_pt`` of them, none wider than
    ``line_max_thickness_pt``, the head at least ``edge_arrow_head_ratio`` times as wide as the stem (a bold ``k``
    whose ascender reaches the side has a joint little wider than its stem), and the piece no wider across the stem
    than the head (a letter whose descender runs off the crop has the other letters of its word beside it)."""
    hx0, hy0, hx1, hy1 = head
    x0, y0, x1, y1 = kept
    thick, least = page.px(settings.line_max_thickness_pt), page.px(settings.edge_arrow_stem_pt)
    cx, cy = (hx0 + hx1) // 2, (hy0 + hy1) // 2
    strips = (piece[y0:hy0, max(x0, cx - thick):cx + thick + 1], piece[hy1:y1, max(x0, cx - thick):cx + thick + 1],
              piece[max(y0, cy - thick):cy + thick + 1, x0:hx0].T, piece[max(y0, cy - thick):cy + thick + 1, hx1:x1].T)
    ys, xs = np.nonzero(piece)
    margin = page.px(settings.edge_arrow_clear_pt)
    for k, strip in enumerate(strips):
        # the piece is the head and its stem only: no wider across the stem than the head (no letters beside it)
        if k < 2 and (xs.min() < hx0 - margin or xs.max() >= hx1 + margin):
            continue
        if k >= 2 and (ys.min() < hy0 - margin or ys.max() >= hy1 + margin):
            continue
        reach = strip[:, :] if k in (1, 3) else strip[::-1]  # rows from the head outwards
        if reach.shape[0] < least or not reach.any(axis=1).all():
            continue
        full = piece[y0:hy0] if k == 0 else piece[hy1:y1] if k == 1 else piece[:, x0:hx0].T if k == 2 \
            else piece[:, hx1:x1].T
        widths = full.sum(axis=1)
        across = (hx1 - hx0) if k < 2 else (hy1 - hy0)
        if widths.max() <= thick and across >= settings.edge_arrow_head_ratio * float(np.median(widths)):
            return True
    return False


def without_cut_words(data: dict[str, list[Any]], kept: tuple[int, int, int, int], full: tuple[int, int],
                      offset: int) -> dict[str, list[Any]]:
    """The word table of a crop without the words that reach a border line blanked by :func:`inside_border_lines`
    (``kept`` of a ``full`` = (width, height) crop, whose words stand ``offset`` pixels in): a word cut by a
    border is the part of something standing on or beyond it (smog-48: the ``O`` of an ``OR`` on the border,
    read ``q``); text inside a box keeps clear of its outline.

    >>> table = {"text": ["May", "q"], "left": [10, 30], "top": [5, 5], "width": [15, 7], "height": [8, 8]}
    >>> without_cut_words(table, (0, 0, 36, 20), (40, 20), 0)["text"]
    ['May']
    """
    x0, y0, x1, y1 = kept
    width, height = full
    drop = set()
    for i in range(len(data.get("text", []))):
        left, top = int(data["left"][i]) - offset, int(data["top"][i]) - offset
        right, bottom = left + int(data["width"][i]), top + int(data["height"][i])
        if ((x0 > 0 and left <= x0 + 1) or (x1 < width and right >= x1 - 1) or (y0 > 0 and top <= y0 + 1)
                or (y1 < height and bottom >= y1 - 1)):
            drop.add(i)
    if not drop:
        return data
    return {k: [v for i, v in enumerate(values) if i not in drop] for k, values in data.items()}


def unread_bullets(data: dict[str, list[Any]], ink: np.ndarray, offset: int, settings: ScanSettings
                   ) -> dict[str, list[Any]]:
    """The word table of a box with the bullets tesseract did not read added as ``•`` words, in a box that is a
    list (another of its lines opens with a bullet read as ``e``, ``©``, ...): a line whose first word has a small
    solid dot of ink just before it, on its height (``ScanSettings.bullet_size``, ``bullet_gap``, ``bullet_fill``;
    ``ink`` is the box's crop of the page's ink, whose pixels stand ``offset`` pixels before the table's).
    smog-43: ``• Do not delay reperfusion`` read ``Do not delay reperfusion``, the next line's bullet read ``¢``.

    >>> ink = np.zeros((40, 100), np.uint8); ink[8:12, 2:6] = 255; ink[28:32, 2:6] = 255
    >>> table = {"text": ["Do", "not", "\u00a2", "Move"], "conf": [96, 96, 41, 96], "left": [10, 30, 2, 10],
    ...          "top": [4, 4, 28, 24], "width": [15, 20, 4, 30], "height": [10, 10, 4, 10], "block_num": [1] * 4,
    ...          "par_num": [1] * 4, "line_num": [1, 1, 2, 2]}
    >>> out = unread_bullets(table, ink, 0, ScanSettings())
    >>> out["text"][4:], out["left"][4:], out["line_num"][4:]
    (['\u2022'], [2], [1])
    """
    low, high = settings.bullet_size
    if high <= 0:
        return data
    lines: dict[tuple[int, int, int], list[int]] = defaultdict(list)
    for i, text in enumerate(data.get("text", [])):
        # a bullet read with little confidence (``¢``, 7, on smog-43 at 150 dpi) is still a line's first word
        if str(text).strip() and (float(data["conf"][i]) >= settings.min_box_conf
                                  or str(text).strip() in BULLET_READS):
            lines[(int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))].append(i)
    firsts = {key: min(idx, key=lambda i: int(data["left"][i])) for key, idx in lines.items()}
    opens = {key: str(data["text"][i]).strip() in BULLET_READS and len(lines[key]) > 1 for key, i in firsts.items()}
    if not any(opens.values()):
        return data
    count, _, stats, _ = cv2.connectedComponentsWithStats((ink > 0).astype(np.uint8), connectivity=8)
    dots = [tuple(int(v) for v in stats[k][:5]) for k in range(1, count)]
    out = {k: list(v) for k, v in data.items()}
    narrow, wide = settings.bullet_aspect

    def dot_before(key: tuple[int, int, int], left: int) -> tuple[int, int, int, int] | None:
        """A small solid dot ending at most ``bullet_gap`` line heights before ``left``, on the line's height."""
        rest = [i for i in lines[key] if i != firsts[key]] or lines[key]
        top = min(int(data["top"][i]) for i in rest) - offset
        bottom = max(int(data["top"][i]) + int(data["height"][i]) for i in rest) - offset
        size = bottom - top
        for x, y, w, h, area in dots:
            if (low * size <= max(w, h) <= high * size and narrow * h <= w <= wide * h
                    and area >= settings.bullet_fill * w * h
                    and left - settings.bullet_gap * size <= x + w <= left and top <= y + h / 2 <= bottom):
                return x, y, w, h
        return None

    for key, first in firsts.items():
        if opens[key]:
            # a bullet read with little confidence is kept where a dot stands there (its own box holds it)
            if float(data["conf"][first]) < settings.min_box_conf:
                word_right = int(data["left"][first]) + int(data["width"][first]) - offset
                if dot_before(key, word_right + 1) is not None:
                    out["text"][first], out["conf"][first] = "\u2022", float(settings.min_box_conf)
            continue
        top = min(int(data["top"][i]) for i in lines[key]) - offset
        bottom = max(int(data["top"][i]) + int(data["height"][i]) for i in lines[key]) - offset
        size = bottom - top
        left = int(data["left"][first]) - offset
        for x, y, w, h, area in dots:
            if (low * size <= max(w, h) <= high * size and narrow * h <= w <= wide * h
                    and area >= settings.bullet_fill * w * h
                    and left - settings.bullet_gap * size <= x + w <= left and top <= y + h / 2 <= bottom):
                for k in out:
                    out[k].append({"text": "\u2022", "conf": 96.0, "left": x + offset, "top": y + offset, "width": w,
                                   "height": h, "block_num": key[0], "par_num": key[1],
                                   "line_num": key[2]}.get(k, 0))
                break
    return out


def drop_tall_noise(data: dict[str, list[Any]], settings: ScanSettings) -> dict[str, list[Any]]:
    """The word table without the words far taller than the page's text lines (``free_tall_ratio`` × the median
    height of the confidently read words) that tesseract read with little confidence (below
    ``free_tall_conf``): a slanted arrow and the label at its head read as one tall word (smog-46: ``↘YES`` read
    ``Mies``, 27 pt tall among 8 pt labels). Such a word hides the arrow from the connector step and, in the
    word rows, joins labels standing far apart on the page into one. Titles are tall too, but read clearly."""
    texts = data.get("text", [])
    heights = [int(data["height"][i]) for i, text in enumerate(texts)
               if str(text).strip() and float(data["conf"][i]) >= settings.free_tall_conf]
    if not heights:
        return data
    limit = settings.free_tall_ratio * float(np.median(heights))
    conf = [-1.0 if str(text).strip() and int(data["height"][i]) > limit
            and float(data["conf"][i]) < settings.free_tall_conf else data["conf"][i]
            for i, text in enumerate(texts)]
    return {**data, "conf": conf}


_ARROW_READS = re.escape("<>\u2014\u2013\u2190\u2192-=+\u00ab\u00bb~_|")  # what tesseract makes of an arrow


def glued_label(word: str, is_label: Callable[[str], bool]) -> tuple[int, int] | None:
    """Where the branch label lies in a word read glued to the line or arrow it stands on (``<—yYES``,
    ``—No``, ``+Nno—``): the label's start and end in ``word``, or None when the word is no such reading. Signs
    must stand on at least one side; a letter right after the leading signs is taken for the arrow's head only
    when the label is a branch word without it (never a letter before trailing signs: ``Now—`` is no ``No``).
    A word without signs is left alone.

    >>> is_label = lambda text: text.lower() in {"yes", "no", "or"}
    >>> [glued_label(w, is_label) for w in ("<\u2014yYES", "\u2014No", "+Nno\u2014", "No", "Now\u2014", "OR")]
    [(3, 6), (1, 3), (2, 4), None, None, None]
    """
    signs = f"[{_ARROW_READS}]"
    lead = re.match(rf"{signs}+", word)
    trail = re.search(rf"{signs}+$", word)
    start, end = (lead.end() if lead else 0), (trail.start() if trail else len(word))
    if (start == 0 and end == len(word)) or start >= end or not word[start:end].isalpha():
        return None
    candidates = [(start, end)] + ([(start + 1, end)] if lead and end - start > 1 else [])
    return next(((a, b) for a, b in candidates if is_label(word[a:b])), None)


def unglued_branch_labels(data: dict[str, list[Any]], settings: ScanSettings) -> dict[str, list[Any]]:
    """The word table with each branch label read glued to the line or arrow it stands on (``<—yYES``: the
    shaft and head read as signs and a stray letter; ``—No``: the line's end read as a dash) cut down to the
    label (:func:`glued_label`): the word's box keeps the label's share of its width, so the strokes on either
    side stand clear of it, and a label read with less than ``min_free_conf`` (the glued signs cost it its
    confidence) counts as read with it when it reached ``glued_label_min_conf``.

    >>> d = {"text": ["<\u2014yYES", "<+\u2014", "Yes", "\u2014No"], "conf": [46, 23, 30, 91],
    ...      "left": [0, 50, 90, 120], "top": [0, 0, 0, 0], "width": [60, 20, 30, 30], "height": [10, 10, 10, 10]}
    >>> out = unglued_branch_labels(d, ScanSettings())
    >>> out["text"], out["conf"], out["left"], out["width"]
    (['YES', '<+\u2014', 'Yes', 'No'], [50.0, 23, 30, 91.0], [30, 50, 90, 130], [30, 20, 30, 20])
    """
    assembly = settings.pipeline_assembly
    out = {k: list(v) for k, v in data.items()}
    for i, raw in enumerate(data.get("text", [])):
        word = str(raw).strip()
        conf = float(data["conf"][i])
        span = glued_label(word, assembly.is_branch_label) if conf >= settings.glued_label_min_conf else None
        if span is None:
            continue
        left, width = int(data["left"][i]), int(data["width"][i])
        start = left + round(width * span[0] / len(word))
        end = left + round(width * span[1] / len(word))
        out["text"][i], out["conf"][i] = word[span[0]:span[1]], max(conf, float(settings.min_free_conf))
        out["left"][i], out["width"][i] = start, end - start
    return out


def free_tokens(page: PageImage, shapes: list[FoundShape], settings: ScanSettings) -> list[Token]:
    """Words outside the shapes (connector labels, titles, footers), with the boxes blanked out."""
    image = page.gray.copy()
    h, w = image.shape
    for shape in shapes:
        x0, y0, x1, y1 = shape.cover
        image[max(0, y0): min(h, y1), max(0, x0): min(w, x1)] = 255
    data = drop_tall_noise(_image_to_data(image, settings.free_psm, settings.ocr_timeout_s), settings)
    data = unglued_branch_labels(data, settings)
    tokens = [glyph_box(t, page, settings) for t in words_to_tokens(data, (0, 0), page.ppt, settings.min_free_conf,
                                                                    settings)
              if not t.text.strip() or any(c.isalnum() for c in t.text)]
    return without_heads_read_as_letters(tokens, page, shapes, settings)


def without_heads_read_as_letters(tokens: list[Token], page: PageImage, shapes: list[FoundShape],
                                  settings: ScanSettings) -> list[Token]:
    """``tokens`` without the words of at most ``free_head_max_chars`` characters standing over a solid arrowhead
    (the ink outside the boxes that survives an opening wider than a stroke, ``head_min_pt``-``head_max_pt``
    across): tesseract reads a short arrow's head as ``v``, ``V`` or ``A``, and a word's box hides its ink from
    the connector step (smog-48, the arrow between two stacked boxes read ``v``). Letters of text are thinner
    than the opening; what survives of a bold letter fills its box's height, while a head spans the box across and
    leaves room along it for its stem (``free_head_share``: at least the first share across, at most the second
    along), a straight run of ink along ``free_head_stem`` of the room on its longer side."""
    if settings.free_head_max_chars <= 0:
        return tokens
    ink = page.ink.copy()
    h, w = ink.shape
    for shape in shapes:
        x0, y0, x1, y1 = shape.cover
        ink[max(0, y0): min(h, y1), max(0, x0): min(w, x1)] = 0
    k = page.px(settings.head_open_pt, 3)
    solid = cv2.morphologyEx(ink, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    count, _, stats, centroids = cv2.connectedComponentsWithStats(solid, connectivity=8)
    least, most = settings.head_min_pt * page.ppt, settings.head_max_pt * page.ppt
    heads = [(centroids[i], stats[i]) for i in range(1, count)
             if least <= max(stats[i][2], stats[i][3]) <= most
             and min(stats[i][2], stats[i][3]) >= settings.head_min_aspect * max(stats[i][2], stats[i][3])]
    if not heads:
        return tokens
    ppt = page.ppt
    across, along = settings.free_head_share

    def over_head(token: Token) -> bool:
        text = token.text.strip()
        if not text or len(text) > settings.free_head_max_chars:
            return False
        b = token.bbox
        bw, bh = b.width * ppt, b.height * ppt
        x0, y0, x1, y1 = (int(round(v * ppt)) for v in (b.x0, b.top, b.x1, b.bottom))
        for (cx, cy), (hx, hy, hw, hh, _) in heads:
            if not (x0 <= cx <= x1 and y0 <= cy <= y1):
                continue
            # the head spans the word's box across and leaves room along it for its stem, a straight run of ink on
            # one side of it; what survives of a bold letter fills its box's height (``4``, ``e``), or has no
            # straight stem beside it (the foot of a ``2``)
            if hw >= across * bw and hh <= along * bh:
                col = page.ink[:, max(0, int(cx) - 1): int(cx) + 2].max(axis=1)
                stems = (col[y0:hy], col[hy + hh:y1])
            elif hh >= across * bh and hw <= along * bw:
                row = page.ink[max(0, int(cy) - 1): int(cy) + 2, :].max(axis=0)
                stems = (row[x0:hx], row[hx + hw:x1])
            else:
                continue
            stem = max(stems, key=len)
            if stem.size and np.count_nonzero(stem) >= settings.free_head_stem * stem.size:
                return True
        return False

    return [t for t in tokens if not over_head(t)]


def glyph_box(token: Token, page: PageImage, settings: ScanSettings) -> Token:
    """``token`` with its box cut down to its letters when tesseract boxed a connector with the word (``NO`` and
    the arrow beside it read as one word, smog-48 and smog-50): the word's box hides whatever it covers from the
    connector step, so the arrow was lost. Inside the box, an ink piece is a line, not a letter, when along one
    axis it is more than ``free_line_ratio`` times as long as the median height of the word's pieces and holds a
    straight run of at least ``line_min_pt`` along that axis, and nothing as tall as half a letter is left of it
    without that run and a solid arrowhead (smog-46: ``unstable``, its last letters glued to the head pointing
    at it, stays one word); the box becomes the union of the other pieces."""
    if settings.free_line_ratio <= 0 or not token.text.strip():
        return token
    ppt = page.ppt
    h, w = page.ink.shape
    x0, y0 = max(0, int(token.bbox.x0 * ppt)), max(0, int(token.bbox.top * ppt))
    x1, y1 = min(w, int(token.bbox.x1 * ppt) + 1), min(h, int(token.bbox.bottom * ppt) + 1)
    crop = np.ascontiguousarray(page.ink[y0:y1, x0:x1])
    if crop.size == 0:
        return token
    count, labels, stats, _ = cv2.connectedComponentsWithStats(crop, connectivity=8)
    least = page.px(settings.head_min_pt)
    pieces = [i for i in range(1, count) if max(stats[i][2], stats[i][3]) >= least]
    if len(pieces) < 2:
        return token
    median = float(np.median([stats[i][3] for i in pieces]))
    letters = [i for i in pieces if not _line_piece((labels == i).astype(np.uint8), median, page, settings)]
    if len(letters) == len(pieces) or not letters:
        return token
    lx0 = min(int(stats[i][0]) for i in letters)
    ly0 = min(int(stats[i][1]) for i in letters)
    lx1 = max(int(stats[i][0] + stats[i][2]) for i in letters)
    ly1 = max(int(stats[i][1] + stats[i][3]) for i in letters)
    box = BBox((x0 + lx0) / ppt, (y0 + ly0) / ppt, (x0 + lx1) / ppt, (y0 + ly1) / ppt)
    return Token(token.text, box, token.size)


def _line_piece(piece: np.ndarray, letter: float, page: PageImage, settings: ScanSettings) -> bool:
    """Whether one ink piece of a free word's box is a connector (see :func:`glyph_box`): long along an axis,
    with a straight run along it, and with that run and any solid head taken away no more than specks."""
    ys, xs = np.nonzero(piece)
    height, width = int(ys.max() - ys.min() + 1), int(xs.max() - xs.min() + 1)
    run = page.px(settings.line_min_pt, 3)
    across = page.px(0.5)  # the run's blurred edge
    k = page.px(settings.head_open_pt, 3)
    ellipse = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    for along_x, extent in ((False, height), (True, width)):
        if extent <= settings.free_line_ratio * letter or extent < run:
            continue
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (run, 1) if along_x else (1, run))
        line = cv2.morphologyEx(piece, cv2.MORPH_OPEN, kernel)
        if not line.any():
            continue
        grow = cv2.getStructuringElement(cv2.MORPH_RECT, (1, 2 * across + 1) if along_x else (2 * across + 1, 1))
        rest = cv2.bitwise_and(piece, cv2.bitwise_not(cv2.dilate(line, grow)))
        head = cv2.dilate(cv2.morphologyEx(rest, cv2.MORPH_OPEN, ellipse), ellipse)
        rest = cv2.bitwise_and(rest, cv2.bitwise_not(head))
        count, _, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
        if all(max(stats[i][2], stats[i][3]) < 0.5 * letter for i in range(1, count)):
            return True
    return False


def token_rects(tokens: list[Token], ppt: float) -> list[tuple[int, int, int, int]]:
    """Pixel rectangles of the visible tokens."""
    return [(int(t.bbox.x0 * ppt), int(t.bbox.top * ppt), int(t.bbox.x1 * ppt) + 1, int(t.bbox.bottom * ppt) + 1)
            for t in tokens if t.text.strip()]
