"""The committed question sets are what the generators produce from the shipped sources."""

from __future__ import annotations

import json

import pytest

from dkg.retrieval.knowledge import load_sections
from dkg.retrieval.questions import (
    DATA_DIR,
    dkg_questions,
    heldout_questions,
    load_set,
    medquad_questions,
    paraphrase_questions,
    role_trap_questions,
    split_users,
)
from dkg.retrieval.settings import load_retrieval_settings


@pytest.fixture(scope="module")
def sections():  # type: ignore[no-untyped-def]
    path = load_retrieval_settings().medquad_dir
    if not (path / "qa.jsonl").is_file():
        pytest.skip(f"MedQuAD not found at {path}")
    return load_sections(path)


def _as_dicts(questions):  # type: ignore[no-untyped-def]
    return [json.loads(json.dumps({"qid": q.qid, "question": q.question, "qrels": q.qrels})) for q in questions]


def test_committed_sets_match_generation(sections) -> None:  # type: ignore[no-untyped-def]
    generated = {"medquad": medquad_questions(sections), "paraphrase": paraphrase_questions(sections),
                 "heldout": heldout_questions(sections),
                 "role_traps": role_trap_questions(sections), "dkg": dkg_questions()}
    for name, questions in generated.items():
        assert _as_dicts(load_set(name)) == _as_dicts(questions), name


def test_paraphrases_do_not_copy_medquad_questions(sections) -> None:  # type: ignore[no-untyped-def]
    templated = {" ".join(s.question.split()).casefold() for s in sections}
    for q in load_set("paraphrase") + load_set("heldout"):
        assert " ".join(q.question.split()).casefold() not in templated
    assert (DATA_DIR / "paraphrases.jsonl").is_file()


def test_heldout_paraphrases_are_new_questions() -> None:
    first = {q.question.casefold() for q in load_set("paraphrase")}
    heldout = load_set("heldout")
    assert len(heldout) >= 30
    assert not first & {q.question.casefold() for q in heldout}


def test_role_traps_come_in_adult_child_pairs() -> None:
    traps = load_set("role_traps")
    groups: dict[tuple[str, str], set[str]] = {}
    for q in traps:
        groups.setdefault((q.meta["qtype"], frozenset((q.meta["focus"], q.meta["competitor"]))), set()).add(  # type: ignore[arg-type]
            q.meta["group"])
    assert groups and all(g == {"adults", "children"} for g in groups.values())


def test_users_split_is_the_seeded_stratified_rule() -> None:
    dev_rows = [json.loads(line) for line in (DATA_DIR / "users_dev.jsonl").read_text().splitlines()]
    held_rows = [json.loads(line) for line in (DATA_DIR / "users_heldout.jsonl").read_text().splitlines()]
    union = sorted(dev_rows + held_rows, key=lambda r: r["id"])
    assert len(union) == 40 and len({r["id"] for r in union}) == 40
    dev, held = split_users(union)
    assert [r["id"] for r in dev] == [r["id"] for r in dev_rows]
    assert [r["id"] for r in held] == [r["id"] for r in held_rows]
    for category in {r["category"] for r in union}:
        n = sum(r["category"] == category for r in union)
        assert sum(r["category"] == category for r in held) == round(n / 3)


def test_users_sets_load_as_graded_questions() -> None:
    dev, held = load_set("users_dev"), load_set("users_heldout")
    assert (len(dev), len(held)) == (27, 13)
    assert all(q.qrels and max(q.qrels.values()) >= 1 and q.meta["category"] for q in dev + held)
    assert not {q.question for q in dev} & {q.question for q in held}
