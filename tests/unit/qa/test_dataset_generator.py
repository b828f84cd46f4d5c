"""Pure parts of the CPG-QA generator, and the committed dataset's invariants."""

from __future__ import annotations

import gzip
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from dkg.qa.dataset import (
    DATASET_PATH,
    DatasetError,
    GenConfig,
    QAItem,
    _requirements,
    _sample_facts,
    _scenario_split,
    dataset_hash,
    load_dataset,
    render_question,
    save_dataset,
    topic_name,
)
from dkg.qa.facts import GUIDELINE_NAMES, detect_guidelines, extract_facts
from dkg.qa.queries import QuestionType, parse_model_output
from dkg.qa.templates import FRAMES, UNSEEN
from dkg.qa.training import input_hash
from dkg.types import Constraint


def _satisfies(value: object, constraint: str) -> bool:
    c = Constraint.parse(constraint)
    v = c.value
    if c.op.value == "in":
        if isinstance(v, tuple):
            return v[0] <= value <= v[1]  # type: ignore[operator]
        return value in v  # type: ignore[operator]
    ops = {"=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
           "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
    return ops[c.op.value](value, v)


@pytest.mark.parametrize("constraints", [
    ["age in [15,39]", "comorbidity=none", "ph=+"],
    ["age>=65", "age<80", "mrd in {persistent,rising}"],
    ["performance_status<=1", "stage in {II,III}", "histology!=papillary"],
    ["tumor_size in [4.1,7]", "stage=I"],
])
def test_sampled_facts_satisfy_every_path_constraint(constraints: list[str]) -> None:
    reqs = _requirements(constraints)
    assert reqs is not None
    rng = random.Random(3)
    for _ in range(50):
        sampled = _sample_facts(reqs, rng)
        assert sampled is not None
        facts, _bands = sampled
        for c in constraints:
            assert _satisfies(facts[Constraint.parse(c).key], c), (facts, c)


def test_contradictory_path_has_no_scenario() -> None:
    assert _requirements(["ph=+", "ph=-"]) is None


def test_rendered_questions_read_back_to_the_same_facts() -> None:
    rng = random.Random(5)
    facts = {"age": 30.0, "comorbidity": "none", "lineage": "b_cell", "ph": "+"}
    ok = 0
    for frame in FRAMES["next_step"]:
        q = render_question(QuestionType.NEXT_STEP, frame, "ALL", rng, facts=facts, bands={})
        ok += extract_facts(q) == facts and detect_guidelines(q)[:1] == ["ALL"]
    assert ok >= len(FRAMES["next_step"]) - 1  # a typo may (rarely) hit a fact word; such items are dropped


def test_a_topic_name_never_states_a_fact_the_question_does_not_hold() -> None:
    rng = random.Random(3)
    carrying = 0
    for guideline in GUIDELINE_NAMES:
        names = {n: extract_facts(n) for n in GUIDELINE_NAMES[guideline]}
        carrying += sum(bool(read) for read in names.values())
        for facts in [{}, *({k: v} for read in names.values() for k, v in read.items())]:
            for _ in range(60):
                read = extract_facts(topic_name(guideline, facts, rng))
                assert read.items() <= facts.items(), (guideline, facts, read)
    assert carrying, "no topic name carries a fact: this test would not test anything"


def test_the_committed_dataset_is_generated_from_todays_inputs() -> None:
    """A lexicon, vocabulary, source, frame or query change without ``dkg dataset build --force`` fails here:
    a fresh clone would otherwise train on a different file than the one the README's figures describe."""
    meta = json.loads(DATASET_PATH.with_name("cpg-qa.meta.json").read_text())
    assert meta["input_hash"] == input_hash(GenConfig()), "regenerate: .venv/bin/dkg dataset build --force"


def test_split_is_a_pure_function_of_the_scenario() -> None:
    splits = [_scenario_split(f"scenario-{i}") for i in range(3000)]
    # pinned values: a split drawn from Python's per-process hash() (or any other change of the split) fails here
    assert [_scenario_split(f"scenario-{i}") for i in range(8)] == [
        "train", "dev", "train", "train", "train", "dev", "test", "train"]
    share = {s: splits.count(s) / len(splits) for s in ("train", "dev", "test")}
    assert 0.65 < share["train"] < 0.75 and 0.12 < share["dev"] < 0.18 and 0.12 < share["test"] < 0.18


@pytest.fixture(scope="module")
def items() -> list[QAItem]:
    if not DATASET_PATH.is_file():
        pytest.skip("dataset not generated yet (dkg dataset build)")
    return load_dataset()


def test_dataset_size_and_types(items: list[QAItem]) -> None:
    assert len(items) >= 8300
    assert {i.question_type for i in items} == set(QuestionType)
    assert {i.guideline for i in items} == {"ALL", "kidney", "bone"}
    assert [i.id for i in items] == list(range(len(items)))


def test_no_scenario_in_two_splits(items: list[QAItem]) -> None:
    by_scenario: dict[str, set[str]] = defaultdict(set)
    for i in items:
        by_scenario[i.scenario_id].add("test" if i.split == "test_unseen" else i.split)
    assert all(len(s) == 1 for s in by_scenario.values())


def test_unseen_templates_never_in_training(items: list[QAItem]) -> None:
    train_frames = {i.template_id for i in items if i.split in ("train", "dev")}
    unseen_frames = {i.template_id for i in items if i.split == "test_unseen"}
    assert unseen_frames and unseen_frames <= UNSEEN
    assert not train_frames & UNSEEN


def test_every_kept_item_was_verified(items: list[QAItem]) -> None:
    for i in items:
        assert i.dkg_response == [i.expected_node]
        assert i.answer
        sketch = parse_model_output(i.target)
        assert sketch.cypher() == i.query
        assert set(sketch.keys) == set(extract_facts(i.question))


def test_the_committed_dataset_round_trips_byte_for_byte(items: list[QAItem], tmp_path: Path) -> None:
    copy = tmp_path / DATASET_PATH.name
    data_hash = save_dataset(items, copy)
    assert copy.read_bytes() == DATASET_PATH.read_bytes()
    meta = json.loads(DATASET_PATH.with_name("cpg-qa.meta.json").read_text())
    assert data_hash == dataset_hash(items) == meta["data_hash"]


RECORD: dict[str, Any] = {
    "id": 0, "QUESTION": "A 30-year-old with Ph-positive B-ALL: what next?", "ANSWER": "TKI + chemotherapy",
    "QUERY": "WITH $guideline AS guideline ...", "PARAMS": {"age": 30.0, "ph": "+", "guideline": "ALL"},
    "Expected_Node": "ALL|1.2026|a", "DKG_response": ["ALL|1.2026|a"], "guideline": "ALL", "version": "1.2026",
    "question_type": "next_step", "scenario_id": "abc", "template_id": "n01", "split": "train",
    "target": "WITH 'ALL' AS guideline, {age: $age, ph: $ph} AS facts // next_step",
}


def _saved(tmp_path: Path, records: object) -> Path:
    path = tmp_path / "cpg-qa.json.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump(records, fh)
    return path


def test_a_valid_record_loads_with_its_json_types(tmp_path: Path) -> None:
    [item] = load_dataset(_saved(tmp_path, [RECORD]))
    assert item.question_type is QuestionType.NEXT_STEP and item.params["age"] == 30.0
    assert item.record() == RECORD


@pytest.mark.parametrize(("change", "message"), [
    ({"QUESTION": None}, "item 1 (id 1) is invalid: field 'QUESTION': Input should be a valid string"),
    ({"split": "validation"}, "field 'split': Input should be 'train', 'dev', 'test' or 'test_unseen'"),
    ({"question_type": "why"}, "field 'question_type': Input should be 'next_step', 'conditions' or 'advise'"),
    ({"Answer": "x"}, "field 'Answer': Extra inputs are not permitted"),
    ({"id": -1}, "item 1 (id -1) is invalid: field 'id': Input should be greater than or equal to 0"),
])
def test_a_malformed_item_is_refused_naming_the_item_and_field(tmp_path: Path, change: dict[str, Any],
                                                                message: str) -> None:
    path = _saved(tmp_path, [RECORD, {**RECORD, "id": 1, **change}])
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    text = str(caught.value)
    assert text.startswith(f"{path}: item 1 ") and message in text
    assert text.endswith("regenerate the file with `dkg dataset build --force`")


def test_a_missing_field_and_a_non_list_file_are_refused(tmp_path: Path) -> None:
    incomplete = {k: v for k, v in RECORD.items() if k != "Expected_Node"}
    with pytest.raises(DatasetError, match="item 0 \\(id 0\\) is invalid: field 'Expected_Node': Field required"):
        load_dataset(_saved(tmp_path, [incomplete]))
    with pytest.raises(DatasetError, match="expected a JSON list of items, found dict"):
        load_dataset(_saved(tmp_path, {"items": [RECORD]}))


def test_a_course_event_key_tested_only_against_a_value_gives_no_scenario() -> None:
    # 'recurrence confirmed? NO' after surveillance: neither a new diagnosis nor a relapse is that patient
    import random

    from dkg.qa.dataset import _sample_facts
    assert _sample_facts(_requirements(["disease_status!=recurrent", "histology=ewing"]), random.Random(1)) is None
    assert _sample_facts(_requirements(["disease_status=relapsed"]), random.Random(1)) is not None
