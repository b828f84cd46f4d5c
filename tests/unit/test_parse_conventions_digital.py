"""Text-layer conventions of the born-digital route (``digital.py``): ordinals, stray spaces, symbol glyphs."""

from __future__ import annotations

from dkg.parsing.digital import LIGATURES, _drop_covered_spaces, _ordinal_suffixes
from dkg.parsing.geometry import BBox
from dkg.parsing.models import Token


def test_raised_ordinal_suffix_after_a_digit_keeps_the_digits_size() -> None:
    tokens = [Token("1", BBox(0, 10, 5, 20), 10), Token("s", BBox(5, 9, 8, 15), 6), Token("t", BBox(8, 9, 10, 15), 6),
              Token(" ", BBox(10, 10, 12, 20), 10)]
    assert [t.size for t in _ordinal_suffixes(tokens)] == [10, 10, 10, 10]
    marker = [Token("d", BBox(0, 10, 5, 20), 10), Token("s", BBox(5, 9, 8, 15), 6), Token("t", BBox(8, 9, 10, 15), 6)]
    assert [t.size for t in _ordinal_suffixes(marker)] == [10, 6, 6]  # after a letter: a footnote marker


def test_space_glyph_drawn_over_a_letter_is_dropped() -> None:
    tokens = [Token("M", BBox(0, 10, 6, 20), 10), Token("o", BBox(6, 10, 11, 20), 10),
              Token(" ", BBox(7.5, 8, 10.5, 19), 11), Token("n", BBox(11, 10, 16, 20), 10),
              Token(" ", BBox(16, 10, 18, 20), 10)]
    assert "".join(t.text for t in _drop_covered_spaces(tokens)) == "Mon "


def test_ligatures_are_their_letters() -> None:
    assert LIGATURES["\ufb01"] == "fi" and LIGATURES["\ufb02"] == "fl"
