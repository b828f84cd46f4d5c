"""'No transplant' as a fact of the course (issue 17): the maintenance branch without prior HCT tests
``prior_therapy != transplant``; a question saying the patient had none passes it, and only it."""

from __future__ import annotations

import pytest

from dkg.lexicon.clinical import implied_facts
from dkg.qa.facts import extract_facts
from dkg.qa.way_in import holds
from dkg.types import Constraint


def facts(question: str) -> dict[str, float | str]:
    return implied_facts(extract_facts(question))


@pytest.mark.parametrize("question", [
    "Ph- ALL in CR1 after consolidation; no transplant. Maintenance?",
    "Ph-negative B-ALL, never transplanted, starting maintenance",
    "no prior allo-HCT, Ph- ALL in remission",
    "never had a stem cell transplant",  # negated: never the transplant itself
])
def test_no_transplant_so_far_is_read(question: str) -> None:
    assert facts(question)["prior_therapy"] == "no_transplant"


def test_a_transplant_given_or_ineligibility_is_not_no_transplant() -> None:
    assert facts("Ph+ ALL, 18 months after an allogeneic transplant")["prior_therapy"] == "transplant"
    assert "prior_therapy" not in facts("not a transplant candidate, Ph- ALL")


def test_no_transplant_passes_only_the_arrows_that_exclude_a_transplant() -> None:
    assert holds(Constraint.parse("prior_therapy!=transplant"), "no_transplant")
    assert not holds(Constraint.parse("prior_therapy=transplant"), "no_transplant")
    assert not holds(Constraint.parse("prior_therapy in {chemotherapy,surgery}"), "no_transplant")
