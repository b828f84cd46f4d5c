"""The clinicians' register of the CPG-QA generator (issue #17 item 5): note-style frames for every question type,
age/sex shorthand, the clinical lexicon's wordings of each fact, negation and history, endings with or without a
question mark, typos that spare the treatment asked about."""

from __future__ import annotations

import random
import re

import pytest

from dkg.qa.dataset import note_wordings, render_note, render_question
from dkg.qa.facts import GUIDELINE_NAMES, detect_guidelines, extract_facts
from dkg.qa.queries import QuestionType
from dkg.qa.templates import FRAMES, UNSEEN, age_sex_shorthand, clinicians_register, note_ending, typo

CASES = [
    ("ALL", {"age": 22.0, "ph": "+", "lineage": "b_cell", "comorbidity": "none"}),
    ("ALL", {"age": 45.0, "ph": "-", "response": "cr", "mrd": "positive"}),
    ("kidney", {"stage": "III", "histology": "clear_cell", "prior_therapy": "surgery", "risk": "high"}),
    ("kidney", {"tumor_size": 4.0, "stage": "I", "performance_status": 1.0}),
    ("bone", {"age": 15.0, "histology": "osteosarcoma", "metastasis": "none", "necrosis": 95.0}),
]


def test_every_question_type_has_a_clinicians_register_for_training_and_for_the_unseen_split() -> None:
    for qtype, frames in FRAMES.items():
        notes = [f for f in frames if clinicians_register(f)]
        assert len([f for f in notes if f not in UNSEEN]) >= 8, qtype
        assert [f for f in notes if f in UNSEEN], qtype
    patient_frames = [t for qtype in ("next_step", "advise") for f, t in FRAMES[qtype].items()
                      if clinicians_register(f)]
    assert all("{note" in t for t in patient_frames)


def test_no_frame_names_a_guideline() -> None:
    names = {n.casefold() for names in GUIDELINE_NAMES.values() for n in names} | {"all", "kidney", "bone"}
    for frames in FRAMES.values():
        for text in frames.values():
            words = set(re.findall(r"[a-z]+", re.sub(r"\{[a-z_]+\}", " ", text).casefold()))
            assert not words & names, text


@pytest.mark.parametrize("age", [6.0, 22.0, 68.0])
def test_age_sex_shorthand_reads_back_as_the_age(age: float) -> None:
    rng = random.Random(3)
    for _ in range(12):
        token = age_sex_shorthand(rng, age, None)
        assert extract_facts(f"{token}, renal mass.")["age"] == age, token


def test_notes_read_back_to_their_facts_and_guideline() -> None:
    rng = random.Random(11)
    total = good = 0
    for guideline, facts in CASES:
        for _ in range(10):
            note, inline = render_note(guideline, facts, {}, rng)
            assert note.casefold().startswith(inline.split(",")[0].casefold())
            total += 1
            good += extract_facts(note) == facts and detect_guidelines(note)[:1] == [guideline]
    # the generator drops the rest (round-trip check); most notes must survive it
    assert good >= 0.8 * total


def test_note_wordings_come_from_the_clinical_lexicon_with_negations_and_history() -> None:
    wordings = note_wordings()
    assert "no comorbs" in wordings[("comorbidity", "none")]  # a lexicon phrase
    assert "denies pmh" in wordings[("comorbidity", "none")]  # a negated lexicon concept
    assert "s/p resection" in wordings[("prior_therapy", "surgery")]  # the course so far
    for (key, value), phrases in wordings.items():
        assert phrases and all(p.strip() for p in phrases), (key, value)


def test_note_endings_vary_and_typos_spare_the_treatment() -> None:
    rng = random.Random(2)
    endings = {note_ending(rng, "Plan?")[-1:] for _ in range(60)}
    assert {"?", "n"} <= endings  # with and without the question mark
    for _ in range(40):
        text = typo(rng, "Thinking of blinatumomab therapy appropriate", keep="blinatumomab")
        assert "blinatumomab" in text


def test_rendered_note_questions_keep_the_treatment_and_read_back() -> None:
    rng = random.Random(7)
    facts = {"age": 30.0, "comorbidity": "none", "lineage": "b_cell", "ph": "+"}
    frames = [f for f in FRAMES["advise"] if clinicians_register(f)]
    ok = 0
    for frame in frames:
        q = render_question(QuestionType.ADVISE, frame, "ALL", rng, facts=facts, bands={}, treatment="blinatumomab")
        assert "blinatumomab" in q
        ok += extract_facts(q) == facts
    assert ok >= len(frames) - 2
