"""Which guideline a question names when one topic's name stands inside another's (dkg.qa.facts)."""

from __future__ import annotations

import pytest

import dkg.qa.facts as facts
from dkg.lexicon.topics import GuidelineTopic, TopicName


@pytest.fixture
def topics(monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = (GuidelineTopic("cardiac", (TopicName(alias="cardiac arrest"), TopicName(alias="bradycardia")), ()),
               GuidelineTopic("post-arrest", (TopicName(alias="post-cardiac arrest care"),), ()))
    monkeypatch.setattr(facts, "guideline_topics", lambda: shipped)


@pytest.mark.parametrize(("question", "named"), [
    ("Post-cardiac arrest care: after the 12 lead ECG, what next?", ["post-arrest"]),
    ("post cardiac arrest care — BP 80/50 after ROSC?", ["post-arrest"]),
    ("Cardiac arrest, non-shockable: what next?", ["cardiac"]),
    # a name of its own outside the longer mention still names the other topic
    ("Bradycardia during post-cardiac arrest care: atropine?", ["cardiac", "post-arrest"]),
])
def test_a_name_inside_a_longer_name_of_another_topic_does_not_count(topics: None, question: str,
                                                                     named: list[str]) -> None:
    assert facts.named_guidelines(question) == named
