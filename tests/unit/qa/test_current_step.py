"""Questions that open with the step the patient is at and state facts (dkg/qa/current_step.py)."""

from __future__ import annotations

from dkg.qa.current_step import answer_from_current_step, opening_step, walk_from
from dkg.qa.way_in import WayIn

# a made-up surveillance chart (not from any guideline): criteria boxes lead to the events they define; the
# event's criteria are two alternatives drawn as two arrows, each also testing age>=18
BOXES = {
    "base": "Screening criteria",
    "ewe": "Early Warning Event (EWE)",
    "crit": "Check the infection criteria",
    "cie": "Confirmed Infection Event (CIE)",
    "crit2": "Check the resection criteria",
    "res": "Resectable Infection Event (RIE)",
}
ARROWS = [
    ("base", "ewe", ["tumor_size>5"]),
    ("ewe", "crit", []),
    ("crit", "cie", ["age>=18", "performance_status<=1"]),
    ("crit", "cie", ["age>=18", "performance_status>=3"]),
    ("cie", "crit2", []),
    ("crit2", "res", ["age>=18", "resectable=yes"]),
]


class _Graph:
    """``step_boxes`` and ``walk_edges`` answered from the chart above (no page is read)."""

    def read(self, query: str, params: dict[str, object]) -> list[dict[str, object]]:
        if "has_next" in query:
            return [{"uid": uid, "content": text, "pages": ["1"], "page_titles": [""],
                     "has_next": any(a == uid for a, _, _ in ARROWS)} for uid, text in BOXES.items()]
        if "closes_loop" in query:
            return [{"a": a, "b": b, "arrow": checks, "box": [], "action": False, "content": BOXES[b]}
                    for a, b, checks in ARROWS]
        return []  # the pages of the answer's steps: none here


def _answer(question: str, facts: dict[str, float | str]) -> list[str] | None:
    answer = answer_from_current_step(_Graph(), question, "g", "1", facts)  # type: ignore[arg-type]
    return None if answer is None else answer.matched_nodes


def test_the_walk_starts_at_the_step_the_question_opens_with() -> None:
    # the facts meet one of the two alternatives into the event: the answer is the event, not the next check
    assert _answer("EWE pt, age 40, ECOG 1. Which event is it?", {"age": 40.0, "performance_status": 1.0}) == ["cie"]
    # from the roots the unstated tumour size would stop the walk at the screening box
    assert walk_from(WayIn([{"a": a, "b": b, "arrow": c, "box": [], "action": False} for a, b, c in ARROWS]),
                     "base", {"age": 40.0, "performance_status": 1.0}).earned == []


def test_a_condition_every_arrow_into_the_start_tested_holds_there() -> None:
    # being at the CIE says age>=18 held; the resection arrow tests it again
    assert _answer("CIE pt: resectable. What now?", {"resectable": "yes"}) == ["res"]


def test_without_facts_that_meet_a_condition_the_answer_is_where_the_walk_stops_with_what_is_open() -> None:
    answer = answer_from_current_step(_Graph(), "EWE pt, age 40. Next?", "g", "1", {"age": 40.0})  # type: ignore[arg-type]
    assert answer is not None and answer.matched_nodes == ["crit"]
    assert answer.rows[0]["open_conditions"] == ["performance_status<=1", "performance_status>=3"]
    assert "open: performance_status<=1 and performance_status>=3" in answer.answer


def test_facts_that_rule_out_every_way_on_leave_it_unanswered_here() -> None:
    assert _answer("EWE, ECOG 2. Which event?", {"performance_status": 2.0}) is None


def test_an_opening_that_asks_or_describes_names_no_step() -> None:
    assert opening_step("Should an EWE patient aged 40 be reported?") is None
    assert opening_step("EWE pt aged 40 with ECOG 1 which event") is None  # no statement before the question
    assert _answer("Sixty year old man with fevers since Monday. What now?", {"age": 60.0}) is None  # no box
    assert _answer("Early warning pt: age 40. Which event?", {}) is None  # no fact stated
    assert _answer("Infection pt: age 40, ECOG 1. Which event?", {"age": 40.0}) is None  # names two boxes


def test_a_walk_from_the_roots_that_stops_behind_the_named_step_gives_way_to_the_walk_from_it(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from dkg.answers import Answer
    from dkg.qa.service import TextToCypherService

    service = TextToCypherService(graph=_Graph(), rules_only=True)  # type: ignore[arg-type]
    service._way_ins = {}
    ahead = answer_from_current_step(_Graph(), "CIE pt: resectable. What now?", "g", "1",  # type: ignore[arg-type]
                                     {"resectable": "yes"})
    assert ahead is not None
    monkeypatch.setattr(service, "_current_step_answer", lambda question: ahead)
    behind = Answer(question="q", route="text2cypher", answer="x", matched_nodes=["ewe"])  # before the CIE
    assert service._ahead_of("q", behind) is not None and service.last_path == "current_step"
    beyond = Answer(question="q", route="text2cypher", answer="x", matched_nodes=["res"])  # after it: kept
    assert service._ahead_of("q", beyond) is None
    assert service._ahead_of("q", Answer(question="q", route="text2cypher", answer="x")) is None


def test_the_steps_after_a_done_step_are_those_the_facts_allow() -> None:
    from dkg.qa.current_step import answer_after_done

    answer = answer_after_done(_Graph(), "Infection criteria checked, age 40, ECOG 4: what now?", "g", "1",  # type: ignore[arg-type]
                               ["crit"], {"age": 40.0, "performance_status": 4.0})
    assert answer is not None and answer.matched_nodes == ["cie"]
    assert answer_after_done(_Graph(), "Resection criteria checked, not resectable. Next?", "g", "1",  # type: ignore[arg-type]
                             ["crit2"], {"resectable": "no"}) is None


class _ActionGraph(_Graph):
    """The chart above with every box an action (what a curator's flowchart of treatment steps is)."""

    def read(self, query: str, params: dict[str, object]) -> list[dict[str, object]]:
        return [{**row, "action": True} if "action" in row else row for row in super().read(query, params)]


def _service_on_the_action_chart(monkeypatch):  # type: ignore[no-untyped-def]
    """A rule-layer service reading the action chart above as an onboarded guideline ``g``."""
    from dkg.qa import service as service_module

    monkeypatch.setattr(service_module, "onboarded_sources", lambda: {"g"})
    service = service_module.TextToCypherService(graph=_ActionGraph(), rules_only=True)  # type: ignore[arg-type]
    service._way_ins = {}
    return service


def _answer_at(question: str, step: str):  # type: ignore[no-untyped-def]
    from dkg.answers import Answer

    return Answer(question=question, route="text2cypher", answer="x", matched_nodes=[step],
                  cypher_params={"guideline": "g", "version": "1"})


def test_an_answer_naming_only_steps_the_question_says_were_done_moves_on_to_the_next(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    service = _service_on_the_action_chart(monkeypatch)
    question = "Infection criteria check done, ECOG 4, age 40. What now?"
    done = _answer_at(question, "crit")
    moved = service._past_done(question, done)
    assert moved is not None and moved.matched_nodes == ["cie"] and service.last_path == "past_done"
    assert service._past_done("Infection criteria pending, ECOG 4. What now?", done) is None
    assert service._past_done(question, _answer_at(question, "cie")) is None


def test_an_answer_before_a_step_the_question_says_was_done_moves_on_past_that_step(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    service = _service_on_the_action_chart(monkeypatch)
    # the walk placed the patient at the event box; the question says the infection check after it, and not the
    # event itself, was done
    question = "Infection check done, ECOG 4, age 40. What now?"
    moved = service._past_done(question, _answer_at(question, "ewe"))
    assert moved is not None and moved.matched_nodes == ["cie"]
    # a step said done that comes before the answer does not move it on
    assert service._past_done(question, _answer_at(question, "crit2")) is None


def test_words_before_pt_that_only_share_a_stem_with_a_box_describe_the_patient() -> None:
    # "Screen pt" is a screened patient, not the box "Screening criteria"; "EWE pt" names the event by its initials
    assert _answer("Screen pt, tumour 6 cm, age 40, ECOG 1. Which event?",
                   {"tumor_size": 6.0, "age": 40.0, "performance_status": 1.0}) is None
    assert _answer("EWE pt, age 40, ECOG 1. Which event?", {"age": 40.0, "performance_status": 1.0}) == ["cie"]


def test_already_before_the_step_and_how_long_after_it_are_not_its_name() -> None:
    assert _answer("Already EWE as of day 3, age 40, ECOG 1. Which event now?",
                   {"age": 40.0, "performance_status": 1.0}) == ["cie"]


def test_facts_that_are_the_conditions_on_the_ways_to_a_named_step_and_rule_them_out_say_no(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from dkg.qa import service as service_module
    from dkg.qa.named_step import answer_named_action

    service = service_module.TextToCypherService(graph=_Graph(), rules_only=True)  # type: ignore[arg-type]
    service._way_ins = {}
    monkeypatch.setattr(service_module, "onboarded_sources", lambda: {"g"})

    def rule_out(question: str, stated: dict[str, float | str]):  # type: ignore[no-untyped-def]
        no = answer_named_action(_Graph(), question, "g", "1", ["CIE"], stated, say_no=True)  # type: ignore[arg-type]
        assert no is not None and not any(r["advisable"] for r in no.rows)
        return service._facts_rule_out("g", "1", no, stated)

    # ECOG 2 meets neither alternative into the CIE, and age and ECOG are both conditions on the ways to it
    no = rule_out("Age 40, ECOG 2. Is this a CIE yet?", {"age": 40.0, "performance_status": 2.0})
    assert no is not None and no.matched_nodes == ["cie"] and no.rows[0]["advisable"] is False
    # resectability is decided after the CIE: a patient described beyond the step is left to the walk
    assert rule_out("ECOG 2, not resectable. Is this a CIE?", {"performance_status": 2.0, "resectable": "no"}) is None
    # facts that leave a way open are no "no"
    assert answer_named_action(_Graph(), "Age 40, ECOG 1. Is this a CIE?", "g", "1", ["CIE"],  # type: ignore[arg-type]
                               {"age": 40.0, "performance_status": 1.0}, say_no=True).rows[0]["advisable"] is True
    # a guideline built for the product, not onboarded: the walk places the patient
    monkeypatch.setattr(service_module, "onboarded_sources", lambda: set())
    assert rule_out("Age 40, ECOG 2. Is this a CIE yet?", {"age": 40.0, "performance_status": 2.0}) is None


def test_lexicon_facts_on_keys_an_onboarded_chart_never_tests_describe_no_patient(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # "femoral pulse" reads as the bone chart's tumour site and "Ph positive" as ALL's Philadelphia status: on a
    # chart testing neither they do not stop the routes that need a question without a patient described
    from dkg.qa import service as service_module

    service = service_module.TextToCypherService(graph=_Graph(), rules_only=True)  # type: ignore[arg-type]
    service._way_ins = {}
    monkeypatch.setattr(service, "version_of", lambda guideline: "1")
    monkeypatch.setattr(service_module, "onboarded_sources", lambda: {"g"})
    assert service._lexicon_facts("Femoral pulse weak, Ph positive. Next?", "g") == {}
    assert service._lexicon_facts("Child with a weak femoral pulse, age 6, Ph positive. Next?", "g") == {"age": 6.0}
    monkeypatch.setattr(service_module, "onboarded_sources", lambda: set())  # a shipped guideline: all of them
    assert set(service._lexicon_facts("Femoral pulse weak, Ph positive. Next?", "g")) == {"site", "ph"}
