"""Pure parts of the CPG-QA generator, and the committed dataset's invariants."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from dkg.qa.dataset import DATASET_PATH, _requirements, _sample_facts, _scenario_split, load_dataset, render_question
from dkg.qa.facts import detect_guidelines, extract_facts
from dkg.qa.queries import QuestionType, parse_model_output
from dkg.qa.templates import FRAMES, UNSEEN
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


def test_split_is_a_pure_function_of_the_scenario() -> None:
    splits = [_scenario_split(f"scenario-{i}") for i in range(3000)]
    assert _scenario_split("abc") == _scenario_split("abc")
    share = {s: splits.count(s) / len(splits) for s in ("train", "dev", "test")}
    assert 0.65 < share["train"] < 0.75 and 0.12 < share["dev"] < 0.18 and 0.12 < share["test"] < 0.18


@pytest.fixture(scope="module")
def items() -> list[dict]:
    if not DATASET_PATH.is_file():
        pytest.skip("dataset not generated yet (dkg dataset build)")
    return load_dataset()


def test_dataset_size_and_types(items: list[dict]) -> None:
    assert len(items) >= 8300
    assert {i["question_type"] for i in items} == {"next_step", "conditions", "advise"}
    assert {i["guideline"] for i in items} == {"ALL", "kidney", "bone"}


def test_no_scenario_in_two_splits(items: list[dict]) -> None:
    by_scenario: dict[str, set[str]] = defaultdict(set)
    for i in items:
        by_scenario[i["scenario_id"]].add("test" if i["split"] == "test_unseen" else i["split"])
    assert all(len(s) == 1 for s in by_scenario.values())


def test_unseen_templates_never_in_training(items: list[dict]) -> None:
    train_frames = {i["template_id"] for i in items if i["split"] in ("train", "dev")}
    unseen_frames = {i["template_id"] for i in items if i["split"] == "test_unseen"}
    assert unseen_frames and unseen_frames <= UNSEEN
    assert not train_frames & UNSEEN


def test_every_kept_item_was_verified(items: list[dict]) -> None:
    for i in items:
        assert i["DKG_response"] == [i["Expected_Node"]]
        assert i["ANSWER"]
        sketch = parse_model_output(i["target"])
        assert sketch.cypher() == i["QUERY"]
        assert set(sketch.keys) == set(extract_facts(i["QUESTION"]))
