"""The step a question describes in its own words (dkg.qa.step_match)."""

from __future__ import annotations

from dkg.qa.named_step import Box
from dkg.qa.step_match import StepMatchSettings, answer_described_step, best_box

# a made-up checklist page (not from any guideline): a header box and the tasks under it
BOXES = {
    "start": "Respond to the incident",
    "log": "Logistics lane",
    "ppe": "Request additional supplies: protective equipment and countermeasures",
    "beds": "Dedicate a ward to the incident's cases",
    "staff": "Rotate staff to avoid exhaustion",
    "talk": "Provide behavioural health support for anxious personnel",
}
ARROWS = [("start", "log"), ("log", "ppe"), ("log", "beds"), ("log", "staff"), ("start", "talk")]


class _Graph:
    def read(self, query: str, params: dict[str, object]) -> list[dict[str, object]]:
        if "has_next" in query:
            return [{"uid": uid, "content": text, "pages": ["1"], "page_titles": [""],
                     "has_next": any(a == uid for a, _ in ARROWS)} for uid, text in BOXES.items()]
        if "closes_loop" in query:
            return [{"a": a, "b": b, "arrow": [], "box": [], "action": True, "content": BOXES[b]} for a, b in ARROWS]
        return []


def _boxes() -> list[Box]:
    return [Box(uid, text, ("1",), False) for uid, text in BOXES.items()]


def test_the_box_a_question_describes_clearly_is_found() -> None:
    found = best_box("We're burning through protective equipment and the countermeasures won't last. What now?",
                     _boxes())
    assert found is not None and found.uid == "ppe"


def test_one_shared_word_or_no_clear_winner_finds_nothing() -> None:
    assert best_box("The incident is over. What now?", _boxes()) is None
    assert best_box("protective equipment, anxious personnel", _boxes(), StepMatchSettings(margin=3.0)) is None


def test_a_question_asking_what_a_step_includes_gets_the_steps_under_it() -> None:
    answer = answer_described_step(_Graph(), "I run the logistics lane. What does it include?", "g", "1")  # type: ignore[arg-type]
    assert answer is not None and answer.matched_nodes == ["ppe", "beds", "staff"]
    described = answer_described_step(_Graph(), "Staff anxious: should we offer behavioural health support?",  # type: ignore[arg-type]
                                       "g", "1")
    assert described is None  # a yes/no question is no description of a step
    named = answer_described_step(_Graph(), "Staff anxious and not sleeping: what behavioural health step applies",  # type: ignore[arg-type]
                                  "g", "1")
    assert named is not None and named.matched_nodes == ["talk"]


def test_a_question_asking_what_follows_a_described_step_gets_the_steps_after_it() -> None:
    answer = answer_described_step(_Graph(), "What do we do after we respond to the incident?", "g", "1")  # type: ignore[arg-type]
    assert answer is not None and answer.matched_nodes == ["log", "talk"]


def test_a_described_step_the_question_says_was_started_gives_the_steps_after_it() -> None:
    answer = answer_described_step(_Graph(), "Logistics lane started. Which tasks run from here?", "g", "1")  # type: ignore[arg-type]
    assert answer is not None and answer.matched_nodes == ["ppe", "beds", "staff"]


def test_asked_what_is_left_the_step_is_a_header_less_what_was_done() -> None:
    # "supplies" and "ward" name boxes under the header too; asked what is left, the header (which leads on) is the
    # step meant, and the task the question says was done is left out
    answer = answer_described_step(  # type: ignore[arg-type]
        _Graph(), "Logistics: additional supplies already requested. What is still left in the logistics lane?",
        "g", "1")
    assert answer is not None and answer.matched_nodes == ["beds", "staff"]


def test_a_decoded_query_whose_walk_places_no_one_gives_way_to_the_described_step(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the model's query for "FiO2 and PEEP flat for 2 days: what next?" tests the stated PEEP change only on the
    # arrow into the event, so its walk finds no one; the step the question describes still answers
    from types import SimpleNamespace

    from dkg.answers import Answer
    from dkg.qa import service as service_module

    service = service_module.TextToCypherService(graph=_Graph(), rules_only=True)  # type: ignore[arg-type]
    sketch = SimpleNamespace(guideline="g", params=lambda facts, version: {"version": version})
    monkeypatch.setattr(service_module, "ground", lambda *args: SimpleNamespace(sketch=sketch, facts={}, repairs=[]))
    for name, value in {"screen": None, "_named_conditions": None, "_named_step": None, "_named_action": None,
                        "_from_current_step": None}.items():
        monkeypatch.setattr(service, name, lambda *args, value=value: value)
    monkeypatch.setattr(service, "_onboarded_alike", lambda question: [])
    monkeypatch.setattr(service, "decode", lambda question: ["MATCH (n) RETURN n"])
    monkeypatch.setattr(service, "version_of", lambda guideline: "1")
    monkeypatch.setattr(service, "treatments", lambda guideline, version: [])
    monkeypatch.setattr(service, "_execute", lambda sketch, params: service_module.Executed(sketch, "c", [], []))
    described = Answer(question="q", route="text2cypher", answer="the watch step", matched_nodes=["watch"])
    monkeypatch.setattr(service, "_described_step", lambda question: described)
    assert service.answer("FiO2 and PEEP flat for 2 days. What next?").matched_nodes == ["watch"]


def test_a_box_written_in_shorthand_is_found_by_the_words_it_stands_for() -> None:
    # the lexicon spells out PPE and MCMs in the box as it does in a question
    boxes = [Box("mcm", "Request additional supplies to include MCMs, PPE, etc.", ("1",), False),
             Box("cap", "Request additional capabilities via chain of command", ("1",), False),
             Box("talk", "Provide behavioural health support for anxious personnel", ("1",), False)]
    found = best_box("Personal protective equipment and medical countermeasures are running out. What now?", boxes)
    assert found is not None and found.uid == "mcm"


def test_a_described_first_step_the_question_says_was_done_gives_the_steps_after_it() -> None:
    # "Respond to the incident" is a root: no arrow carries its text, so the boxes' texts say it was done
    answer = answer_described_step(_Graph(), "We have responded to the incident and done that. What now?", "g", "1")  # type: ignore[arg-type]
    assert answer is not None and answer.matched_nodes == ["log", "talk"]


def test_after_a_contrast_the_step_is_matched_on_what_follows_it() -> None:
    # the response and the logistics lane are the context (each shares two words, so the whole question describes
    # no box clearly); the need after "but" is the step asked for
    question = ("We respond to the incident and run the logistics lane, but staff need health support. "
                "Which step covers that?")
    answer = answer_described_step(_Graph(), question, "g", "1")  # type: ignore[arg-type]
    assert answer is not None and answer.matched_nodes == ["talk"]
