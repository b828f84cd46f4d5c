"""The treatments a question may ask about are the options of the guideline's steps, not its questions."""

from __future__ import annotations

from typing import Any

from dkg.qa.grounding import asked_treatment
from dkg.qa.service import TextToCypherService


class _Options:
    """The rows `treatment_options` returns for an onboarded flowchart whose question boxes are steps."""

    def read(self, cypher: str, params: dict[str, Any] | None = None, **_: Any) -> list[dict[str, str]]:
        return [{"o": "qrs width?qrs"}, {"o": "confirm in two leads: rhythm shockable?"},
                {"o": "synchronized cardioversion"}, {"o": "adenosine iv / io rapid push"}]


def test_a_step_that_asks_a_question_offers_no_treatment() -> None:
    service = TextToCypherService.__new__(TextToCypherService)  # only the graph is needed here
    service.graph = _Options()  # type: ignore[assignment]
    service._treatments = {}
    known = service.treatments("cardiac", "1.2026")
    assert known == ["synchronized cardioversion", "adenosine iv / io rapid push"]
    # 'QRS' of the question box 'QRS Width?' made 'QRS 0.16 s' the treatment asked about
    assert asked_treatment("Wide complex tachycardia, QRS 0.16 s, HR 170: is cardioversion indicated?",
                           known) == "cardioversion"


def test_a_step_reported_in_place_is_not_the_treatment_asked_about() -> None:
    known = ["monitor / defibrillator", "aspirin 324mg po chewed"]
    # 'on monitor' reports a step done; it was read as the treatment asked about ("No: monitor is not recommended")
    assert asked_treatment("54M crushing CP x30 min. SpO2 95% RA, on monitor, IV in. What do I give him first?",
                           known) is None
    # the clause said again later in the question is blanked too
    assert asked_treatment("IV in. Pads on, on monitor; on monitor for 10 min. What do I give him first?",
                           known) is None
    assert asked_treatment("Chest pain, IV in. Is aspirin appropriate?", known) == "aspirin"
    assert asked_treatment("Chest pain. Should he go on the monitor?", known) == "monitor"
