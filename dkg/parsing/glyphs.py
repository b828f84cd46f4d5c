"""Shape signatures of small raised glyphs (footnote markers) on scanned pages.

A footnote key printed in a box and the same key opening its footnote are the same letter in the same font,
scanned the same way: comparing their shapes tells which footnote a marker cites when OCR cannot read the
tiny letter itself. Pure numpy/OpenCV; no OCR here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from dkg.parsing.ocr_text import THIN_LETTERS

SIDE = 16


@dataclass(frozen=True)
class GlyphSignature:
    """The ink of one glyph scaled into a ``SIDE`` × ``SIDE`` square (zero mean, unit norm) and its aspect."""

    pixels: np.ndarray
    aspect: float
    ink: np.ndarray  # the glyph's binary ink, cropped tight, at scan resolution


def glyph_signature(crop: np.ndarray) -> GlyphSignature | None:
    """Signature of the ink in a greyscale crop (dark ink on light paper); None when the crop holds no ink.

    >>> img = np.full((20, 20), 255, dtype=np.uint8); img[4:16, 8:11] = 0
    >>> sig = glyph_signature(img)
    >>> sig.pixels.shape, round(sig.aspect, 2)
    ((16, 16), 0.25)
    """
    if crop is None or crop.size == 0 or crop.min() > 160:
        return None
    _, ink = cv2.threshold(crop, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    # the crop also catches bits of neighbouring letters (a descender from the line above, the tail of the
    # letter before): keep the largest ink component and what lies within its box (the dot of an i or j)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if count > 2:
        main = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        x, y, w, h = stats[main, :4]
        keep = [main] + [c for c in range(1, count) if c != main and stats[c, 0] >= x - 1
                         and stats[c, 0] + stats[c, 2] <= x + w + 1 and stats[c, 1] + stats[c, 3] >= y - h // 2
                         and stats[c, 1] <= y + h]
        ink = np.where(np.isin(labels, keep), 255, 0).astype(np.uint8)
    ys, xs = np.nonzero(ink)
    if len(xs) < 4:
        return None
    ink = ink[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    h, w = ink.shape
    side = max(h, w)
    square = np.zeros((side, side), dtype=np.uint8)  # keep the aspect: a glyph is centred, not stretched
    square[(side - h) // 2: (side - h) // 2 + h, (side - w) // 2: (side - w) // 2 + w] = ink
    small: np.ndarray = cv2.resize(square, (SIDE, SIDE), interpolation=cv2.INTER_AREA).astype(np.float32)
    small = cv2.GaussianBlur(small, (3, 3), 0)
    small -= small.mean()
    norm = float(np.linalg.norm(small))
    if norm == 0:
        return None
    return GlyphSignature(small / norm, w / h, ink)


def glyph_similarity(a: GlyphSignature, b: GlyphSignature) -> float:
    """Correlation of two signatures (1 = same shape), lowered when their width/height ratios differ.

    >>> img = np.full((20, 20), 255, dtype=np.uint8); img[4:16, 8:11] = 0
    >>> other = np.full((20, 20), 255, dtype=np.uint8); other[8:11, 2:18] = 0
    >>> s = glyph_signature(img)
    >>> round(glyph_similarity(s, s), 3), glyph_similarity(s, glyph_signature(other)) < 0.3
    (1.0, True)
    """
    return float(_weighted(float((a.pixels * b.pixels).sum()), a.aspect, b.aspect))


def _weighted(corr: Any, aspect: Any, other: Any) -> Any:
    """A correlation lowered when the two width/height ratios differ (numbers or numpy arrays)."""
    return corr * (0.5 + 0.5 * np.minimum(aspect, other) / np.maximum(aspect, other))


def marker_key_similarity(marker: GlyphSignature, key: GlyphSignature) -> float:
    """How much a box marker looks like a footnote key: the better of the signature correlation and the best
    normalised match of the key's ink, scaled to the marker's height, anywhere in the marker's ink (a marker
    fused to the letter before it carries part of that letter beside it)."""
    whole = glyph_similarity(marker, key)
    h, w = marker.ink.shape
    kh, kw = key.ink.shape
    scale = h / kh
    template = cv2.resize(key.ink, (max(2, int(round(kw * scale))), max(2, h)), interpolation=cv2.INTER_AREA)
    pad = 2
    target = cv2.copyMakeBorder(marker.ink, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    if template.shape[0] > target.shape[0] or template.shape[1] > target.shape[1] or template.std() == 0:
        return whole
    score = float(cv2.matchTemplate(target.astype(np.float32), template.astype(np.float32),
                                    cv2.TM_CCOEFF_NORMED).max())
    return max(whole, score)


def stem_letter(sig: GlyphSignature) -> str | None:
    """``i``, ``j`` or ``l`` when a marker glyph is a single thin stem, told apart by their shapes: a dot
    above the stem (an empty row between them) makes an ``i``, or a ``j`` when the stem ends in a hook wider
    than itself; a plain stem of even width is an ``l``. None for anything else (a wider glyph, an ``f``
    with its hook and bar, a stem carrying bits of its neighbours). These thin letters are the keys OCR most
    often leaves unread.

    >>> stem = np.zeros((22, 4), dtype=np.uint8); stem[:, 1:3] = 255
    >>> dotted = stem.copy(); dotted[3:5] = 0
    >>> hooked = np.zeros((28, 6), dtype=np.uint8); hooked[:, 3:5] = 255; hooked[3:5] = 0; hooked[24:27, 0:5] = 255
    >>> [stem_letter(glyph_signature(255 - g)) for g in (stem, dotted, hooked)]
    ['l', 'i', 'j']
    """
    ink = sig.ink > 0
    height, width = ink.shape
    if height < 8 or width > 0.5 * height:
        return None
    filled = np.asarray(ink.any(axis=1))
    spans = _row_widths(ink)
    stem = float(np.median([s for s in spans[height // 3: 3 * height // 4] if s] or [0]))
    if stem == 0:
        return None
    top = height * 45 // 100
    dotted = any(not filled[r] and filled[:r].any() for r in range(1, top))
    if dotted:
        hook = max(spans[3 * height // 4:]) >= 1.6 * stem
        return "j" if hook else "i"
    return "l" if max(spans) < 1.6 * stem else None


def is_bare_bar(ink: np.ndarray) -> bool:
    """Whether a glyph's ink (non-zero = ink) is a bare upright bar, as the capital I and small l of a sans
    font are: about as wide on every row and at least three times as tall. The digit 1 is not: it has a flag
    at its top left and usually a foot.

    >>> bar = np.zeros((22, 5), np.uint8); bar[:, 1:4] = 1
    >>> one = np.pad(bar, ((0, 0), (4, 4))); one[2:5, 1:6] = 1; one[-2:, :] = 1
    >>> is_bare_bar(bar), is_bare_bar(one)
    (True, False)
    """
    widths = np.array([w for w in _row_widths(ink > 0) if w])
    if len(widths) < 3:
        return False
    stem = float(np.median(widths))
    return bool(len(widths) >= 3 * stem and widths.max() <= max(stem + 2, 1.6 * stem))


def _row_widths(ink: np.ndarray) -> list[int]:
    """Per row of a boolean glyph image, the width from its first to its last ink pixel (0 for an empty row)."""
    return [int(cols[-1] - cols[0] + 1) if cols.size else 0 for cols in (np.flatnonzero(row) for row in ink)]


# a template match decides a marker's key only when it is this good and this far ahead of the next letter
TEMPLATE_MIN = 0.85
TEMPLATE_MARGIN = 0.08
TEMPLATE_SAMPLES = 40  # body-text glyphs kept per letter and page


class LetterTemplates:
    """Glyph signatures of the page's own body-text letters, by the letter tesseract read them as.

    A footnote marker is a letter of the same font as the text around it, only smaller; its shape
    signature (scale-free) compares with the page's full-size letters far better than tesseract reads the
    tiny raised glyph. Letters are collected from words tesseract read, one glyph per blob it boxed alone.
    """

    def __init__(self) -> None:
        self._samples: dict[str, list[GlyphSignature]] = {}

    def add(self, letter: str, sig: GlyphSignature | None) -> None:
        samples = self._samples.setdefault(letter, [])
        if sig is not None and len(samples) < TEMPLATE_SAMPLES:
            samples.append(sig)

    def wants(self, letter: str) -> bool:
        return len(self._samples.get(letter, ())) < TEMPLATE_SAMPLES

    def scores(self, sig: GlyphSignature) -> list[tuple[float, str]]:
        """``(score, letter)`` best first: the mean similarity to the letter's five closest samples."""
        out = []
        for letter, samples in self._samples.items():
            if not samples:
                continue
            pixels = np.stack([s.pixels for s in samples])
            aspects = np.array([s.aspect for s in samples])
            sims = np.sort(_weighted((pixels * sig.pixels).sum(axis=(1, 2)), aspects, sig.aspect))[::-1]
            out.append((float(sims[:5].mean()), letter))
        return sorted(out, reverse=True)

    def letter(self, sig: GlyphSignature) -> str | None:
        """The letter a marker glyph clearly is, or None. The thin i, j and l match each other's stems about
        as well as their own and are left to :func:`stem_letter`."""
        ranked = self.scores(sig)
        if len(ranked) < 2:
            return None
        (best, letter), (second, _) = ranked[0], ranked[1]
        if letter in THIN_LETTERS or best < TEMPLATE_MIN or best - second < TEMPLATE_MARGIN:
            return None
        return letter
