"""Questions asking what the case is called (dkg/qa/named_outcome.py)."""

from __future__ import annotations

from dkg.answers import Answer
from dkg.qa.named_outcome import answer_described_name, answer_named_outcome, asks_for_name, is_name
from dkg.qa.named_step import Box
from dkg.qa.way_in import WayIn

# a made-up surveillance chart (not from any guideline): long criteria boxes lead to short boxes naming the event;
# its conditions borrow keys of the base and shipped vocabularies (unknown keys test nothing)
BOXES = {
    "base": "The patient has a baseline period of at least two days of stable or improving scores on the scale",
    "worse": "After the baseline period the patient has at least one of the following signs that the score worsened",
    "ewe": "Early Warning Event (EWE)",
    "crit": "On or after day three the patient meets both of the following infection criteria listed in the table",
    "cie": "Confirmed Infection Event (CIE)",
}
ARROWS = [
    ("base", "worse", ["age>=18"]),
    ("worse", "ewe", ["performance_status>=2", "tumor_size>=2"]),
    ("worse", "ewe", ["necrosis>=30", "tumor_size>=2"]),
    ("ewe", "crit", []),
    ("crit", "cie", ["resectable=yes", "time_to_relapse>=4"]),
]
WAY_IN = WayIn([{"a": a, "b": b, "arrow": checks, "box": [], "action": False, "content": BOXES[b]}
                for a, b, checks in ARROWS])


def _placed_at(*uids: str) -> Answer:
    return Answer(question="q", route="text2cypher", answer="placed",
                  rows=[{"uid": uid, "content": BOXES[uid]} for uid in uids], matched_nodes=list(uids),
                  cypher_params={"guideline": "g", "version": "1", "uids": list(uids)})


def test_asked_for_a_name_a_criteria_step_is_answered_by_the_name_it_leads_to() -> None:
    named = answer_named_outcome("Score up 3 for two days. Which event is that?", _placed_at("worse"), WAY_IN,
                                 {"performance_status": 3.0})
    assert named is not None and named.matched_nodes == ["ewe"]
    # the condition the question leaves unstated is said with the name, each way there on its own
    assert named.rows[0]["open_conditions"] == ["tumor_size>=2", "necrosis>=30 and tumor_size>=2"]
    assert "Early Warning Event (EWE)" in named.answer and "when tumor_size>=2" in named.answer
    assert [e.node_uid for e in named.evidence] == ["ewe", "worse"]


def test_a_way_the_stated_facts_rule_out_is_not_crossed() -> None:
    assert answer_named_outcome("No fever. What do we call it now?", _placed_at("crit"), WAY_IN,
                                {"resectable": "no"}) is None
    named = answer_named_outcome("EWE, febrile, 5 days of treatment. Does it move up a tier? If so to what?",
                                 _placed_at("crit"), WAY_IN, {"resectable": "yes", "time_to_relapse": 5.0})
    assert named is not None and named.matched_nodes == ["cie"] and named.rows[0]["open_conditions"] == []


def test_an_answer_that_already_names_or_a_question_that_asks_otherwise_is_left_alone() -> None:
    assert answer_named_outcome("Which event is that?", _placed_at("ewe"), WAY_IN, {}) is None
    assert answer_named_outcome("What do I look at next?", _placed_at("worse"), WAY_IN, {}) is None
    # the baseline box reaches a name in two arrows
    named = answer_named_outcome("Stable for 3 days. What is that?", _placed_at("base"), WAY_IN,
                                 {"age": 30.0})
    assert named is not None and named.matched_nodes == ["ewe"]


def test_criteria_described_about_equally_answer_when_they_lead_to_the_same_name() -> None:
    boxes = [Box(uid, BOXES[uid], ("1",), True) for uid in ("base", "worse")]
    named = answer_described_name("Stable baseline, then the score worsened. Which event?", boxes, WAY_IN, {},
                                  "g", "1")
    assert named is not None and named.matched_nodes == ["ewe"]
    apart = [Box(uid, BOXES[uid], ("1",), True) for uid in ("worse", "crit")]
    assert answer_described_name("Score worse, infection criteria. Which event?", apart, WAY_IN, {}, "g", "1") is None


def test_names_and_name_questions() -> None:
    assert is_name(BOXES["cie"]) and not is_name(BOXES["crit"])
    assert asks_for_name("What event does he meet now?") and asks_for_name("How do we classify it?")
    assert not asks_for_name("Which antibiotic is best?") and not asks_for_name("What should we do now?")


class _NoPages:
    """A graph whose boxes have no pages (the answer's evidence is read for them)."""

    def read(self, query: str, params: dict[str, object]) -> list[dict[str, object]]:
        return []


def test_the_service_names_the_outcome_on_an_onboarded_guideline_only(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from dkg.qa import service as service_module

    service = service_module.TextToCypherService(graph=_NoPages(), rules_only=True)  # type: ignore[arg-type]
    service._way_ins = {("g", "1"): WAY_IN}
    question = "Stable, then the score got worse for two days. Which event is that?"
    monkeypatch.setattr(service_module, "onboarded_sources", lambda: set())
    assert service._named_outcome(question, _placed_at("worse")) is None
    monkeypatch.setattr(service_module, "onboarded_sources", lambda: {"g"})
    named = service._named_outcome(question, _placed_at("worse"))
    assert named is not None and named.matched_nodes == ["ewe"] and service.last_path.endswith("+named_outcome")
