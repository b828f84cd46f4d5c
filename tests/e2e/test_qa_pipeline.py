"""End to end on the real Neo4j: quick dataset (every item verified by running its query), a TINY
text-to-Cypher model trained for about a minute, and the service's answers and refusals."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from dkg.config import Settings
from dkg.errors import QAError
from dkg.graph.db import Graph
from dkg.qa.dataset import QAItem
from dkg.qa.queries import QuestionType, parse_model_output
from dkg.qa.seq2seq import INT8_MIN_AGREEMENT, Seq2Seq, int8_agreement
from dkg.qa.service import TextToCypherService
from dkg.qa.training import ensure_dataset, ensure_model

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]


@pytest.fixture(scope="module")
def quick_items(neo4j_settings: Settings, graph: Graph) -> list[QAItem]:
    items, _ = ensure_dataset(neo4j_settings, quick=True)
    return items


@pytest.fixture(scope="module")
def service(neo4j_settings: Settings, quick_items: list[QAItem]) -> Iterator[TextToCypherService]:
    folder = ensure_model(neo4j_settings, quick=True, force=True)  # always a fresh tiny model
    versions = {i.guideline: i.version for i in quick_items}
    with TextToCypherService(neo4j_settings, model_dir=folder, versions=versions) as svc:
        yield svc


def test_quick_dataset_is_verified_and_split_by_scenario(quick_items: list[QAItem]) -> None:
    assert len(quick_items) > 200
    assert all(i.dkg_response == [i.expected_node] for i in quick_items)
    splits: dict[str, set[str]] = {}
    for i in quick_items:
        splits.setdefault(i.scenario_id, set()).add(i.split.replace("test_unseen", "test"))
    assert all(len(s) == 1 for s in splits.values())


def test_tiny_model_learns_its_training_items(service: TextToCypherService, quick_items: list[QAItem],
                                              neo4j_settings: Settings) -> None:
    meta = json.loads((neo4j_settings.home / "qa" / "text2cypher-quick" / "meta.json").read_text())
    losses = meta["train_report"]["losses"]
    assert losses[-1] < 0.5 * losses[0]
    train = [i for i in quick_items if i.split == "train"][:80]
    model = Seq2Seq.load(neo4j_settings.home / "qa" / "text2cypher-quick")
    outputs = model.greedy([i.question for i in train])
    valid = 0
    for out in outputs:
        try:
            parse_model_output(out)
            valid += 1
        except QAError:
            pass
    assert valid / len(train) >= 0.6


def test_int8_answering_only_when_it_kept_the_fp32_beams_on_dev(service: TextToCypherService,
                                                                quick_items: list[QAItem],
                                                                neo4j_settings: Settings) -> None:
    fp32 = Seq2Seq.load(neo4j_settings.home / "qa" / "text2cypher-quick")
    assert type(fp32.model.model.decoder.layers[0].fc1).__module__ == "torch.nn.modules.linear"
    dev = [i.question for i in quick_items if i.split == "dev"][:60]
    recorded = fp32.meta["int8_dev_agreement"]
    assert recorded == pytest.approx(int8_agreement(fp32, dev))
    served_int8 = ".quantized.dynamic." in type(service.model.model.model.decoder.layers[0].fc1).__module__
    assert served_int8 == (neo4j_settings.qa_int8 and recorded >= INT8_MIN_AGREEMENT)
    assert fp32.for_answering(False) is fp32
    forced = Seq2Seq(fp32.tokenizer, fp32.model, fp32.size, {"int8_dev_agreement": 1.0}).for_answering(True)
    assert ".quantized.dynamic." in type(forced.model.model.decoder.layers[0].fc1).__module__
    assert type(fp32.model.model.decoder.layers[0].fc1).__module__ == "torch.nn.modules.linear"  # copy, not in place


def test_answers_carry_query_and_nodes(service: TextToCypherService, quick_items: list[QAItem]) -> None:
    train = [i for i in quick_items if i.split == "train" and i.question_type is QuestionType.NEXT_STEP][:10]
    answers = [service.answer(i.question) for i in train]
    answered = [a for a in answers if a.answered]
    assert answered, [a.no_answer_reason for a in answers]
    for a in answered:
        assert a.route == "text2cypher" and a.cypher and a.matched_nodes and a.answer
        assert "generate" in a.timings_ms and "total" in a.timings_ms
    assert service.executor.unsafe_executed == 0


@pytest.mark.parametrize(("question", "reason"), [
    ("", "empty"),
    ("   ", "empty"),
    ("ALL " + "very long question " * 60, "too long"),
    ("What's the weather like tomorrow?", "out of scope"),
    ("What is the best treatment for metastatic breast cancer?", "breast cancer"),
])
def test_bad_input_gets_a_reason_not_an_answer(service: TextToCypherService, question: str, reason: str) -> None:
    a = service.answer(question)
    assert not a.answered and a.answer == "" and not a.matched_nodes
    assert reason in (a.no_answer_reason or "")
