"""Marker glyph signatures: the same letter matches itself across size and junk, other letters do not."""

from __future__ import annotations

import cv2
import numpy as np

from dkg.parsing.glyphs import glyph_signature, marker_key_similarity


def letter(ch: str, scale: float, pad_left_junk: bool = False) -> np.ndarray:
    img = np.full((60, 60), 255, dtype=np.uint8)
    cv2.putText(img, ch, (20, 40), cv2.FONT_HERSHEY_SIMPLEX, scale, 0, 2, cv2.LINE_AA)
    if pad_left_junk:
        img[30:40, 2:12] = 0  # the tail of the letter before the marker, caught in its crop
    return img


def test_a_letter_matches_itself_at_another_size_better_than_other_letters() -> None:
    key = {ch: glyph_signature(letter(ch, 1.0)) for ch in "gewk"}
    for ch in "gewk":
        marker = glyph_signature(letter(ch, 0.8))
        assert marker is not None
        scores = {other: marker_key_similarity(marker, sig) for other, sig in key.items()}
        assert max(scores, key=scores.get) == ch, scores  # type: ignore[arg-type]


def test_junk_beside_the_marker_does_not_hide_its_letter() -> None:
    key = {ch: glyph_signature(letter(ch, 1.0)) for ch in "gew"}
    marker = glyph_signature(letter("w", 1.0, pad_left_junk=True))
    assert marker is not None
    scores = {other: marker_key_similarity(marker, sig) for other, sig in key.items()}
    assert max(scores, key=scores.get) == "w", scores  # type: ignore[arg-type]


def test_an_empty_crop_has_no_signature() -> None:
    assert glyph_signature(np.full((10, 10), 255, dtype=np.uint8)) is None
