"""Shape signatures of small raised glyphs (footnote markers) on scanned pages.

A footnote key printed in a box and the same key opening its footnote are the same letter in the same font,
scanned the same way: comparing their shapes tells which footnote a marker cites when OCR cannot read the
tiny letter itself. Pure numpy/OpenCV; no OCR here.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

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
    small = cv2.resize(square, (SIDE, SIDE), interpolation=cv2.INTER_AREA).astype(np.float32)
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
    corr = float((a.pixels * b.pixels).sum())
    ratio = min(a.aspect, b.aspect) / max(a.aspect, b.aspect)
    return corr * (0.5 + 0.5 * ratio)


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
