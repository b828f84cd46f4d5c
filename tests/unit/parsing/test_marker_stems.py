"""Thin footnote markers (i, j, l) told apart by the shape of their stem, and the footnote whose key OCR
could not read keyed by the thin marker that cites it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from dkg.parsing.document import _key_unread_notes_by_stems, repair_ocr_markers
from dkg.parsing.glyphs import glyph_signature, stem_letter
from dkg.parsing.textlayout import Piece


def _glyph(letter: str) -> Any:
    """A scanned-looking marker glyph (dark on light) of a thin letter, 22-28 px tall."""
    ink = np.zeros((28 if letter == "j" else 22, 6), dtype=np.uint8)
    ink[:, 2:4] = 255
    if letter in "ij":
        ink[3:5] = 0  # the gap under the dot
    if letter == "j":
        ink[24:27, 0:4] = 255  # the hook
    if letter == "f":
        ink[0:2, 2:6] = 255
        ink[8:10, 0:6] = 255  # the bar
    return glyph_signature(255 - ink)


def _marker(keys: tuple[str, ...], glyph: Any) -> Piece:
    return Piece(",".join(keys), keys, glyph)


def test_the_stem_tells_i_j_and_l_and_refuses_other_letters() -> None:
    assert [stem_letter(_glyph(c)) for c in "ijl"] == ["i", "j", "l"]
    assert stem_letter(_glyph("f")) is None
    wide = np.full((20, 20), 255, dtype=np.uint8)
    wide[4:16, 2:18] = 0
    assert stem_letter(glyph_signature(wide)) is None


def _state(keys: list[str]) -> SimpleNamespace:
    return SimpleNamespace(doc_entries=[(k, f"note {n}", None) for n, k in enumerate(keys)], note_keys={})


def test_an_unread_marker_keys_the_unread_footnote_where_its_letter_fits() -> None:
    state = _state(["h", "?", "k"])
    marker = _marker(("?",), _glyph("j"))
    others = [_marker(("h",), _glyph("l")), _marker(("k",), _glyph("l"))]
    assert _key_unread_notes_by_stems(state, [marker, *others], state.doc_entries)
    assert marker.keys == ("j",)
    assert [k for k, _, _ in state.doc_entries] == ["h", "j", "k"]


def test_no_footnote_is_keyed_where_the_letter_does_not_fit_or_the_place_is_open() -> None:
    for keys in (["a", "?", "c"], ["h", "i", "?"]):  # j is not between a and c; after i it could be any letter
        state = _state(keys)
        marker = _marker(("?",), _glyph("j"))
        assert not _key_unread_notes_by_stems(state, [marker], state.doc_entries)
        assert marker.keys == ("?",) and [k for k, _, _ in state.doc_entries] == keys


def test_a_marker_with_a_letter_read_or_a_short_stem_is_left_alone() -> None:
    state = _state(["h", "?", "k"])
    read = _marker(("s",), _glyph("j"))  # a read letter is not overruled here
    assert not _key_unread_notes_by_stems(state, [read], state.doc_entries)
    short = np.zeros((10, 4), dtype=np.uint8)
    short[:, 1:3] = 255
    fragment = _marker(("?",), glyph_signature(255 - short))  # shorter than the page's other markers
    tall = [_marker(("h",), _glyph("j")), _marker(("k",), _glyph("j"))]
    assert not _key_unread_notes_by_stems(state, [fragment, *tall], state.doc_entries)


def _drawn(letter: str, size: int) -> np.ndarray:
    """A dark glyph on light paper: ``o`` a ring, ``c`` a ring open to the right, ``x`` a cross, ``l`` a stem."""
    import cv2

    img = np.full((size + 8, size + 8), 255, dtype=np.uint8)
    c, r, t = (size + 8) // 2, size // 2, max(2, size // 7)
    if letter in "oc":
        cv2.circle(img, (c, c), r, 0, t)
    if letter == "c":
        img[c - r // 2: c + r // 2, c:] = 255
    if letter == "x":
        cv2.line(img, (4, 4), (size + 3, size + 3), 0, t)
        cv2.line(img, (4, size + 3), (size + 3, 4), 0, t)
    if letter == "l":
        img[4: size + 4, c - t // 2: c + t // 2 + 1] = 0
    return img


def test_a_marker_is_the_page_letter_its_glyph_clearly_matches() -> None:
    from dkg.parsing.glyphs import LetterTemplates

    templates = LetterTemplates()
    for letter in "ocxl":
        for size in (28, 30, 32):  # the page's full-size letters
            templates.add(letter, glyph_signature(_drawn(letter, size)))
    for letter in "ocx":  # a raised marker is the same letter, smaller
        assert templates.letter(glyph_signature(_drawn(letter, 14))) == letter
    assert templates.letter(glyph_signature(_drawn("l", 14))) is None  # thin letters go by their stem
    between = _drawn("o", 14)
    between[9:12, 12:] = 255  # a ring with a small opening: as much an o as a c
    assert templates.letter(glyph_signature(between)) is None  # no letter clearly ahead


def test_a_dotted_stem_much_taller_than_the_page_markers_is_a_j_whose_hook_was_cut_off() -> None:
    from dkg.parsing.document import _stem_letter

    def dotted(height: int) -> Any:
        ink = np.zeros((height, 4), dtype=np.uint8)
        ink[:, 1:3] = 255
        ink[3:5] = 0
        return glyph_signature(255 - ink)

    page = [_marker(("h",), _glyph("l")), _marker(("k",), _glyph("l")), _marker(("f",), _glyph("l"))]  # 22 px
    assert _stem_letter(dotted(22), page) == "i"
    assert _stem_letter(dotted(28), page) == "j"
    assert _stem_letter(dotted(14), page) is None  # a fragment


def test_a_marker_read_as_several_keys_loses_the_unprinted_ones_before_its_first_printed_key() -> None:
    from dkg.parsing.document import printed_keys

    assert printed_keys(("o", "p"), ["e", "p", "w"]) == ("p",)  # the P's bowl before a raised p
    assert printed_keys(("a", "m"), ["a", "m"]) == ("a", "m")
    assert printed_keys(("a", "f"), ["a", "d"]) == ("a", "f")  # the f footnote may be the one not read
    assert printed_keys(("q",), ["a"]) == ("q",)  # a single misread key is left to the repairs after it
    assert printed_keys(("x", "y"), ["a"]) == ("x", "y")


def test_an_unread_marker_never_takes_an_unread_footnote_of_another_page() -> None:
    from dkg.parsing.document import citable_notes

    assert citable_notes({"a": "A.", "?": "Other page."}, {"b": "B."}) == {"a": "A.", "b": "B."}
    assert citable_notes({"?": "Other page."}, {"?": "This page."}) == {"?": "This page."}


def _page(entries: list[str], markers: list[Piece]) -> SimpleNamespace:
    """A scanned page whose footnotes are settled (``entries``) and whose boxes hold ``markers``."""
    box = SimpleNamespace(bbox=SimpleNamespace(top=0.0, x0=0.0),
                          block=SimpleNamespace(lines=[SimpleNamespace(pieces=markers)]))
    return SimpleNamespace(doc_entries=[(k, f"note {k}", None) for k in entries], note_keys={},
                           layout=SimpleNamespace(boxes=[box], bottom=[], code="X-1"))


def test_a_marker_read_as_a_footnote_of_other_pages_keeps_its_read() -> None:
    # the page lost its "e" footnote entry; the one footnote its markers leave uncited is "l"
    def markers() -> list[Piece]:
        return [_marker(("k",), None), Piece("e", ("e",)), _marker(("n",), None)]

    alone = markers()
    repair_ocr_markers(_page(["k", "l", "n"], alone))
    assert alone[1].keys == ("l",)  # without the other pages: matched to the uncited footnote
    kept = markers()
    repair_ocr_markers(_page(["k", "l", "n"], kept), frozenset({"e", "k"}))
    assert kept[1].keys == ("e",)


def test_a_thin_read_is_no_evidence_against_the_page() -> None:
    markers = [_marker(("k",), None), Piece("i", ("i",)), _marker(("n",), None)]
    repair_ocr_markers(_page(["k", "l", "n"], markers), frozenset({"i"}))
    assert markers[1].keys == ("l",)
