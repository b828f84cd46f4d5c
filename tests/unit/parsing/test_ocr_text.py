"""Pure OCR text repairs: footnote-key sequences, marker re-reads, Roman numerals."""

from __future__ import annotations

import pytest

from dkg.parsing.ocr_text import clean_marker_read, fix_roman_numerals, infer_key_sequence


def test_key_sequence_fills_unreadable_keys_from_order() -> None:
    assert infer_key_sequence(["f", "g", "h", "", "", "k"]) == ["f", "g", "h", "i", "j", "k"]


def test_key_sequence_overrides_a_minority_misread() -> None:
    assert infer_key_sequence(["a", "b", "q", "d"]) == ["a", "b", "c", "d"]


def test_key_sequence_keeps_reads_that_are_not_a_run() -> None:
    assert infer_key_sequence(["a", "x", "c", "m"]) == ["a", "x", "c", "m"]


def test_key_sequence_drops_non_letters_and_needs_two_agreeing_reads() -> None:
    assert infer_key_sequence(["?", "b"]) == ["", "b"]
    assert infer_key_sequence([]) == []


@pytest.mark.parametrize(("read", "allowed", "expected"), [
    ("f", "fghijk", "f"),
    ("h.k", "fghijk", "h,k"),
    ("hk", "fghijk", "h,k"),
    ("z", "fghijk", ""),
    ("A, b", "abc", "a,b"),
])
def test_clean_marker_read(read: str, allowed: str, expected: str) -> None:
    assert clean_marker_read(read, allowed) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Stage I-lll,", "Stage I-III,"),
    ("Stage |", "Stage I"),
    ("stage ll or lll", "stage II or III"),
    ("IV", "IV"),
    ("all of it; I'll see", "all of it; I'll see"),
    ("cell", "cell"),
])
def test_fix_roman_numerals(text: str, expected: str) -> None:
    assert fix_roman_numerals(text) == expected
