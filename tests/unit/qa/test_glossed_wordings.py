"""A vocabulary wording taken from a box's text with its short form in brackets ("Return of Spontaneous Circulation
(ROSC)") is read from either half: clinicians write "ROSC achieved" or "no return of spontaneous circulation"."""

from __future__ import annotations

from dkg.qa.vocabulary_facts import vocabulary_facts

GUIDELINE = "cardiac-smog"  # shipped: its ROSC key's only wording is the box text with the initialism in brackets
KEY = "return_of_spontaneous_circulation_rosc"


def test_the_short_form_alone_states_the_key() -> None:
    assert vocabulary_facts("VF arrest, ROSC achieved after 2 shocks. Next?", [GUIDELINE])[KEY] == "yes"
    assert vocabulary_facts("VF, still no ROSC after 3 cycles. Next?", [GUIDELINE])[KEY] == "no"


def test_the_words_alone_state_it_too_and_the_full_wording_still_does() -> None:
    assert vocabulary_facts("Return of spontaneous circulation after CPR. Next?", [GUIDELINE])[KEY] == "yes"
    assert vocabulary_facts("Return of spontaneous circulation (ROSC). Next?", [GUIDELINE])[KEY] == "yes"
