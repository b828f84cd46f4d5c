"""Questions asking for a drug class answered by the nearest steps giving one of its drugs (dkg/qa/asked_class.py,
dkg/lexicon/drug_classes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.answers import Answer
from dkg.lexicon.drug_classes import classes_named, gives_one_of, load_any_drug, load_drug_classes
from dkg.lexicon.errors import LexiconError
from dkg.qa.asked_class import AskedClassSettings, answer_asked_class, asked_classes, classes_not_given
from dkg.qa.way_in import WayIn

# a made-up arrest chart (not any guideline's wording): two sides chosen by a shockable rhythm
CONTENTS = {
    "check": "Rhythm shockable?",
    "cpr1": "CPR 2 min",
    "shock": "Shock 4 J/kg",
    "cpr2": "CPR 2 min",
    "adr": "Adrenaline 10 mcg/kg every 4 min",
    "cpr3": "CPR 2 min",
    "amio": "Amiodarone 5 mg/kg",
    "lido": "Lidocaine 1 mg/kg",
    "cpr4": "CPR 2 min",
    "causes": "Treat reversible causes",
}
ARROWS = [("check", "cpr1", ["rhythm_shockable=yes"]), ("cpr1", "shock", []), ("shock", "cpr2", []),
          ("cpr2", "adr", []), ("adr", "cpr3", []), ("cpr3", "amio", []), ("cpr3", "lido", []),
          ("check", "cpr4", ["rhythm_shockable=no"]), ("cpr4", "causes", [])]
WAY = WayIn([{"a": a, "b": b, "arrow": checks, "box": [], "action": True, "content": CONTENTS[b]}
             for a, b, checks in ARROWS])


def _answer(steps: list[str]) -> Answer:
    return Answer(question="q", route="text2cypher", answer="", cypher="", rows=[], matched_nodes=steps,
                  cypher_params={"guideline": "arrest", "version": "1"})


def _classed(question: str, steps: list[str], facts: dict[str, object] | None = None,
             settings: AskedClassSettings | None = None) -> list[str] | None:
    found = answer_asked_class(question, _answer(steps), WAY, CONTENTS, dict(facts or {}),  # type: ignore[arg-type]
                               **({"settings": settings} if settings else {}))
    return None if found is None else found.matched_nodes


def test_the_class_asked_for_is_answered_by_the_nearest_steps_giving_one_of_its_drugs():
    question = "Still shockable after the third shock, adrenaline in. Which antiarrhythmic now?"
    assert _classed(question, ["cpr1"], {"rhythm_shockable": "yes"}) == ["amio", "lido"]
    # the walk's answer spread over every CPR box: the stated rhythm rules the other side out
    assert _classed(question, ["cpr1", "cpr2", "cpr3", "cpr4"], {"rhythm_shockable": "yes"}) == ["amio", "lido"]


def test_a_class_named_outside_the_asking_sentence_or_an_answer_giving_it_is_left_alone():
    assert _classed("Antiarrhythmic given. What next?", ["cpr1"]) is None
    assert _classed("Which antiarrhythmic now?", ["amio"]) is None
    assert _classed("Which vasopressor?", ["cpr4"], {"rhythm_shockable": "no"}) is None  # none on this side


def test_a_drug_further_than_the_settings_allow_is_not_reached():
    assert _classed("Which antiarrhythmic?", ["cpr1"], settings=AskedClassSettings(max_steps=2)) is None


def test_class_wordings_are_whole_words_and_members_match_in_box_texts():
    assert asked_classes("Tube placed. Team want the anti-arrhythmic - what does the algorithm offer?")
    assert not classes_named("Is the lesion osteolytic?")
    assert gives_one_of("Consider: Antiarrhythmic: Procainamide, Amiodarone", classes_named("antiarrhythmic"))


def test_a_class_file_listing_a_wording_twice_is_refused_with_its_place(tmp_path: Path):
    bad = tmp_path / "drug_classes.yaml"
    bad.write_text("classes:\n  - name: x\n    wordings: [pressor, Pressor]\n    members: [epinephrine]\n")
    with pytest.raises(LexiconError, match=r"classes\.0\.wordings.*listed twice"):
        load_drug_classes(bad)


def test_a_drug_of_no_class_asked_for_is_any_listed_drug():
    question = "Flat line, CPR going, IO in. Which drug and what dose now?"
    assert [c.name for c in asked_classes(question)] == ["drug"]
    # adrenaline is a vasopressor, adenosine stands in no class: both are drugs
    assert _classed(question, ["cpr1"], {"rhythm_shockable": "yes"}) == ["adr"]
    assert gives_one_of("Adenosine 6 mg rapid push", asked_classes("what med next?"))
    # a class named wins over the word 'drug', and 'drug' outside the asking sentence asks for nothing
    assert [c.name for c in asked_classes("Which antiarrhythmic drug now?")] == ["antiarrhythmic"]
    assert asked_classes("Drugs given as per chart. What next?") == ()


def test_a_guideline_naming_no_listed_drug_is_not_refused_for_any_drug():
    assert classes_not_given("Which drug now?", {"a": "Give the countermeasure"}) == ()
    assert [c.name for c in classes_not_given("Which antiarrhythmic?", {"a": "Give the countermeasure"})] == [
        "antiarrhythmic"]


def test_an_any_drug_section_listing_a_wording_twice_is_refused_with_its_place(tmp_path: Path):
    bad = tmp_path / "drug_classes.yaml"
    bad.write_text("classes:\n  - name: x\n    wordings: [pressor]\n    members: [epinephrine]\n"
                   "any_drug:\n  wordings: [drug, Drug]\n")
    with pytest.raises(LexiconError, match=r"any_drug\.wordings.*listed twice"):
        load_any_drug(bad)
