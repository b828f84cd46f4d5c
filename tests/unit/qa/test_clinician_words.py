"""Clinicians' own wordings of an onboarded guideline's questions: a chart named by its topic, rates in words,
denied yes/no wordings (dkg.qa.named_step, dkg.qa.vocabulary_facts)."""

from __future__ import annotations

from dkg.qa.named_step import named_conditions, without_chart_names
from dkg.qa.vocabulary_facts import read_facts, spelled_numbers, vocabulary_facts
from dkg.vocabulary import KeyKind, KeySpec


def test_chart_names_state_no_findings() -> None:
    assert without_chart_names("When does the bradycardia algorithm have you pace?") == \
        "When does the  algorithm have you pace?"
    assert named_conditions("When does the chest pain chart let you give morphine or fentanyl?") == \
        ["morphine or fentanyl"]
    assert named_conditions("Wide QRS, poor perfusion: when does the chart have you give adenosine?") == ["adenosine"]


def test_rates_written_in_words_are_read_as_numbers() -> None:
    assert spelled_numbers("HR in the low forties, then mid fifties") == "HR 42, then 55"
    assert spelled_numbers("thirty-eight breaths") == "38 breaths"
    rate = KeySpec("heart_rate", KeyKind.NUMERIC, "heart rate", unit="1/min", minimum=0, maximum=350,
                   synonyms=("heart rate", "hr"))
    assert [(f.key, f.value) for f in read_facts(spelled_numbers("heart rate in the high thirties"), [rate])] == [
        ("heart_rate", 38.0)]


def test_a_denied_wording_of_a_yes_no_key_states_its_other_value() -> None:
    # cardiac-smog ships in datasets/guidelines: "hypotensive" is a no-wording of ``stable``,
    # "beat-to-beat variability" a no-wording of ``svt_criteria``
    assert vocabulary_facts("HR 150, not hypotensive", ["cardiac-smog"])["stable"] == "yes"
    assert vocabulary_facts("HR 150, hypotensive", ["cardiac-smog"])["stable"] == "no"
    assert vocabulary_facts("HR 240, no beat-to-beat variability", ["cardiac-smog"])["svt_criteria"] == "yes"
