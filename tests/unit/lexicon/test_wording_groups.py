"""Shared clinical wordings joined to an onboarded guideline's keys (dkg/lexicon/wording_groups.py), and a question
weighing both answers of a key ("stable vs unstable"), which states neither."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.lexicon.errors import LexiconError
from dkg.lexicon.wording_groups import WordingGroup, load_wording_groups, widened, wording_groups
from dkg.qa.vocabulary_facts import read_facts
from dkg.vocabulary import KeyKind, KeySpec


def boolean(name: str, *synonyms: str, yes: tuple[str, ...] = (), no: tuple[str, ...] = ()) -> KeySpec:
    return KeySpec(name, KeyKind.CATEGORICAL, name, boolean=True, synonyms=synonyms,
                   values={"yes": (*synonyms, *yes), "no": no})


def stated(question: str, *specs: KeySpec) -> dict[str, float | str]:
    return {f.key: f.value for f in read_facts(question, [widened(s) for s in specs])}


# a key as onboarding proposes it from a box "Pulse present?": its own wording and nothing else
PULSE = boolean("pulse_present", "pulse present")
UNSTABLE = boolean("unstable", "unstable")
SYMPTOMS = boolean("chest_pain_sob_dizziness", "chest pain / sob / dizziness")
SBP = KeySpec("sbp", KeyKind.NUMERIC, "SBP", unit="mmHg", minimum=0, maximum=300, synonyms=("sbp",))


@pytest.mark.parametrize(("question", "value"), [
    ("arrest, pulseless after 2 cycles", "no"), ("lost the pulse again", "no"), ("now has a pulse", "yes"),
    ("palpable pulse at the femoral", "yes"), ("pulse present", "yes")])
def test_a_proposed_key_reads_the_wordings_of_its_group(question: str, value: str) -> None:
    assert stated(question, PULSE) == {"pulse_present": value}


def test_without_the_groups_the_proposed_key_reads_its_own_wording_only() -> None:
    assert read_facts("pulseless after 2 cycles", [PULSE]) == []
    assert widened(PULSE, groups=()) == PULSE


@pytest.mark.parametrize(("question", "value"), [
    ("HR 38, hypotensive and confused", "yes"), ("in shock", "yes"), ("haemodynamically stable", "no"),
    ("not hypotensive", "no")])
def test_signs_state_the_group_and_their_denial_its_opposite(question: str, value: str) -> None:
    assert stated(question, UNSTABLE) == {"unstable": value}


@pytest.mark.parametrize(("question", "value"), [
    ("SBP 70s, drowsy", "yes"), ("brady 34, lethargic", "yes"), ("obtunded, HR 30", "yes"),
    ("pulse 48, BP 132/80, alert", "no"), ("alert and orientated x3", "no")])
def test_a_lowered_level_of_consciousness_is_a_sign_of_instability(question: str, value: str) -> None:
    assert stated(question, UNSTABLE) == {"unstable": value}


@pytest.mark.parametrize(("question", "value"), [
    ("pulse 48, drowsy", "yes"), ("somnolent since the morning", "yes"), ("alert, pulse 48", "no"),
    ("alert and orientated, no distress", "no")])
def test_altered_mentation_reads_drowsiness_and_alertness(question: str, value: str) -> None:
    assert stated(question, boolean("altered_mental_status", "altered mental status")) == {
        "altered_mental_status": value}


@pytest.mark.parametrize(("question", "value"), [("had two blackouts today", "yes"), ("no blackouts", "no"),
                                                 ("collapsed at home", "yes")])
def test_blackouts_are_syncope(question: str, value: str) -> None:
    assert stated(question, boolean("syncope", "syncope")) == {"syncope": value}


def test_signs_never_join_a_key_to_a_group() -> None:
    # a key worded "hypotension" joins the hypotension group, not the instability group it is a sign of
    hypotension = widened(boolean("hypotension", "hypotension"))
    assert "low blood pressure" in hypotension.values["yes"]
    assert "unstable" not in hypotension.values["yes"] + hypotension.values["no"]


def test_a_key_listing_findings_is_stated_by_each_and_denied_by_its_negation() -> None:
    assert stated("sinus tach 125, c/o chest pain", SYMPTOMS) == {"chest_pain_sob_dizziness": "yes"}
    assert stated("feels lightheaded", SYMPTOMS) == {"chest_pain_sob_dizziness": "yes"}
    assert stated("dyspneic at rest", SYMPTOMS) == {"chest_pain_sob_dizziness": "yes"}
    assert stated("denies chest pain", SYMPTOMS) == {"chest_pain_sob_dizziness": "no"}
    # the opposite of one finding is no wording of the key: denying chest pain says nothing of dizziness
    assert "chest pain free" not in widened(SYMPTOMS).values["no"]


def test_a_numeric_key_reads_its_groups_synonyms() -> None:
    assert stated("BP 78/40, HR 40", SBP) == {"sbp": 78.0}
    assert stated("systolic 70", SBP) == {"sbp": 70.0}


def test_a_rhythm_named_with_a_number_gives_the_rate() -> None:
    rate = KeySpec("heart_rate", KeyKind.NUMERIC, "Heart rate", unit="1/min", minimum=0, maximum=400,
                   synonyms=("hr",))
    assert stated("Sinus tach 125, stable", rate) == {"heart_rate": 125.0}
    assert stated("brady 38, hypotensive", rate) == {"heart_rate": 38.0}
    assert stated("SVT at 220", rate) == {"heart_rate": 220.0}
    assert stated("v tach 180, BP 70/40", rate) == {"heart_rate": 180.0}
    # a rhythm named without a number gives no rate, and a number of another unit is not one
    assert stated("tachycardic, BP 70/40", rate) == {}
    assert stated("tachycardia 2 days ago", rate) == {}


def test_a_quantity_joins_numeric_keys_only() -> None:
    # a yes / no key written "pulse" (a box "Pulse?") is no heart rate: it reads no rate wordings
    pulse = widened(boolean("pulse", "pulse"))
    assert "hr" not in pulse.values["yes"]
    rate = widened(KeySpec("rate", KeyKind.NUMERIC, "Rate", unit="1/min", minimum=0, maximum=400, synonyms=("pulse",)))
    assert "hr" in rate.synonyms


def test_a_curators_own_wording_wins() -> None:
    # the curator says 'stable' answers no to this key: the group does not add it as a yes wording
    curated = widened(boolean("odd", "unstable", no=("stable",)))
    assert "stable" not in curated.values["yes"]
    assert curated.values["no"][0] == "stable"


def test_a_key_on_both_sides_of_a_group_joins_it_on_neither() -> None:
    both = boolean("pulse_check", "pulse present", "pulseless")
    assert widened(both) == both


def test_a_categorical_value_reads_its_groups_wordings_not_another_values() -> None:
    block = KeySpec("av_block", KeyKind.CATEGORICAL, "AV block",
                    values={"type_1": ("wenckebach",), "type_2": ("mobitz ii",), "complete": ("chb",)})
    wide = widened(block)
    assert "mobitz type i" in wide.values["type_1"]
    assert "complete heart block" in wide.values["complete"]
    # 'chb' is a sign of high-grade block, but this key's values join groups through their own wordings only
    assert not set(wide.values["type_2"]) & set(wide.values["complete"])


# the key a box "2nd degree Type II or 3rd degree AV block?" gives, its values worded by their names only
BOX_WORDED_BLOCK = KeySpec("av_block", KeyKind.CATEGORICAL, "AV block",
                           values={"none": ("none",), "high_grade": ("high grade",), "first_degree": ("first degree",)})


@pytest.mark.parametrize(("question", "value"), [
    ("HR 38, strip shows complete heart block", "high_grade"), ("Mobitz II at 36/min", "high_grade"),
    ("high-grade AV block, hypotensive", "high_grade"), ("sinus brady with no AV block", "none"),
    ("bradycardic without AV block", "none"), ("1st degree AV block only", "first_degree")])
def test_a_value_worded_by_its_name_joins_through_the_keys_name(question: str, value: str) -> None:
    assert stated(question, BOX_WORDED_BLOCK) == {"av_block": value}


# a key a curator added by name, its description as its only wording
SVT_SIGNS = boolean("svt_criteria", "signs of supraventricular tachycardia in a child")


@pytest.mark.parametrize(("question", "value"), [
    ("rate fixed with no beat-to-beat variability, no P waves visible", "yes"),
    ("HR 190 with beat-to-beat variability", "no"), ("normal upright P waves", "no"), ("SVT criteria met", "yes")])
def test_a_yes_no_key_joins_a_group_through_its_name(question: str, value: str) -> None:
    assert stated(question, SVT_SIGNS) == {"svt_criteria": value}


def test_a_value_named_otherwise_reads_no_denial_of_the_key() -> None:
    graded = KeySpec("av_block", KeyKind.CATEGORICAL, "AV block", values={"low": ("low",), "high": ("high",)})
    assert all("no av block" not in words for words in widened(graded).values.values())
    assert stated("no AV block on the strip", graded) == {}


@pytest.mark.parametrize("question", ["before we sort out stable vs unstable, what next?",
                                      "is she stable or unstable?", "pulseless / pulse present?"])
def test_a_question_weighing_both_answers_states_neither(question: str) -> None:
    assert stated(question, UNSTABLE, PULSE) == {}


def test_two_answers_told_in_turn_are_both_read() -> None:
    facts = read_facts("stable at first, then unstable", [widened(UNSTABLE)])
    assert [f.value for f in facts] == ["no", "yes"]


def test_the_shipped_groups_load_and_each_wording_is_on_one_side() -> None:
    groups = wording_groups()
    assert len(groups) > 40
    assert all(g.same for g in groups)


@pytest.mark.parametrize(("group", "problem"), [
    ("{name: x, same: [stable], opposite: [Stable]}", "on both sides"),
    ("{name: x, same: [pulse, Pulse]}", "listed twice"),
    ("{name: x, same: [hr], signs: [tachy], quantity: true}", "is a quantity"),
    ("{name: x, sme: [pulse]}", "sme")])
def test_a_bad_group_is_refused_naming_the_problem(tmp_path: Path, group: str, problem: str) -> None:
    path = tmp_path / "groups.yaml"
    path.write_text(f"groups:\n  - {group}\n", encoding="utf-8")
    with pytest.raises(LexiconError, match=problem):
        load_wording_groups(path)


def test_side_of_ignores_case_and_punctuation() -> None:
    group = WordingGroup(name="g", same=["a-fib"], opposite=["not sinus"])
    assert group.side_of("A fib") is True
    assert group.side_of("Not sinus?") is False
    assert group.side_of("sinus") is None


SVT_CRITERIA = boolean("svt_criteria", "svt criteria")


@pytest.mark.parametrize(("question", "value"), [
    ("3yo SVT 270, poor perfusion", "yes"), ("infant in PSVT, mottled", "yes"),
    ("rate varies with crying, p waves present", "no")])
def test_the_rhythm_named_as_svt_states_the_svt_criteria(question: str, value: str) -> None:
    assert stated(question, SVT_CRITERIA) == {"svt_criteria": value}
