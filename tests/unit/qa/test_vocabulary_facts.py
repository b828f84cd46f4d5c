"""Facts for an onboarded guideline's keys, read from its vocabulary file (the shipped cardiac-smog)."""

from __future__ import annotations

import pytest

from dkg.qa.grounding import _masked_facts
from dkg.qa.vocabulary_facts import onboarded_sources, vocabulary_facts

CARDIAC = ["cardiac-smog"]


def test_only_guidelines_without_sources_are_read() -> None:
    assert "cardiac-smog" in onboarded_sources()
    assert not {"ALL", "bone", "kidney"} & onboarded_sources()
    assert vocabulary_facts("Ph-positive B-ALL, MRD negative, stable disease", ["ALL"]) == {}


def test_one_wording_states_facts_of_several_keys() -> None:
    # 'hypotensive' is a sign of hemodynamic compromise (bradycardia page) and of instability (tachycardia page)
    facts = vocabulary_facts("HR 38, hypotensive, altered, complete heart block: what next?", CARDIAC)
    assert facts == {"heart_rate": 38.0, "signs_of_hemodynamic_compromise": "yes", "stable": "no",
                     "av_block": "high_grade"}


def test_the_longest_wording_of_a_key_wins_and_negation_reads_no() -> None:
    assert vocabulary_facts("HR 45, no signs of hemodynamic compromise", CARDIAC)[
        "signs_of_hemodynamic_compromise"] == "no"
    assert vocabulary_facts("sinus tach 115, stable, denies chest pain", CARDIAC)["chest_pain_sob_dizziness"] == "no"


def test_numbers_with_the_keys_unit_or_a_synonym() -> None:
    assert vocabulary_facts("Wenckebach at 40/min, in shock", CARDIAC)["heart_rate"] == 40.0
    assert vocabulary_facts("tachy at 190, BP 70/40", CARDIAC)["heart_rate"] == 190.0
    assert "heart_rate" not in vocabulary_facts("HR 4000", CARDIAC)  # outside the key's range


@pytest.mark.parametrize("text", ["rate still 38", "HR now 38", "pulse remains 38", "heart rate is now 38",
                                  "HR now down to 38", "hr stayed at 38", "HR: 38", "HR of 38"])
def test_a_value_is_read_across_words_that_say_it_persists_or_changed(text: str) -> None:
    assert vocabulary_facts(f"{text}, BP still 70 systolic", ["cardiac-smog"]) == {"heart_rate": 38.0, "bp": 70.0}


def test_a_value_further_than_two_linking_words_is_not_read() -> None:
    assert "heart_rate" not in vocabulary_facts("HR was noted by the medic as 38", ["cardiac-smog"])


def test_fact_words_are_no_treatment_phrase() -> None:
    masked = _masked_facts("Should a hypotensive, altered patient in SVT at 210 get synchronized cardioversion?")
    assert "hypotensive" not in masked and "synchronized cardioversion" in masked


def test_lab_values_with_thousands_separators_and_temperatures_in_either_scale() -> None:
    import re

    from dkg.qa.vocabulary_facts import _NUMBER, _UNIT, _convert
    from dkg.vocabulary import KeyKind, KeySpec

    assert [m.replace(",", "") for m in re.findall(_NUMBER, "WBC 13,500 then 3,900, 38.6 and 12,00")] == [
        "13500", "3900", "38.6", "12", "00"]
    temperature = KeySpec("temperature", KeyKind.NUMERIC, "Body temperature", unit="degC", minimum=25, maximum=45)
    assert _convert(101.3, "°F", temperature) == pytest.approx(38.5)
    assert _convert(38.5, "C", temperature) == 38.5
    pressure = KeySpec("peep", KeyKind.NUMERIC, "PEEP", unit="cmH2O", minimum=0, maximum=40)
    assert _convert(8, "cm H2O", pressure) == 8 and _convert(8, "mmHg", pressure) == pytest.approx(10.88, abs=0.01)
    assert re.fullmatch(_UNIT, "cm h2o") and re.fullmatch(_UNIT, "mm hg") and re.fullmatch(_UNIT, "°f")


def test_shorthand_changes_durations_and_thousands_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    from dkg.qa import vocabulary_facts as module
    from dkg.vocabulary import KeyKind, KeySpec

    specs = [KeySpec("antimicrobial_days", KeyKind.NUMERIC, "days", unit="day", minimum=0, maximum=60,
                     synonyms=("antibiotics for", "qualifying antimicrobial days"), source="g"),
             KeySpec("peep_increase", KeyKind.NUMERIC, "PEEP rise", unit="cmH2O", minimum=0, maximum=30, source="g"),
             KeySpec("wbc", KeyKind.NUMERIC, "WBC", unit="1/mm**3", minimum=100, maximum=200000, synonyms=("wbc",),
                     source="g")]
    monkeypatch.setattr(module, "_keys", lambda guidelines: specs)
    # 'abx' is the lexicon's shorthand for antibiotics; 'x5d' is 'for 5 days'
    assert module.vocabulary_facts("new abx x5d", ["g"]) == {"antimicrobial_days": 5.0}
    assert module.vocabulary_facts("continued 4 QADs", ["g"]) == {"antimicrobial_days": 4.0}
    assert module.vocabulary_facts("min PEEP went from 5 to 8, WBC 9k", ["g"]) == {"peep_increase": 3.0,
                                                                                  "wbc": 9000.0}
    assert module.vocabulary_facts("PEEP 8 -> 5", ["g"]) == {}  # a fall is no rise: out of the key's range
    # a number of days alone says nothing of which key it is
    assert module.vocabulary_facts("stable for 2 days", ["g"]) == {}


def test_a_guideline_reading_another_ones_keys_states_facts_on_them() -> None:
    # a second bradycardia algorithm whose arrows test cardiac-smog's keys (its file lists them under uses_keys)
    import shutil

    from dkg.vocabulary import GUIDELINE_FILE, GUIDELINES_ROOT, ONBOARDED_MARK, reload_vocabulary

    folder = GUIDELINES_ROOT / "unit-brady-borrowing"
    assert not folder.exists(), f"{folder} is left from an earlier run; remove it"
    try:
        folder.mkdir()
        (folder / GUIDELINE_FILE).write_text("uses_keys: [heart_rate]\nkeys: {}\n", encoding="utf-8")
        (folder / ONBOARDED_MARK).write_text("title: Bradycardia, second algorithm\n", encoding="utf-8")
        reload_vocabulary()
        assert "unit-brady-borrowing" in onboarded_sources()
        assert vocabulary_facts("HR 38, hypotensive", ["unit-brady-borrowing"]) == {"heart_rate": 38.0}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        reload_vocabulary()
