from __future__ import annotations

from dkg.parsing.geometry import BBox
from dkg.parsing.models import Token
from dkg.parsing.textlayout import TextBlock, build_lines, group_blocks, render


def word(text: str, x: float, baseline: float, size: float = 10.0, raise_by: float = 0.0) -> list[Token]:
    """Glyph tokens for ``text`` (0.5 em per glyph), spaces as space tokens."""
    tokens = []
    for char in text:
        top = baseline - size - raise_by
        tokens.append(Token(char, BBox(x, top, x + size * 0.5, baseline + 0.2 * size - raise_by), size))
        x += size * 0.5
    return tokens


def test_superscript_becomes_marker_and_expands_to_footnote() -> None:
    tokens = word("TKI", 0, 100) + word("a", 15.2, 100, size=6, raise_by=4) + word(" plus", 18.5, 100)
    lines = build_lines(tokens)
    assert len(lines) == 1
    original, expanded = render(TextBlock(lines), {"a": "Imatinib or dasatinib."})
    assert original == "TKI^a plus"
    assert expanded == "TKI (Imatinib or dasatinib.) plus"


def test_two_markers_are_joined_with_semicolons() -> None:
    tokens = word("CVD", 0, 100) + word("b,c", 15.2, 100, size=6, raise_by=4)
    original, expanded = render(TextBlock(build_lines(tokens)), {"b": "B note.", "c": "C note."})
    assert original == "CVD^{b,c}"
    assert expanded == "CVD (B note.; C note.)"


def test_missing_footnote_is_reported_not_invented() -> None:
    tokens = word("TKI", 0, 100) + word("z", 15.2, 100, size=6, raise_by=4)
    missing: list[str] = []
    _, expanded = render(TextBlock(build_lines(tokens)), {}, missing=missing)
    assert expanded == "TKI"
    assert missing == ["z"]


def test_unread_raised_key_is_a_marker_and_a_grounded_question_mark_is_text() -> None:
    tokens = word("TKI", 0, 100) + word("?", 15.2, 100, size=6, raise_by=4) + word(" or", 18.5, 100)
    missing: list[str] = []
    original, expanded = render(TextBlock(build_lines(tokens)), {}, missing=missing)
    assert (original, expanded, missing) == ("TKI^? or", "TKI or", ["?"])
    question = word("Relapse?", 0, 100)
    assert render(TextBlock(build_lines(question)), {})[1] == "Relapse?"


def test_lines_join_and_hyphenation_is_undone_only_for_word_breaks() -> None:
    lines = build_lines(word("intensive chemo-", 0, 100) + word("therapy for Ph-", 0, 113)
                        + word("positive disease", 0, 126))
    _, expanded = render(TextBlock(lines), {}, known_words=set())
    assert expanded == "intensive chemotherapy for Ph-positive disease"


def test_known_hyphenated_word_keeps_its_hyphen() -> None:
    lines = build_lines(word("age-", 0, 100) + word("adapted dosing", 0, 113))
    assert render(TextBlock(lines), {}, known_words={"age-adapted"})[1] == "age-adapted dosing"
    assert render(TextBlock(lines), {}, known_words={"ageadapted"})[1] == "ageadapted dosing"


def test_a_line_ending_in_a_greek_letter_and_hyphen_runs_on_without_a_space() -> None:
    # smog-46: "calcium channel blocker or β-" / "blocker if ..." is one word, as with a Latin letter
    lines = build_lines(word("channel blocker or β-", 0, 100) + word("blocker if", 0, 113))
    assert render(TextBlock(lines), {}, known_words=set())[1] == "channel blocker or β-blocker if"


def test_a_line_ending_in_a_word_set_off_by_hyphens_keeps_the_space() -> None:
    # smog-50: "Amiodarone ... IV / IO -or-" / "Procainamide ...": -or- is a word of its own
    lines = build_lines(word("IV / IO -or-", 0, 100) + word("Procainamide 15mg/kg", 0, 113))
    assert render(TextBlock(lines), {}, known_words=set())[1] == "IV / IO -or- Procainamide 15mg/kg"
    broken = build_lines(word("IV/IO or non-", 0, 100) + word("Procainamide", 0, 113))
    assert render(TextBlock(broken), {}, known_words=set())[1] == "IV/IO or non-Procainamide"


def test_far_apart_words_on_one_baseline_are_separate_lines() -> None:
    lines = build_lines(word("YES", 0, 100) + word("NO", 200, 100))
    assert [line.plain for line in lines] == ["YES", "NO"]


def test_group_blocks_keeps_close_lines_together() -> None:
    lines = build_lines(word("MRD-positive", 0, 100) + word("or unknown", 0, 112) + word("Other", 0, 200))
    blocks = group_blocks(lines)
    assert [len(b.lines) for b in blocks] == [2, 1]


def test_words_set_tight_without_space_glyphs_are_still_apart() -> None:
    # a producer that positions each word and writes no space glyph, with word gaps of 0.15 em (the real dev
    # pages' gaps before a space glyph are 0.13-0.23 em, their letters' at most 0.014 em bar line breaks)
    tokens = word("the", 0, 100) + word("patient", 16.5, 100) + word("meets", 53.0, 100)
    assert build_lines(tokens)[0].plain == "the patient meets"
    assert build_lines(word("patient", 0, 100))[0].plain == "patient"  # touching letters stay one word
