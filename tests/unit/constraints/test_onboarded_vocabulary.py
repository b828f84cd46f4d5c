"""An onboarded guideline's vocabulary (the shipped cardiac-smog) does not change how the shipped guidelines'
boxes are read: the extractor's fixed phrases leave its keys out."""

from __future__ import annotations

from dkg.constraints.categorical import _fixed_phrases
from dkg.vocabulary import VOCABULARY, onboarded_sources


def test_the_shipped_onboarded_guideline_is_recognised() -> None:
    assert "cardiac-smog" in onboarded_sources()
    assert not {"ALL", "bone", "kidney"} & onboarded_sources()


def test_fixed_phrases_leave_out_onboarded_keys() -> None:
    onboarded = {k for k, spec in VOCABULARY.items() if spec.source in onboarded_sources()}
    assert {"av_block", "signs_of_hemodynamic_compromise"} <= onboarded
    assert not {key for key, _value, _pattern in _fixed_phrases()} & onboarded
