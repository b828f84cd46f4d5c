"""QA follows a published guideline (issue #19 item 4): questions generated from the shipped onboarded guideline's
graph on the real services (its recorded review replayed on the real PDF: parser, Stanford CoreNLP, Neo4j), each
kept only when its gold query returned the expected step; written under the data folder; refused for a version
that is not published."""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from dkg.config import PROJECT_ROOT, Settings
from dkg.errors import QAError
from dkg.graph.db import Graph, named_queries
from dkg.graph.drafts_replay import onboard_reviewed
from dkg.qa.generated import GeneratedSet, generate_for_version, load_generated
from dkg.vocabulary import reload_vocabulary

pytestmark = pytest.mark.neo4j

REVIEW = PROJECT_ROOT / "datasets" / "guidelines" / "cardiac-smog" / "review-1.2026.yaml"
NAME, VERSION = "cardiac-smog", "1.2026"
CORENLP_PORT = int(os.environ.get("DKG_TEST_CORENLP_PORT", "9031"))


@pytest.fixture(scope="module")
def settings(neo4j_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return neo4j_settings.model_copy(update={"corenlp_port": CORENLP_PORT,
                                             "home": tmp_path_factory.mktemp("questions-home")})


@pytest.fixture(scope="module")
def generated(graph: Graph, settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GeneratedSet]:
    onboard_reviewed(graph, REVIEW, settings=settings, work=Path(tmp_path_factory.mktemp("questions-work")),
                     echo=lambda _: None)
    yield generate_for_version(graph, settings, NAME, VERSION)
    q = named_queries("onboard")
    for name in ("delete_published", "delete_draft"):
        graph.write(q[name], {"uid": f"{NAME}|{VERSION}"})
    graph.write(q["delete_orphan_treatments"])
    reload_vocabulary()


def test_questions_of_every_type_and_split_are_written_under_the_data_folder(generated: GeneratedSet,
                                                                             settings: Settings) -> None:
    assert generated.path == settings.home / "qa" / "generated" / f"{NAME}-{VERSION}.json.gz"
    assert load_generated(settings, NAME, VERSION) == generated.items
    assert len(generated.items) >= 100
    assert {"train", "dev", "test"} <= set(generated.split_counts())
    types = Counter(i.question_type.value for i in generated.items)
    assert set(types) == {"next_step", "advise", "conditions"}, types
    assert all(i.guideline == NAME and i.version == VERSION for i in generated.items)
    assert all(i.target.startswith(f"WITH '{NAME}' AS guideline") for i in generated.items)
    scenarios: dict[str, set[str]] = {}
    for i in generated.items:
        scenarios.setdefault(i.scenario_id, set()).add("test" if i.split == "test_unseen" else i.split)
    assert all(len(s) == 1 for s in scenarios.values())  # a scenario's questions share a split


def test_each_gold_query_returns_its_expected_step_on_the_published_graph(generated: GeneratedSet,
                                                                          graph: Graph) -> None:
    for item in random.Random(3).sample(generated.items, 25):
        rows = graph.read(item.query, dict(item.params))
        assert [r["uid"] for r in rows] == item.dkg_response and item.expected_node in item.dkg_response, item.question
    words = " ".join(i.question.lower() for i in generated.items)
    assert "heart rate" in words or "hr " in words  # the vocabulary's wordings, not the oncology lexicon's


def test_a_version_that_is_not_published_gets_no_questions(graph: Graph, settings: Settings,
                                                           generated: GeneratedSet) -> None:
    with pytest.raises(QAError, match="9.2099 is not published"):
        generate_for_version(graph, settings, NAME, "9.2099")
    with pytest.raises(QAError, match="no generated questions"):
        load_generated(settings, NAME, "9.2099")


def test_unpublishing_forgets_the_generated_questions(graph: Graph, settings: Settings,
                                                      generated: GeneratedSet) -> None:
    """Before, an unpublished version's questions stayed under the data folder, and the next model update
    (all_generated) trained on a guideline clinicians no longer see. Runs last: it unpublishes the version."""
    from dkg.graph.onboard import unpublish_version
    from dkg.qa.generated import all_generated

    assert generated.path.is_file() and any(i.guideline == NAME for i in all_generated(settings))
    unpublish_version(graph, NAME, VERSION, settings=settings, who="e2e")
    assert not generated.path.exists() and not generated.path.with_name(f"{NAME}-{VERSION}.meta.json").exists()
    assert not any(i.guideline == NAME for i in all_generated(settings))
