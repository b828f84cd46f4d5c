"""Every recorded review (the shipped onboarded guideline's and the held-out one's) still names boxes and arrows
the parser reads today: a parser change that renames a box breaks a replay, and this says which file to update
(the held-out cbrn-bio review named a box by a pictogram the parser had stopped reading as "A")."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.config import PROJECT_ROOT
from dkg.constraints.io import ConstrainedEdge
from dkg.graph.drafts_replay import load_review, resolve, review_files
from dkg.graph.onboard import draft_items_of
from dkg.parsing import parse_pdf
from dkg.vocabulary import GUIDELINES_ROOT

REVIEWS = [*review_files(GUIDELINES_ROOT), *review_files(PROJECT_ROOT / "datasets" / "onboarding" / "heldout")]


def test_there_are_recorded_reviews_to_check() -> None:
    assert len(REVIEWS) >= 2


@pytest.mark.parametrize("path", REVIEWS, ids=lambda p: p.parent.name)
def test_a_recorded_reviews_boxes_and_arrows_are_in_todays_parse(path: Path) -> None:
    recorded = load_review(path)
    result = parse_pdf(PROJECT_ROOT / recorded.pdf, pages=recorded.pages)
    items = draft_items_of([ConstrainedEdge(edge, [], [], None) for edge in result.edges])
    # proposed keys come from the constraint extractor too (CoreNLP): only boxes and arrows are checked here
    boxes_and_arrows = recorded.model_copy(update={"decisions": [d for d in recorded.decisions if d.key is None]})
    decided, ends = resolve(boxes_and_arrows, items)
    assert len(decided) == len(boxes_and_arrows.decisions) and len(ends) == len(recorded.add.edges)
