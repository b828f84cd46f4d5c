"""The clinician page shows a clarifying answer's missing facts as a follow-up form, and the fact reader
understands what the form adds to the question ('key=value')."""

from __future__ import annotations

from pathlib import Path

import pytest

import dkg
from dkg.qa.facts import extract_facts

STATIC = Path(dkg.__file__).resolve().parent / "api" / "static"


def test_the_page_has_the_follow_up_form() -> None:
    html = (STATIC / "clinician.html").read_text()
    for element in ('id="followup"', 'id="followup-fields"', 'id="followup-ask"'):
        assert element in html
    script = (STATIC / "clinician.js").read_text()
    assert "missing_facts" in script and "showFollowUp" in script


@pytest.mark.parametrize(("text", "key", "value"), [
    ("Ph+ B-ALL, comorbidities not reviewed (comorbidity=none)", "comorbidity", "none"),
    ("clear cell RCC (stage=IV; performance_status=1)", "stage", "IV"),
    ("clear cell RCC (stage=IV; performance_status=1)", "performance_status", 1.0),
    ("osteosarcoma (grade=high)", "grade", "high"),
])
def test_facts_added_by_the_form_are_read(text: str, key: str, value: float | str) -> None:
    assert extract_facts(text)[key] == value


@pytest.mark.parametrize("text", ["RCC (stage=VII)", "ALL (age=400)", "ALL (comorbidity=maybe)"])
def test_values_the_vocabulary_does_not_allow_are_not_read(text: str) -> None:
    facts = extract_facts(text)
    assert facts.get("stage") != "VII" and facts.get("age") != 400.0 and facts.get("comorbidity") != "maybe"
