"""A question tells the course in order: a value said to hold now wins over the first one stated, the steps it says
were done are placed with what held then, a counted shock is a defibrillation, and CPR "running" is under way."""

from __future__ import annotations

from dkg.graph.db import named_queries
from dkg.qa.pathway import walk_query
from dkg.qa.queries import QuerySketch, QuestionType
from dkg.qa.vocabulary_facts import then_and_now, vocabulary_facts
from dkg.qa.way_in import WayIn

GUIDELINE = "cardiac-smog"  # shipped with the repository: its vocabulary has rhythm_shockable (VF / PEA)

# a resuscitation chart: the first rhythm check sends each side through its own access and epinephrine, and a
# later check on the non-shockable side moves a patient now in VF to the shockable side
ROWS = [
    ("check1", "cpr_no", ["rhythm_shockable=no"], "CPR 2 min"),
    ("check1", "cpr_yes", ["rhythm_shockable=yes"], "CPR 2 min"),
    ("cpr_no", "access_no", [], "IV / IO access"),
    ("access_no", "epi_no", [], "Epinephrine bolus IV / IO"),
    ("epi_no", "check2", [], "Rhythm Shockable?"),
    ("check2", "move", ["rhythm_shockable=yes"], "Move to VF / pulseless VT side"),
    ("check2", "reversible", ["rhythm_shockable=no"], "Treat Reversible Causes"),
    ("cpr_yes", "access_yes", [], "IV / IO access"),
    ("access_yes", "epi_yes", [], "Epinephrine bolus IV / IO"),
    ("epi_yes", "amio", [], "Amiodarone 5mg/kg"),
]
WAY_IN = WayIn([{"a": a, "b": b, "arrow": c, "box": [], "action": not text.endswith("?"), "content": text}
                for a, b, c, text in ROWS])


class _Graph:
    def read(self, query: str, params: dict[str, object]) -> list[dict[str, object]]:
        if query == named_queries("qa_pathway")["roots"]:
            return [{"uid": uid} for uid in WAY_IN.roots]
        return []


def test_a_value_said_to_hold_now_wins_and_the_first_is_kept_as_what_held_then() -> None:
    question = "PEA arrest, IO in, epi given. Rhythm check now shows VF. What now?"
    assert vocabulary_facts(question, [GUIDELINE]) == {"rhythm_shockable": "yes"}
    assert then_and_now(question, [GUIDELINE]).earlier == {"rhythm_shockable": "no"}
    # without a word saying it holds now, the first mention wins and nothing changed
    assert vocabulary_facts("PEA arrest. Could it be VF? What now?", [GUIDELINE]) == {"rhythm_shockable": "no"}
    assert then_and_now("PEA arrest. Could it be VF? What now?", [GUIDELINE]).earlier == {}


def test_the_steps_said_done_are_placed_with_the_value_that_held_then() -> None:
    question = "PEA arrest, CPR 2 min done, epinephrine bolus given. Rhythm check now shows VF. What now?"
    facts: dict[str, float | str] = {"rhythm_shockable": "yes"}
    walk = walk_query(_Graph(), QuerySketch(QuestionType.NEXT_STEP, GUIDELINE, tuple(facts)),  # type: ignore[arg-type]
                      {"guideline": GUIDELINE, "version": "1", **facts}, question, WAY_IN)
    # both sides' CPR and epinephrine read as done; those given were the non-shockable side's (PEA then): the walk
    # may start there, whence the rhythm now (VF) leads to the shockable side
    assert {"epi_no", "epi_yes"} <= set(walk.params["done"])  # type: ignore[call-overload]
    assert "epi_no" in walk.params["starts"] and "epi_yes" not in walk.params["starts"]  # type: ignore[operator]


def test_a_counted_or_numbered_shock_is_a_defibrillation_not_haemodynamic_shock() -> None:
    assert vocabulary_facts("5yo in VF: shocked x3, CPR after the third shock. Next?", [GUIDELINE]) == {
        "rhythm_shockable": "yes"}
    assert vocabulary_facts("VF, 2 shocks delivered. Next?", [GUIDELINE]) == {"rhythm_shockable": "yes"}
    stated = vocabulary_facts("62M in shock, BP 70/40, HR 38. Next?", [GUIDELINE])
    assert stated["signs_of_hemodynamic_compromise"] == "yes"


def test_cpr_running_is_under_way_and_supplies_running_out_are_not_done() -> None:
    chart = WayIn([{"a": "r", "b": "cpr", "arrow": [], "box": [], "action": True, "content": "CPR 2 min cycles"},
                   {"a": "cpr", "b": "supplies", "arrow": [], "box": [], "action": True,
                    "content": "Request additional supplies of PPE"}])
    assert chart.done_steps("2 min of CPR cycles running. Next?") == {"cpr"}
    assert chart.done_steps("Additional PPE supplies running out. Next?") == set()
