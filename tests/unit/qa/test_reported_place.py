"""Questions placing the patient on a chart whose arrows carry no conditions by what they report
(dkg/qa/reported_place.py)."""

from __future__ import annotations

from dkg.qa.named_step import Box
from dkg.qa.reported_place import answer_from_reported_place, furthest, reported_boxes, without_negated
from dkg.qa.way_in import WayIn

# a made-up chest pain chart (not the onboarded one's wording): a sequence of steps and findings, one numeric
# condition on a box, one question box
BOXES = {
    "care": "Initial care: oxygen if hypoxic, cardiac monitor and defibrillator, IV access",
    "asa": "Aspirin 300mg chewed (unless aspirin allergy)",
    "ecg": "12 lead ECG",
    "stemi": "ST elevation or new LBBB",
    "transfer": "Transfer for reperfusion at once",
    "note": "STEMI: do not delay reperfusion",
    "sinus": "Sinus rhythm without ST changes",
    "bp_ok": "Systolic BP over 100",
    "shock": "Hypotension or shock?",
    "bolus": "Fluid bolus 500 ml",
    "watch": "Observe and repeat the ECG",
}
ARROWS = [("care", "asa", []), ("asa", "ecg", []), ("ecg", "stemi", []), ("stemi", "transfer", []),
          ("transfer", "note", []), ("ecg", "sinus", []), ("sinus", "bp_ok", ["bp>100"]), ("sinus", "shock", []),
          ("shock", "bolus", []), ("bp_ok", "watch", [])]
WAY = WayIn([{"a": a, "b": b, "arrow": [], "box": box, "action": True, "content": BOXES[b]} for a, b, box in ARROWS])
CHART = [Box(uid, text, ("2",), any(a == uid for a, _, _ in ARROWS), ("CHEST PAIN",)) for uid, text in BOXES.items()]


def _placed(question: str, facts: dict[str, object] | None = None) -> list[str] | None:
    answer = answer_from_reported_place(question, "chart", "1", CHART, WAY, dict(facts or {}))  # type: ignore[arg-type]
    return None if answer is None else answer.matched_nodes


def test_a_finding_the_question_reports_places_the_patient_at_its_box():
    assert reported_boxes("Chest pain, aspirin given, 12 lead shows ST elevation. Where now?", CHART) >= {"stemi"}
    assert _placed("Chest pain, aspirin given, 12 lead shows ST elevation. Where now on the chest pain chart?") == [
        "transfer"]


def test_one_shorthand_in_a_box_is_one_word_however_many_its_expansion_has():
    # 'ST elevation' shares three words with STEMI's expansion but one word of the note box: the note is not reported
    assert "note" not in reported_boxes("12 lead shows ST elevation. Next?", CHART)
    assert "stemi" in reported_boxes("12 lead shows ST elevation. Next?", CHART)


def test_a_negated_finding_and_the_asking_clause_report_nothing():
    assert "stemi" not in reported_boxes("no ST elevation, BP 90. Next?", CHART)
    assert reported_boxes("What follows ST elevation on the chart?", CHART) == set()
    assert without_negated("no ST elevation, BP 90") == "no " + " " * len("ST elevation") + ", BP 90"


def test_a_boxs_bracketed_condition_is_not_its_step():
    # "(unless aspirin allergy)" is the aspirin box's condition: reporting no allergy does not say aspirin was given
    assert "asa" not in reported_boxes("Allergy to aspirin checked, none. Next on the chart?", CHART)


def test_the_furthest_reported_box_is_the_place_and_facts_choose_the_way_on():
    # the sinus box comes after the ECG; a BP of 82 rules out the BP over 100 box, and the question box is passed
    assert furthest({"ecg", "sinus"}, WAY) == {"sinus"}
    assert _placed("12 lead ECG done, sinus rhythm without ST changes, BP 82/40. Next on the chart?", {"bp": 82.0}) == [
        "bolus"]


def test_reports_on_two_ways_leave_the_question_to_the_other_routes():
    assert _placed("ST elevation on one lead, sinus rhythm without ST changes on another. Next?") is None


def test_a_question_reporting_nothing_on_the_chart_is_not_placed():
    assert _placed("What does the chest pain chart say?") is None
