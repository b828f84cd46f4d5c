"""Recorded review files: the shipped one validates; a bad one is refused naming the file and the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.graph.drafts import OnboardingError
from dkg.graph.drafts_replay import load_review, review_files
from dkg.vocabulary import GUIDELINES_ROOT


def test_the_shipped_review_file_validates() -> None:
    [path] = review_files(GUIDELINES_ROOT)
    recorded = load_review(path)
    assert (recorded.guideline, recorded.version, recorded.pages) == ("cardiac-smog", "1.2026", "1,2,4,5,7")
    assert all(d.reason.strip() for d in recorded.decisions) and all(e.reason for e in recorded.add.edges)
    assert not {"3", "6"} & set(recorded.pages.split(","))  # PDF pages 3 and 6: smog-44, smog-49, held out


@pytest.mark.parametrize(("text", "problem"), [
    ("guideline: g\nversion: '1'\npdf: x.pdf\ndecisions: [{item: n1, expect: A, text: B}]\n", "reason"),
    ("guideline: g\nversion: '1'\npdf: x.pdf\nsurprise: 1\n", "surprise"),
    ("guideline: [unclosed\n", "not valid UTF-8 YAML"),
])
def test_a_bad_review_file_is_refused_by_name(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "review-1.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(OnboardingError, match=problem) as info:
        load_review(path)
    assert str(path) in str(info.value)
