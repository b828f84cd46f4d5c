"""OCR letter/digit misreads of clinical abbreviations and units undone (``dkg.parsing.scan.readings``), on
tesseract word tables as a blurred 200 dpi scan gives them."""

from __future__ import annotations

import dataclasses

import pytest

from dkg.parsing.scan.readings import corrected_line, load_terms
from dkg.parsing.scan.settings import DEFAULT_SETTINGS, ScanSettings
from dkg.parsing.scan.text import words_to_tokens

TERMS = load_terms()


def _table(line: str) -> dict[str, list[object]]:
    """One OCR line of a box: each word 40 px wide, read with confidence 90."""
    words = line.split()
    return {
        "text": list(words), "conf": [90.0] * len(words), "left": [50 * i for i in range(len(words))],
        "top": [0] * len(words), "width": [40] * len(words), "height": [20] * len(words),
        "block_num": [1] * len(words), "par_num": [1] * len(words), "line_num": [1] * len(words),
    }


def _text(line: str, settings: ScanSettings = DEFAULT_SETTINGS) -> str:
    tokens = words_to_tokens(_table(line), (0, 0), 1.0, min_conf=10.0, settings=settings)
    return "".join(t.text for t in tokens)


@pytest.mark.parametrize(("read", "meant"), [
    ("Dopamine IV/10 5-20 meg/kg/min", "Dopamine IV/IO 5-20 mcg/kg/min"),
    ("Epinephrine IV / 10 2-10 meg/min", "Epinephrine IV / IO 2-10 mcg/min"),
    ("ST Elevation Ml or LBBB", "ST Elevation MI or LBBB"),
    ("If <90%Sp02 give O2", "If <90%SpO2 give O2"),
    ("Atropine 0.5rng IV or 10", "Atropine 0.5mg IV or IO"),
    ("Amiodarone Smg/kg bolus", "Amiodarone 5mg/kg bolus"),  # a dose: 5 read S
])
def test_look_alike_misreads_of_clinical_terms_are_undone(read: str, meant: str) -> None:
    assert _text(read) == meant
    # off, the words are kept as tesseract read them
    assert _text(read, dataclasses.replace(DEFAULT_SETTINGS, misread_max_swaps=0)) == read


@pytest.mark.parametrize("line", [
    "Give 10 mg IV",  # a dose: 10 is a number
    "Repeat q 10 minutes",
    "Score of 10 / 15",  # an alternative of a number, not of an abbreviation
    "2-10 mcg/min IV",
    "Consider CI in adults",  # CI is no look-alike of a lexicon entry it is not
])
def test_words_that_are_no_misread_stay_as_read(line: str) -> None:
    assert corrected_line(line.split(), TERMS, DEFAULT_SETTINGS.misread_max_swaps) == line.split()


def test_an_ambiguous_look_alike_is_left_alone() -> None:
    terms = frozenset({"IO", "lO"})  # 10 could be either: neither is chosen
    assert corrected_line(["IV", "/", "10"], terms | {"IV"}, 2) == ["IV", "/", "10"]


@pytest.mark.parametrize(("read", "meant"), [
    ("Dopamine IV /10 5-20 meg/kg/min", "Dopamine IV / IO 5-20 mcg/kg/min"),
    ("Epinephrine 1:10,000 IV/ 10", "Epinephrine 1:10,000 IV / IO"),
])
def test_a_slash_spaced_on_one_side_is_spaced_on_both(read: str, meant: str) -> None:
    assert _text(read) == meant
    tokens = words_to_tokens(_table(read), (0, 0), 1.0, min_conf=10.0, settings=DEFAULT_SETTINGS)
    visible = [t for t in tokens if t.text.strip()]
    assert all(a.bbox.x1 <= b.bbox.x0 for a, b in zip(visible, visible[1:], strict=False))  # in reading order


def test_a_slash_glued_on_both_sides_or_spaced_on_both_stays() -> None:
    assert _text("5-20 mcg/kg/min IV / IO") == "5-20 mcg/kg/min IV / IO"


@pytest.mark.parametrize(("read", "meant"), [
    ("Universal Patient Care Guideline O: (if Hypoxemic)", "Universal Patient Care Guideline O2 (if Hypoxemic)"),
    ("• Q2 (Titrate to 94-99% SpOz)", "• O2 (Titrate to 94-99% SpO2)"),  # Q read for O, z for the subscript 2
    ("EtCO> 35-45", "EtCO2 35-45"),
])
def test_a_subscript_digit_read_as_a_mark_is_given_back_where_it_makes_a_lexicon_entry(read: str, meant: str) -> None:
    assert _text(read) == meant


@pytest.mark.parametrize("line", ["Pearls: check airway", "Signs: O", "Give 8 oz", "Ratio 1:2"])
def test_a_colon_or_z_that_makes_no_lexicon_entry_stays(line: str) -> None:
    assert corrected_line(line.split(), TERMS, DEFAULT_SETTINGS.misread_max_swaps) == line.split()
