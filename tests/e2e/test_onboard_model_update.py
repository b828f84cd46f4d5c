"""A model update follows a published guideline (issue #19 item 4), on the real services: the shipped onboarded
guideline's recorded review replayed on the real PDF (parser, Stanford CoreNLP, Neo4j) and published, its
questions generated, then what `dkg publish --train` runs (:func:`dkg.qa.training_update.update_model`) with a
small budget: a fine-tune of the served model, the gate on CPG-QA dev and the generated dev, the decision audited
and the served model answering generated questions it was not trained on; a candidate the gate passes is served
by a default ``TextToCypherService`` and rolled back to the model it replaced.

The served model the update starts from is the test's own: a tiny model trained here from a sample of the shipped
CPG-QA dataset and installed in the test's data folder, so the test runs the same in a fresh clone (whose shipped
``models/text2cypher`` is untrained: its weights are git-ignored) and never depends on the shipped weights."""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from dkg.config import PROJECT_ROOT, Settings
from dkg.graph.db import Graph, named_queries
from dkg.graph.drafts_replay import onboard_reviewed
from dkg.qa import served_model
from dkg.qa.dataset import GenConfig, QAItem, load_dataset
from dkg.qa.generated import generate_for_version
from dkg.qa.model_gate import GateSettings
from dkg.qa.seq2seq import ModelSize, Seq2Seq, train
from dkg.qa.service import TextToCypherService
from dkg.qa.training import guideline_corpus, pairs
from dkg.qa.training_update import UpdateOutcome, UpdateSettings, update_model
from dkg.vocabulary import reload_vocabulary

# training a tiny base model, fine-tuning it and scoring two models on small samples
pytestmark = [pytest.mark.neo4j, pytest.mark.timeout(2400)]

REVIEW = PROJECT_ROOT / "datasets" / "guidelines" / "cardiac-smog" / "review-1.2026.yaml"
NAME, VERSION = "cardiac-smog", "1.2026"
CORENLP_PORT = int(os.environ.get("DKG_TEST_CORENLP_PORT", "9031"))
SMALL_GATE = GateSettings(old_dev_sample=20)
# the base: a tiny model (0.5 M parameters) on a sample of CPG-QA's training questions, two minutes at the quick
# trainer's rate. It need not answer well: the test is about the update's machinery (train, gate, audit, serve,
# roll back), which must run the same in a fresh clone on any machine, not about what a tiny budget learns.
BASE_TRAIN, BASE_DEV, BASE_EPOCHS, BASE_MINUTES = 1500, 20, 3, 2.0
SMALL_UPDATE = UpdateSettings(old_train_sample=300, new_repeat=2, dev_old=20, max_epochs=2, max_minutes=2.0,
                              lr=2e-3)


@pytest.fixture(scope="module")
def settings(neo4j_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return neo4j_settings.model_copy(update={"corenlp_port": CORENLP_PORT,
                                             "home": tmp_path_factory.mktemp("model-update-home")})


@pytest.fixture(scope="module")
def generated(graph: Graph, settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[QAItem]]:
    onboard_reviewed(graph, REVIEW, settings=settings, work=Path(tmp_path_factory.mktemp("model-update-work")),
                     echo=lambda _: None)
    yield generate_for_version(graph, settings, NAME, VERSION).items
    q = named_queries("onboard")
    for name in ("delete_published", "delete_draft"):
        graph.write(q[name], {"uid": f"{NAME}|{VERSION}"})
    graph.write(q["delete_orphan_treatments"])
    reload_vocabulary()


@pytest.fixture(scope="module")
def base(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test's own base model, installed as the served one in the test's data folder (the shipped
    ``models/`` folder is neither read nor written)."""
    items = load_dataset()
    folder = tmp_path_factory.mktemp("model-update-base") / "text2cypher-base"
    sample = random.Random(13).sample(pairs(items, "train"), BASE_TRAIN)  # every guideline and template
    train(sample, pairs(items, "dev")[:BASE_DEV], guideline_corpus(GenConfig().versions),
          folder, ModelSize.tiny(), max_epochs=BASE_EPOCHS, max_minutes=BASE_MINUTES, lr=2e-3, batch_size=16,
          patience=BASE_EPOCHS, meta={"kind": "text2cypher"})
    change = served_model.install(settings, folder, reason="e2e: the test's base model", who="e2e")
    assert served_model.served_model_dir(settings) == change.model_dir != served_model.shipped_model_dir()
    return change.model_dir


@pytest.fixture(scope="module")
def outcome(graph: Graph, settings: Settings, generated: list[QAItem], base: Path) -> UpdateOutcome:
    return update_model(settings, gate=SMALL_GATE, config=SMALL_UPDATE, who="e2e", graph=graph)


def _answers(service: TextToCypherService, items: list[QAItem]) -> int:
    return sum(service.answer(i.question).matched_nodes == [i.expected_node] for i in items)


def _held_out(generated: list[QAItem]) -> list[QAItem]:
    return [i for i in generated if i.split in ("test", "test_unseen")][:6]


def test_the_update_is_gated_audited_and_the_served_model_answers_generated_questions(
        graph: Graph, settings: Settings, generated: list[QAItem], base: Path, outcome: UpdateOutcome) -> None:
    changes = served_model.history(settings)
    assert [c.action for c in changes] == ["install", "install" if outcome.installed else "keep"]  # base, update
    change = changes[1]
    assert change.who == "e2e" and change.reason == outcome.reason and change.candidate == outcome.candidate
    assert set(change.scores) == {"served", "candidate"}
    assert change.scores["candidate"]["new_dev"]["n"] == sum(i.split == "dev" for i in generated) > 0
    assert change.scores["candidate"]["old_dev"]["n"] == SMALL_GATE.old_dev_sample
    assert served_model.served_model_dir(settings) == outcome.served
    if outcome.installed:
        assert outcome.reason.startswith("installed") and outcome.served.parent == served_model.served_root(settings)
    else:
        assert outcome.reason.startswith("kept the served model")
        assert outcome.served == base and (outcome.candidate / "model.pt").is_file()
    versions = {**dict(GenConfig().versions), NAME: VERSION}
    with TextToCypherService(settings, graph=graph, versions=versions) as service:  # no folder: the served model
        assert _answers(service, _held_out(generated)) >= 5


def test_a_candidate_the_gate_passes_is_served_then_rolled_back(
        graph: Graph, settings: Settings, generated: list[QAItem], base: Path, outcome: UpdateOutcome,
        tmp_path: Path) -> None:
    if outcome.installed:
        served_model.rollback(settings, reason="e2e: start from the base model")
        candidate = outcome.served
    else:
        candidate = outcome.candidate
    copy = tmp_path / "candidate"
    shutil.copytree(candidate, copy)
    # a curator who accepts any drop on the old guidelines and no gain on the new one: what a tiny budget learns
    # is not this test's question, serving and rolling back what the gate passes is
    waived = GateSettings(old_dev_sample=20, max_old_drop=0.99, require_new_gain=False)
    passed = update_model(settings, trained=copy, gate=waived, who="e2e", graph=graph)
    assert passed.installed, passed.reason
    served = served_model.served_model_dir(settings)
    assert served == passed.served != base and not copy.exists()
    assert served_model.history(settings)[-1].action == "install"
    versions = {**dict(GenConfig().versions), NAME: VERSION}
    with TextToCypherService(settings, graph=graph, versions=versions) as service:  # no folder: the served model
        assert service.model is not None  # the fine-tune of the base, not the base
        assert service.model.meta["update"]["base"] == str(base) and "update" not in Seq2Seq.load(base).meta
        assert _answers(service, _held_out(generated)) >= 5
    back = served_model.rollback(settings, reason="e2e rollback")
    assert back.model_dir == base == served_model.served_model_dir(settings)
    assert served.is_dir()  # the rolled-back model is kept on disk
