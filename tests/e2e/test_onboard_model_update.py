"""A model update follows a published guideline (issue #19 item 4), on the real services: the shipped onboarded
guideline's recorded review replayed on the real PDF (parser, Stanford CoreNLP, Neo4j) and published, its
questions generated, then what `dkg publish --train` runs (:func:`dkg.qa.training_update.update_model`) with a
small budget: a fine-tune of the served model, the gate on CPG-QA dev and the generated dev, the decision audited
and the served model answering generated questions it was not trained on; a candidate the gate passes is served
by a default ``TextToCypherService`` and rolled back to the shipped model."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from dkg.config import PROJECT_ROOT, Settings
from dkg.graph.db import Graph, named_queries
from dkg.graph.drafts_replay import onboard_reviewed
from dkg.qa import served_model
from dkg.qa.dataset import GenConfig, QAItem
from dkg.qa.generated import generate_for_version
from dkg.qa.model_gate import GateSettings
from dkg.qa.service import TextToCypherService
from dkg.qa.training_update import UpdateOutcome, UpdateSettings, update_model
from dkg.vocabulary import reload_vocabulary

# training and scoring two models: about 12 min on an idle 2-core machine, more under load (the suite's 900 s
# timeout stopped it in the gate at load 10)
pytestmark = [pytest.mark.neo4j, pytest.mark.timeout(2400)]

# The update fine-tunes the served model, the shipped one here; a fresh clone has it only after the main job
# (`make demo` / `dkg train cypher`, about 12 min), which the test command does not run.
if not (served_model.shipped_model_dir() / "model.pt").is_file():
    pytest.skip(f"the shipped model {served_model.shipped_model_dir()} is not trained yet (dkg train cypher)",
                allow_module_level=True)

REVIEW = PROJECT_ROOT / "datasets" / "guidelines" / "cardiac-smog" / "review-1.2026.yaml"
NAME, VERSION = "cardiac-smog", "1.2026"
CORENLP_PORT = int(os.environ.get("DKG_TEST_CORENLP_PORT", "9031"))
SMALL_GATE = GateSettings(old_dev_sample=40)
# two short epochs (about 60 steps): enough to learn the new guideline's query head, not to keep CPG-QA's figure
SMALL_UPDATE = UpdateSettings(old_train_sample=300, new_repeat=2, dev_old=60, max_epochs=2, max_minutes=4.0)


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
def outcome(graph: Graph, settings: Settings, generated: list[QAItem]) -> UpdateOutcome:
    return update_model(settings, gate=SMALL_GATE, config=SMALL_UPDATE, who="e2e", graph=graph)


def _answers(service: TextToCypherService, items: list[QAItem]) -> int:
    return sum(service.answer(i.question).matched_nodes == [i.expected_node] for i in items)


def _held_out(generated: list[QAItem]) -> list[QAItem]:
    return [i for i in generated if i.split in ("test", "test_unseen")][:6]


def test_the_update_is_gated_audited_and_the_served_model_answers_generated_questions(
        graph: Graph, settings: Settings, generated: list[QAItem], outcome: UpdateOutcome) -> None:
    changes = served_model.history(settings)
    assert [c.action for c in changes] == ["install" if outcome.installed else "keep"]
    change = changes[0]
    assert change.who == "e2e" and change.reason == outcome.reason and change.candidate == outcome.candidate
    assert set(change.scores) == {"served", "candidate"}
    assert change.scores["candidate"]["new_dev"]["n"] == sum(i.split == "dev" for i in generated) > 0
    assert change.scores["candidate"]["old_dev"]["n"] == SMALL_GATE.old_dev_sample
    assert served_model.served_model_dir(settings) == outcome.served
    if outcome.installed:
        assert outcome.reason.startswith("installed") and outcome.served.parent == served_model.served_root(settings)
    else:
        assert outcome.reason.startswith("kept the served model")
        assert outcome.served == served_model.shipped_model_dir() and (outcome.candidate / "model.pt").is_file()
    versions = {**dict(GenConfig().versions), NAME: VERSION}
    with TextToCypherService(settings, graph=graph, versions=versions) as service:  # no folder: the served model
        assert _answers(service, _held_out(generated)) >= 5


def test_a_candidate_the_gate_passes_is_served_then_rolled_back(
        graph: Graph, settings: Settings, generated: list[QAItem], outcome: UpdateOutcome, tmp_path: Path) -> None:
    if outcome.installed:
        served_model.rollback(settings, reason="e2e: start from the shipped model")
        candidate = outcome.served
    else:
        candidate = outcome.candidate
    copy = tmp_path / "candidate"
    shutil.copytree(candidate, copy)
    # a curator who accepts any drop on the old guidelines: the candidate improves the generated dev's beams
    passed = update_model(settings, trained=copy, gate=GateSettings(old_dev_sample=20, max_old_drop=0.99),
                          who="e2e", graph=graph)
    if not passed.installed:
        pytest.fail(f"the fine-tuned candidate should improve the generated dev: {passed.reason}")
    served = served_model.served_model_dir(settings)
    assert served == passed.served != served_model.shipped_model_dir() and not copy.exists()
    versions = {**dict(GenConfig().versions), NAME: VERSION}
    with TextToCypherService(settings, graph=graph, versions=versions) as service:
        assert service.model is not None
        heads = service.model.greedy([i.question for i in _held_out(generated)])
        assert any(f"WITH '{NAME}' AS guideline" in h for h in heads), heads  # it learnt the new query head
        assert _answers(service, _held_out(generated)) >= 5
    back = served_model.rollback(settings, reason="e2e rollback")
    assert back.model_dir == served_model.shipped_model_dir() == served_model.served_model_dir(settings)
    assert served.is_dir()  # the rolled-back model is kept on disk
