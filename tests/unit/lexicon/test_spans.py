"""The one per-key span claim shared by the clinical lexicon and the onboarded vocabulary reader."""

from __future__ import annotations

from dkg.lexicon import clinical
from dkg.lexicon.spans import KeySpans
from dkg.qa import vocabulary_facts


def test_a_key_claims_characters_once_other_keys_share_them() -> None:
    spans = KeySpans(12)
    assert spans.claim("metastasis", 0, 9)
    assert not spans.claim("metastasis", 8, 12)  # overlaps: nothing taken
    assert spans.claim("metastasis", 9, 12)
    assert spans.claim("site", 0, 12)


def test_both_readers_use_the_shared_helper() -> None:
    assert clinical.KeySpans is KeySpans and vocabulary_facts.KeySpans is KeySpans
