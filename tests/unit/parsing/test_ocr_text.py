"""Pure OCR text repairs: footnote-key sequences, marker re-reads, Roman numerals."""

from __future__ import annotations

import pytest

from dkg.parsing.ocr_text import (
    clean_marker_read,
    fix_case_confusions,
    fix_roman_numerals,
    infer_key_sequence,
    reconcile_note_keys,
)


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


def test_note_keys_follow_the_sorted_marker_keys_when_counts_match() -> None:
    # the tiny keys of entries 3 and 6 were misread; the boxes use exactly six keys
    assert reconcile_note_keys(["a", "b", "?", "e", "f", "x"], ["f", "a", "k", "c", "b", "e", "a"]) == [
        "a", "b", "c", "e", "f", "k"]


def test_note_keys_fill_a_gap_only_when_the_order_forces_it() -> None:
    # boxes use a, c, d, e: the entry between "a" and "d" can only be "c"
    assert reconcile_note_keys(["a", "", "d"], ["a", "c", "d", "e"]) == ["a", "c", "d"]
    # the last entry could be "d" or "e": its read is kept
    assert reconcile_note_keys(["a", "c", "q"], ["a", "c", "d", "e"]) == ["a", "c", "q"]


def test_note_keys_kept_when_fewer_keys_are_used_than_entries() -> None:
    assert reconcile_note_keys(["a", "b", "c"], ["a", "b"]) == ["a", "b", "c"]
    assert reconcile_note_keys([], ["a"]) == []


def test_unread_box_markers_are_no_note_keys() -> None:
    # two box markers were unread ("?"); counting them as keys would force "?" onto the first entry
    assert reconcile_note_keys(["e", "f", "g", "w"], ["?", "e", "m", "g", "?"]) == ["e", "f", "g", "w"]


def test_note_keys_sort_numbers_by_value() -> None:
    assert reconcile_note_keys(["", "", ""], ["10", "2", "9"]) == ["2", "9", "10"]


def test_case_confusions_are_undone_and_real_mixed_case_words_kept() -> None:
    assert fix_case_confusions("|notuzumab") == "Inotuzumab"
    assert fix_case_confusions("inotuZumab and cabozantiniB") == "inotuzumab and cabozantiniB"
    assert fix_case_confusions("TKis, MRIs") == "TKIs, MRIs"
    for kept in ("pH 7.4", "eGFR", "iPSC", "BCR::ABL1", "T-cell", "McDonald", "NSAIDs", "a|b"):
        assert fix_case_confusions(kept) == kept
