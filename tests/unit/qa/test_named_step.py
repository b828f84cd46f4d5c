"""Questions that name a procedure step and ask what follows it (dkg/qa/named_step.py)."""

from __future__ import annotations

import pytest

from dkg.qa.named_step import (
    Box,
    answer_named_action,
    answer_named_conditions,
    answer_named_step,
    best_boxes,
    conditions_to,
    conflicts_to,
    named_action,
    named_conditions,
    named_step,
    same_word,
    steps_text,
)
from dkg.qa.way_in import WayIn, way_in_facts

# a procedure page and a second page that shares a step's words (made-up texts, not from any guideline)
BOXES = [
    Box("u1", "Don protective equipment", ("1",), True),
    Box("u2", "Decontaminate the casualty (remove clothing, wash with soap and water)", ("1",), True),
    Box("u3", "Isolate and notify the medical officer", ("1",), True),
    Box("u4", "CPR 2 min", ("2",), True),
    Box("u5", "CPR 2 min", ("2",), True),
    Box("u6", "Start CPR, attach monitor / defibrillator", ("2",), True),
    Box("u7", "Treat reversible causes", ("2",), True),
    Box("u8", "Consider treatable causes: antidote", ("1",), True),
]


@pytest.mark.parametrize(("question", "step"), [
    ("After decontamination, what next?", "decontamination"),
    ("Casualty exposed: once decontamination is complete, what now?", "decontamination"),
    ("What comes after isolation?", "isolation"),
    ("What are the steps after the QRS width check?", "the QRS width check"),
    ("What are the steps of mass casualty triage?", "mass casualty triage"),
    ("Next step after adenosine in paediatric tachycardia?", "adenosine in paediatric tachycardia"),
    ("What follows the advanced airway step?", "the advanced airway step"),
    ("Aspirin given — what comes next?", "Aspirin"),
    ("Arrest: after starting CPR and attaching the monitor, what next?", "starting CPR and attaching the monitor"),
])
def test_the_named_step_is_read_from_the_question(question: str, step: str) -> None:
    assert named_step(question) == step


@pytest.mark.parametrize("question", [
    "HR 38, hypotensive, altered, strip shows complete heart block — what next?",
    "Ph-pos ALL in CR, MRD rising on serial PCR. Next step?",
    "Is reassess marrow and MRD after re-induction appropriate?",
    "Which patients with bone sarcoma should get wide en bloc excision?",
])
def test_a_patient_question_names_no_step(question: str) -> None:
    assert named_step(question) is None


def test_the_box_a_step_names_is_found_by_its_words_despite_other_wordings() -> None:
    # one stem written two ways ('decontamination' / 'Decontaminate', 'treating' / 'Treat')
    assert [b.uid for b in best_boxes("decontamination", "after decontamination, what next?", BOXES)] == ["u2"]
    assert same_word("treating", "treat", 85.0) and same_word("identified", "identify", 85.0)
    assert not same_word("treatable", "reversible", 85.0) and not same_word("cpr", "cps", 85.0)
    assert [b.uid for b in best_boxes("treating reversible causes", "", BOXES)] == ["u7"]
    assert [b.uid for b in best_boxes("starting CPR and attaching the monitor/defibrillator", "", BOXES)] == ["u6"]


def test_two_boxes_of_one_text_are_both_named_and_a_vague_step_names_none() -> None:
    assert [b.uid for b in best_boxes("CPR 2 min", "", BOXES)] == ["u4", "u5"]
    assert best_boxes("the medical officer's handover", "", BOXES) == []  # too few of its words in any box


def test_the_page_the_rest_of_the_question_describes_breaks_a_tie() -> None:
    boxes = [Box("a", "Reassess", ("1",), True), Box("b", "Reassess", ("2",), True),
             Box("c", "Decontaminate the casualty", ("1",), False), Box("d", "Pacing", ("2",), False)]
    assert [b.uid for b in best_boxes("reassess", "casualty: after reassess, what next?", boxes)] == ["a"]


def test_the_answer_lists_every_step_of_a_fan_out_with_its_arrow_label() -> None:
    rows = [{"uid": "x", "content": "Isolate", "label": "", "after": "Decontaminate"},
            {"uid": "y", "content": "Notify", "label": "YES", "after": "Decontaminate"}]
    assert steps_text(rows) == 'After "Decontaminate": Isolate; Notify (if YES).'


class _Graph:
    """The two read-only queries of cypher/qa_steps.cypher answered from fixed rows (made-up algorithms)."""

    def __init__(self, boxes: list[Box], arrows: list[tuple[str, str]]) -> None:
        self.boxes = {b.uid: b for b in boxes}
        self.arrows = arrows

    def read(self, query: str, params: dict[str, object]) -> list[dict[str, object]]:
        if "has_next" in query:
            return [{"uid": b.uid, "content": b.content, "pages": list(b.pages), "page_titles": list(b.titles),
                     "has_next": b.has_next} for b in self.boxes.values()]
        uids = params["uids"]
        assert isinstance(uids, list)
        return [{"uid": t, "content": self.boxes[t].content, "label": "", "constraints": [], "after_uid": h,
                 "after": self.boxes[h].content, "pages": list(self.boxes[t].pages)}
                for h, t in self.arrows if h in uids]


ADULT, CHILD = "TACHYCARDIA w/ PULSE", "PEDIATRIC TACHYCARDIA with Poor Perfusion"
TITLED = _Graph([
    Box("entry", "Universal patient care, monitor, 12 lead ECG", ("1", "4"), True, ("BRADYCARDIA", ADULT)),
    Box("pads", "Place pacer pads", ("1",), False, ("BRADYCARDIA",)),
    Box("stable", "Stable?", ("4",), False, (ADULT,)),
    Box("cv-adult", "Synchronized cardioversion", ("4",), True, (ADULT,)),
    Box("sedation", "Consider sedation", ("4",), False, (ADULT,)),
    Box("cv-child", "Synchronized cardioversion", ("7",), True, (CHILD,)),
    Box("expert", "Consider expert consultation", ("7",), False, (CHILD,)),
], [("entry", "pads"), ("entry", "stable"), ("cv-adult", "sedation"), ("cv-child", "expert")])


@pytest.mark.parametrize(("question", "expected"), [
    ("Adult tachycardia: after synchronized cardioversion, what next?", ["sedation"]),
    ("After synchronized cardioversion in a 4 year old, what next?", ["expert"]),
    ("After synchronized cardioversion, what next?", ["expert", "sedation"]),  # nothing tells them apart
    ("Bradycardia: once the universal patient care and 12 lead ECG are done, what next?", ["pads"]),
    ("Tachycardia: once the universal patient care and 12 lead ECG are done, what next?", ["stable"]),
    ("Once the universal patient care and 12 lead ECG are done, what next?", ["pads", "stable"]),
])
def test_page_titles_tell_apart_a_step_printed_on_two_algorithms(question: str, expected: list[str]) -> None:
    answer = answer_named_step(TITLED, question, "g", "1")  # type: ignore[arg-type]
    assert answer is not None and sorted(answer.matched_nodes) == expected


@pytest.mark.parametrize(("question", "step"), [
    ("Preparation is done and the unit has deployed. What should the team maintain now?", "Preparation"),
    ("What are the surveillance and control measures for a potential outbreak?",
     "surveillance and control measures for a potential outbreak"),
    ("Which resources and assistance should be requested when an outbreak is recognised?",
     "resources and assistance"),
    ("To provide situational awareness in an outbreak, what should be done?",
     "provide situational awareness in an outbreak"),
    ("Initial mitigation of a suspected outbreak: which lines of effort start at the same time?",
     "Initial mitigation of a suspected outbreak"),
    ("We keep a common operating picture in theatre. What comes next?",
     "We keep a common operating picture in theatre"),
])
def test_a_step_named_as_a_heading_or_a_statement_is_read_from_the_question(question: str, step: str) -> None:
    assert named_step(question) == step


@pytest.mark.parametrize(("question", "phrases"), [
    ("Should we initiate an outbreak investigation once the criteria are met?",
     ["initiate an outbreak investigation once the criteria are met", "initiate an outbreak investigation"]),
    ("Is it appropriate to request technical reachback early in a potential outbreak?",
     ["request technical reachback early in a potential outbreak", "request technical reachback early"]),
    ("Should a dedicated facility be considered?", ["considered a dedicated facility"]),
    ("Would it be reasonable to coordinate with the host nation when an outbreak is suspected?",
     ["coordinate with the host nation when an outbreak is suspected", "coordinate with the host nation"]),
    ("Bradycardia: is it appropriate to consider sedation?", ["consider sedation"]),
    # whether the case is a step of a classification chart; a statement before it gives the facts
    ("Baseline stable, then up 3 for 2 days: should we call it an EWE?", ["EWE"]),
    ("EWE on day 3, age 40. Report as CIE?", ["CIE"]),
    ("Should this count as confirmed infection event?", ["confirmed infection event"]),
    ("Is it a CIE?", ["CIE"]),
    ("Is it appropriate to call the officer?", ["call the officer"]),
    ("Is adenosine reasonable for a stable narrow-complex tachycardia?", []),
    ("After decontamination, what next?", []),
])
def test_the_step_a_yes_no_question_asks_about_is_read_from_it(question: str, phrases: list[str]) -> None:
    assert named_action(question) == phrases


def test_a_short_heading_said_in_full_among_other_words_is_named() -> None:
    boxes = [Box("im", "Initial Mitigation Steps", ("1",), True),
             Box("cm", "Criteria Met for Potential Outbreak", ("1",), True),
             Box("one", "Mitigation", ("1",), True)]
    # 2 of the 4 words the question says, but every word of the box
    assert [b.uid for b in best_boxes("initial mitigation of a suspected outbreak", "", boxes)] == ["im"]
    # a one-word box is not named by one word among many
    assert best_boxes("mitigation of a suspected outbreak", "", boxes[1:]) == []


class _WalkGraph(_Graph):
    """:class:`_Graph` that also answers the walk's ``walk_edges`` query, with a condition on some arrows."""

    def __init__(self, boxes: list[Box], arrows: list[tuple[str, str]], conditions: dict[tuple[str, str], list[str]]):
        super().__init__(boxes, arrows)
        self.conditions = conditions

    def read(self, query: str, params: dict[str, object]) -> list[dict[str, object]]:
        if "closes_loop" in query:
            return [{"a": h, "b": t, "arrow": self.conditions.get((h, t), []), "box": [], "action": True,
                     "content": self.boxes[t].content} for h, t in self.arrows]
        return super().read(query, params)


PROCEDURE = _WalkGraph([
    Box("prep", "Prepare the unit", ("1",), True),
    Box("im", "Initial mitigation steps", ("1",), True),
    Box("rr", "Request resources and assistance", ("1",), True),
    Box("rb", "Obtain technical reachback early", ("1",), False),
    Box("fac", "Consider dedicating a facility to the management of cases", ("1",), False),
], [("prep", "im"), ("im", "rr"), ("rr", "rb"), ("rr", "fac")], {("prep", "im"): ["age>=18"]})


def test_a_step_of_the_guideline_asked_about_is_advised_with_the_conditions_on_its_way() -> None:
    question = "Is it appropriate to request technical reachback early in an outbreak?"
    answer = answer_named_action(PROCEDURE, question, "g", "1", named_action(question), {})  # type: ignore[arg-type]
    assert answer is not None and answer.matched_nodes == ["rb"] and answer.rows[0]["advisable"] is True
    assert answer.rows[0]["conditions"] == ["age>=18"]
    assert answer.answer == ('Yes: "Obtain technical reachback early" is a step of the guideline, after "Request '
                             'resources and assistance", when age>=18.')
    stated = answer_named_action(PROCEDURE, question, "g", "1", named_action(question), {"age": 40.0})  # type: ignore[arg-type]
    assert stated is not None and stated.rows[0]["conditions"] == []  # the stated age meets it


def test_a_step_the_stated_facts_do_not_reach_or_no_box_names_is_left_to_the_walk() -> None:
    question = "Should a dedicated facility be considered for the cases?"
    assert answer_named_action(PROCEDURE, question, "g", "1", named_action(question), {"age": 10.0}) is None  # type: ignore[arg-type]
    other = "Should we start haemodialysis?"
    assert answer_named_action(PROCEDURE, other, "g", "1", named_action(other), {}) is None  # type: ignore[arg-type]


def test_without_a_walk_a_step_the_stated_facts_rule_out_is_a_no_with_the_contradicted_condition() -> None:
    question = "Should a dedicated facility be considered for the cases?"
    answer = answer_named_action(PROCEDURE, question, "g", "1", named_action(question), {"age": 10.0},  # type: ignore[arg-type]
                                 say_no=True)
    assert answer is not None and answer.rows[0]["advisable"] is False and answer.rows[0]["conditions"] == ["age>=18"]
    assert answer.answer == ('No: "Consider dedicating a facility to the management of cases" is a step of the '
                             'guideline when age>=18; the question states age=10.')
    assert conflicts_to(WayIn.of(PROCEDURE, "g", "1"), "fac", way_in_facts({"age": 40.0})) == []  # type: ignore[arg-type]


def test_the_conditions_on_each_way_in_are_listed_once_the_shortest_first() -> None:
    way_in = WayIn.of(PROCEDURE, "g", "1")  # type: ignore[arg-type]
    assert conditions_to(way_in, "fac", way_in_facts({})) == [("age>=18",)]
    assert conditions_to(way_in, "prep", way_in_facts({})) == [()]
    assert conditions_to(way_in, "fac", way_in_facts({"age": 12.0})) == []


def test_a_way_the_stated_facts_allow_is_found_past_many_ways_they_rule_out() -> None:
    # 25 parallel ways out of the root are ruled out by the stated age and listed first; the one allowed way comes
    # after them, beyond the number of ways looked at: it must still be the way reported
    rows = [{"a": "root", "b": f"kid{i}", "arrow": ["age<18"], "box": [], "action": False} for i in range(25)]
    rows += [{"a": f"kid{i}", "b": "goal", "arrow": [], "box": [], "action": True} for i in range(25)]
    rows += [{"a": "root", "b": "adult", "arrow": ["age>=18"], "box": [], "action": False},
             {"a": "adult", "b": "goal", "arrow": ["performance_status<=2"], "box": [], "action": True}]
    way_in = WayIn(rows)
    assert conditions_to(way_in, "goal", way_in_facts({"age": 40.0}), max_paths=20) == [("performance_status<=2",)]
    assert conflicts_to(way_in, "goal", way_in_facts({"age": 40.0}), max_paths=20) == ["age<18"]


def test_a_stated_fact_chooses_among_the_arrows_out_of_the_named_step() -> None:
    from dkg.answers import Answer
    from dkg.qa.service import TextToCypherService

    rows = [{"uid": "adult", "content": "Adult dosing", "label": "", "constraints": ["age>=18"], "after": "Assess"},
            {"uid": "child", "content": "Child dosing", "label": "", "constraints": ["age<18"], "after": "Assess"}]
    answer = Answer(question="q", route="text2cypher", answer=steps_text(rows), rows=rows,
                    matched_nodes=["adult", "child"])
    chosen = TextToCypherService._branch_chosen(answer, {"age": 40.0})
    assert chosen is not None and chosen.matched_nodes == ["adult"] and chosen.answer == \
        'After "Assess": Adult dosing.'
    assert TextToCypherService._branch_chosen(answer, {"sex": "female"}) is answer  # nothing to choose by
    assert TextToCypherService._branch_keys(answer) == {"age"}


CRITERIA = _WalkGraph([
    Box("sus", "Maintain a healthy index of suspicion", ("1",), True),
    Box("cm", "Criteria met for a potential outbreak", ("1",), True),
    Box("inv", "Initiate an outbreak investigation", ("1",), False),
], [("sus", "cm"), ("cm", "inv")], {})


def test_the_step_asked_about_is_named_without_its_clause_saying_when() -> None:
    """The when-clause names the condition's box ("Criteria met …"); the action is named by the rest."""
    question = "Should we initiate an outbreak investigation once criteria for a potential outbreak are met?"
    answer = answer_named_action(CRITERIA, question, "g", "1", named_action(question), {})  # type: ignore[arg-type]
    assert answer is not None and answer.matched_nodes == ["inv"], answer


SURVEILLANCE = _WalkGraph([
    Box("base", "Stable baseline", ("1",), True),
    Box("dis", "Disease criteria", ("1",), True),
    Box("att", "Attack criteria", ("1",), True),
    Box("cm", "Criteria met for a potential outbreak", ("1",), True),
    Box("inv", "Initiate an outbreak investigation", ("1",), False),
], [("base", "dis"), ("base", "att"), ("dis", "cm"), ("att", "cm"), ("cm", "inv")],
    {("base", "dis"): ["age>=18"]})


def test_the_criteria_for_a_step_are_the_boxes_leading_into_it_and_the_conditions_on_the_way() -> None:
    question = "Which criteria suggest a potential outbreak?"
    answer = answer_named_conditions(SURVEILLANCE, question, "g", "1", named_conditions(question), {})  # type: ignore[arg-type]
    assert answer is not None and answer.matched_nodes == ["dis", "att"]
    assert [r["constraints"] for r in answer.rows] == [[], ["age>=18"]]  # one way open, one needing the age
    assert answer.answer == ('"Criteria met for a potential outbreak" is reached after "Disease criteria"; '
                             '"Attack criteria", when age>=18.')
    # a stated fact the way needs drops the condition; one it contradicts leaves only the other way
    met = answer_named_conditions(SURVEILLANCE, question, "g", "1", named_conditions(question), {"age": 40.0})  # type: ignore[arg-type]
    assert met is not None and [r["constraints"] for r in met.rows] == [[]]


def test_a_question_asking_when_a_step_is_taken_names_the_step() -> None:
    assert named_conditions("When should we initiate an outbreak investigation?") == [
        "initiate an outbreak investigation"]
    assert named_conditions("Outbreak investigation: criteria?") == ["Outbreak investigation"]
    assert named_conditions("Should we initiate an outbreak investigation?") == []  # a yes/no question
    question = "When is an outbreak investigation initiated?"
    answer = answer_named_conditions(SURVEILLANCE, question, "g", "1", named_conditions(question), {})  # type: ignore[arg-type]
    assert answer is not None and answer.matched_nodes == ["cm"] and answer.rows[0]["step_uid"] == "inv"


def test_alternatives_drawn_as_parallel_arrows_are_each_a_way_in() -> None:
    # a curator writes "age > 65 or < 18" as two arrows between the same boxes: a fact that rules out the last
    # one read must leave the other as a way in (a graph with one arrow per pair of boxes kept only the last)
    rows = [{"a": "crit", "b": "event", "arrow": ["age>65"], "box": [], "action": False},
            {"a": "crit", "b": "event", "arrow": ["age<18"], "box": [], "action": False}]
    way_in = WayIn(rows)
    assert conditions_to(way_in, "event", way_in_facts({})) == [("age>65",), ("age<18",)]
    assert conditions_to(way_in, "event", way_in_facts({"age": 70.0})) == [()]
    assert conflicts_to(way_in, "event", way_in_facts({"age": 40.0})) == ["age>65", "age<18"]


@pytest.mark.parametrize(("question", "phrases"), [
    ("What does it take to call a CIE?", ["CIE"]),
    ("When does an EWE become a CIE?", ["CIE"]),
    ("What makes it a confirmed infection event?", ["confirmed infection event"]),
])
def test_the_step_whose_conditions_a_classification_question_asks_for(question: str, phrases: list[str]) -> None:
    assert named_conditions(question) == phrases


@pytest.mark.parametrize(("question", "step"), [
    ("Pt meets EWE. What do we check next?", "EWE"),
    ("CIE criteria met. Next step in the algorithm?", "CIE"),
    ("Patient meets criteria for an early warning event. What next?", "early warning event"),
])
def test_a_step_the_patient_meets_is_named_without_the_meeting_words(question: str, step: str) -> None:
    assert named_step(question) == step


def test_a_box_is_named_by_the_initials_of_its_words() -> None:
    boxes = [Box("e", "Early Warning Event (EWE)", ("1",), True), Box("c", "Confirmed Infection Event", ("1",), True),
             Box("p", "Possible Confirmed Infection Event", ("1",), True)]
    assert [b.uid for b in best_boxes("CIE", "", boxes)] == ["c", "p"]  # both say it; neither says more of it
    assert [b.uid for b in best_boxes("possible CIE", "", boxes)] == ["p"]
    assert [b.uid for b in best_boxes("EWE", "", boxes)] == ["e"]
    assert best_boxes("CI", "", boxes) == []  # two letters are too few to stand for words
