"""Onboarding a real guideline page end to end: PDF → parser → CoreNLP → draft → review → publish (real Neo4j,
real CoreNLP). The page is smog-46 (tachycardia, a DEV page of datasets/realpdfs/split.json: page 4 of the PDF)."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from dkg.config import PROJECT_ROOT, Settings
from dkg.graph.db import Graph, named_queries
from dkg.graph.drafts import (
    DraftItem,
    OnboardingError,
    draft_items,
    draft_page_titles,
    publish,
    review,
    review_history,
    set_page_title,
    unpublish,
    version_state,
)
from dkg.graph.onboard import onboard
from dkg.lexicon.topics import load_onboarded_topic
from dkg.lexicon.wording_groups import widened
from dkg.qa.vocabulary_facts import read_facts
from dkg.vocabulary import GUIDELINE_FILE, GUIDELINES_ROOT, VOCABULARY, reload_vocabulary

pytestmark = pytest.mark.neo4j

PDF = PROJECT_ROOT / "datasets" / "realpdfs" / "smog-cardiac-flowcharts.pdf"
PAGE = "4"  # smog-46, split "dev"
NAME, VERSION = "onboard-e2e", "1.2026"
CORENLP_PORT = int(os.environ.get("DKG_TEST_CORENLP_PORT", "9031"))


def _clean(graph: Graph, name: str) -> None:
    graph.write("MATCH (n:Node {guideline: $g}) DETACH DELETE n", {"g": name})
    graph.write("MATCH (g:GuidelineVersion {guideline: $g}) DETACH DELETE g", {"g": name})
    graph.write("MATCH (d:DraftVersion {of_guideline: $g}) OPTIONAL MATCH (d)-[:HAS_ITEM]->(i) DETACH DELETE i, d",
                {"g": name})
    graph.write("MATCH (a:ReviewAction) WHERE a.version_uid STARTS WITH $p DETACH DELETE a", {"p": name + "|"})


@pytest.fixture(scope="module")
def settings(neo4j_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return neo4j_settings.model_copy(update={"corenlp_port": CORENLP_PORT,
                                             "home": tmp_path_factory.mktemp("onboard-home")})


@pytest.fixture(scope="module")
def vocabulary_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A copy of the shipped guideline vocabularies: accepted keys are written here, not into the repository. The
    shipped onboarded guideline (cardiac-smog, its folder has a topic.yaml) defines keys for these very boxes, so
    it is left out: the page is onboarded as the new guideline it was before that review."""
    root = tmp_path_factory.mktemp("guidelines")
    for path in GUIDELINES_ROOT.glob(f"*/{GUIDELINE_FILE}"):
        if (path.parent / "topic.yaml").is_file():
            continue
        (root / path.parent.name).mkdir()
        shutil.copy(path, root / path.parent.name / GUIDELINE_FILE)
    yield root
    reload_vocabulary()


@pytest.fixture(scope="module")
def drafted(graph: Graph, settings: Settings, vocabulary_root: Path) -> Iterator[Graph]:
    reload_vocabulary(root=vocabulary_root)
    _clean(graph, NAME)
    onboard(graph, PDF, NAME, VERSION, pages=PAGE, settings=settings, echo=lambda _: None)
    yield graph
    _clean(graph, NAME)


def _visible(graph: Graph) -> dict[str, int]:
    """What the clinicians' read paths (CLI, API, QA look-ups, curation search, an unlabeled probe) see."""
    q = {name: named_queries(name) for name in ("cli", "api", "qa_graph", "curation", "build")}
    return {
        "cli.loaded_versions": sum(r["g"] == NAME for r in graph.read(q["cli"]["loaded_versions"])),
        "api.guidelines": sum(r["guideline"] == NAME for r in graph.read(q["api"]["guidelines"])),
        "qa_graph.loaded_versions_of": len(graph.read(q["qa_graph"]["loaded_versions_of"], {"g": NAME})),
        "qa_graph.version_nodes": len(graph.read(q["qa_graph"]["version_nodes"], {"g": NAME, "v": VERSION})),
        "curation.find_nodes": len(graph.read(q["curation"]["find_nodes"], {
            "guideline": NAME, "version": None, "page": None, "text": ""})),
        "build.version_counts": int(graph.read(q["build"]["version_counts"], {"g": NAME, "v": VERSION})[0]["nodes"]),
        "unlabeled": len(graph.read("MATCH (n) WHERE n.guideline = $g OR toLower(n.content) CONTAINS 'qrs' "
                                    "OR n.uid STARTS WITH $p RETURN n", {"g": NAME, "p": NAME + "|"})),
    }


def test_a_draft_is_loaded_with_branch_constraints_and_proposed_keys(drafted: Graph) -> None:
    items = draft_items(drafted, NAME, VERSION)
    by_text = {i.content: i for i in items if i.kind == "node"}
    assert {"STABLE?", "Narrow QRS? <0.12 Second", "Chest Pain / SOB / Dizziness?"} <= set(by_text)
    assert by_text["Narrow QRS? <0.12 Second"].constraints == ["qrs_width<0.12"]  # answers "QRS Width?"
    assert by_text["Wide QRS? >0.12 Second"].constraints == ["qrs_width>0.12"]
    question = by_text["Chest Pain / SOB / Dizziness?"].item
    branches = {i.content.split()[0].upper(): i.constraints for i in items if i.kind == "edge" and i.head == question}
    assert branches == {"YES": ["chest_pain_sob_dizziness=yes"], "NO": ["chest_pain_sob_dizziness=no"]}
    keys = {i.content for i in items if i.kind == "key"}
    assert {"qrs_width", "chest_pain_sob_dizziness"} <= keys and not {"narrow_qrs", "wide_qrs"} & keys
    assert all(i.status == "pending" for i in items)
    assert version_state(drafted, NAME, VERSION) == (False, True)


def _keys(items: list[DraftItem]) -> set[str]:
    return {re.split(r"<=|>=|!=|<|>|=| in ", c)[0] for i in items for c in i.constraints}


def test_a_cardiac_page_is_read_without_the_oncology_keys(drafted: Graph, graph: Graph, settings: Settings) -> None:
    """"Congestive heart failure" is not comorbidity=cardiac, "If refractory" not disease_status=refractory —
    unless the curator names the oncology domain."""
    assert not _keys(draft_items(drafted, NAME, VERSION)) & {"comorbidity", "disease_status", "response"}
    name = f"{NAME}-oncology"
    _clean(graph, name)
    try:
        report = onboard(graph, PDF, name, VERSION, pages=PAGE, settings=settings, echo=lambda _: None,
                         overlays=False, domains=["oncology"])
        assert report.domains == ("oncology",) and report.left_out == []
        assert {"comorbidity", "disease_status"} <= _keys(draft_items(graph, name, VERSION))
    finally:
        _clean(graph, name)


def test_a_draft_is_invisible_to_clinicians(drafted: Graph) -> None:
    assert set(_visible(drafted).values()) == {0}


def test_onboarding_an_existing_version_is_refused(drafted: Graph, settings: Settings) -> None:
    before = len(draft_items(drafted, NAME, VERSION))
    with pytest.raises(OnboardingError, match=f"a draft of {NAME} {VERSION} exists already"):
        onboard(drafted, PDF, NAME, VERSION, pages=PAGE, settings=settings, echo=lambda _: None)
    assert len(draft_items(drafted, NAME, VERSION)) == before


def test_a_failed_onboarding_leaves_no_draft(graph: Graph, settings: Settings) -> None:
    _clean(graph, "onboard-fail")
    with pytest.raises(Exception, match="page"):
        onboard(graph, PDF, "onboard-fail", VERSION, pages="99", settings=settings, echo=lambda _: None)
    assert version_state(graph, "onboard-fail", VERSION) == (False, False)
    assert graph.read("MATCH (a:ReviewAction) WHERE a.version_uid STARTS WITH 'onboard-fail|' RETURN a") == []
    assert not (settings.home / "onboard" / f"onboard-fail-{VERSION}").exists()  # nor its working files


def test_review_then_publish_then_unpublish(drafted: Graph, vocabulary_root: Path) -> None:
    items = draft_items(drafted, NAME, VERSION)
    with pytest.raises(OnboardingError, match=r"unresolved review item\(s\).*nothing was published"):
        publish(drafted, NAME, VERSION, vocabulary_root=vocabulary_root)
    stable = next(i for i in items if i.kind == "node" and i.content == "STABLE?")
    review(drafted, NAME, VERSION, stable.item, "edit", constraints=[], who="curator-e2e",
           reason="a question box states no patient constraint")
    with pytest.raises(OnboardingError, match="unknown unit"):
        review(drafted, NAME, VERSION, "k:qrs_width", "edit", entry={
            "kind": "numeric", "unit": "secondz", "range": [0, 1], "description": "QRS width"})
    review(drafted, NAME, VERSION, "k:qrs_width", "edit", who="curator-e2e", entry={
        "kind": "numeric", "unit": "second", "range": [0, 1], "description": "QRS width", "synonyms": []})
    wide = next(i for i in items if i.kind == "node" and i.content.startswith("Wide QRS"))
    review(drafted, NAME, VERSION, wide.item, "reject", who="curator-e2e", reason="test: left out")
    for item in draft_items(drafted, NAME, VERSION):
        if item.status == "pending":
            review(drafted, NAME, VERSION, item.item, "accept", who="curator-e2e")
    assert set(_visible(drafted).values()) == {0}  # fully reviewed, still a draft

    build = publish(drafted, NAME, VERSION, who="curator-e2e", vocabulary_root=vocabulary_root)
    assert "qrs_width" in VOCABULARY and VOCABULARY["qrs_width"].unit == "second"
    assert (vocabulary_root / NAME / GUIDELINE_FILE).is_file()
    # the draft's default title: the flowchart title printed on the page, then the PDF it came from
    topic = load_onboarded_topic(vocabulary_root / NAME / "topic.yaml")
    assert topic.title.startswith("TACHYCARDIA w/ PULSE (onboarded from")
    seen = _visible(drafted)
    assert seen["cli.loaded_versions"] == seen["api.guidelines"] == seen["qa_graph.loaded_versions_of"] == 1
    assert seen["qa_graph.version_nodes"] == build.counts()["nodes"] == len(
        [i for i in items if i.kind == "node"]) - 1
    edges = drafted.read(named_queries("qa_graph")["version_edges"], {"g": NAME, "v": VERSION})
    assert ["chest_pain_sob_dizziness=no"] in [list(r["constraints"]) for r in edges]
    # the key as proposed, with no wording a curator added, reads clinicians' words for each finding it lists
    symptoms = widened(VOCABULARY["chest_pain_sob_dizziness"])
    assert [f.value for f in read_facts("HR 150, feels lightheaded", [symptoms])] == ["yes"]
    assert [f.value for f in read_facts("HR 150, dyspneic", [symptoms])] == ["yes"]
    assert [f.value for f in read_facts("HR 150, denies chest pain", [symptoms])] == ["no"]
    titles = {t for r in drafted.read(named_queries("onboard")["published_nodes"], {"uid": f"{NAME}|{VERSION}"})
              for t in r["page_titles"] or []}
    assert titles == {"TACHYCARDIA w/ PULSE"}  # the flowchart's title, kept on its nodes for QA
    assert version_state(drafted, NAME, VERSION) == (True, False)
    actions = [(r["action"], r["item"]) for r in review_history(drafted, NAME, VERSION)]
    assert actions[0] == ("onboard", "") and actions[-1] == ("publish", "")
    assert ("edit", stable.item) in actions and ("reject", wide.item) in actions
    assert all(r["who"] == "curator-e2e" for r in review_history(drafted, NAME, VERSION)[1:])

    unpublish(drafted, NAME, VERSION, who="curator-e2e")
    assert set(_visible(drafted).values()) == {0}
    assert version_state(drafted, NAME, VERSION) == (False, True)
    assert all(i.status == "accepted" for i in draft_items(drafted, NAME, VERSION))
    info = drafted.read(named_queries("onboard")["draft_info"], {"uid": f"{NAME}|{VERSION}"})[0]
    assert json.loads(info["page_titles"]) == {PAGE: "TACHYCARDIA w/ PULSE"}  # back in the draft


def test_a_page_title_is_corrected_in_review_and_audited(drafted: Graph) -> None:
    titles, pages = draft_page_titles(drafted, NAME, VERSION)
    assert pages == [PAGE]
    with pytest.raises(OnboardingError, match=r"has no page '9'; its boxes are on pages 4"):
        set_page_title(drafted, NAME, VERSION, "9", "ADULT TACHYCARDIA")
    after = set_page_title(drafted, NAME, VERSION, PAGE, "  ADULT TACHYCARDIA   with a pulse ", who="curator-e2e",
                           reason="the printed title, with the population")
    assert after == {PAGE: "ADULT TACHYCARDIA with a pulse"}
    info = drafted.read(named_queries("onboard")["draft_info"], {"uid": f"{NAME}|{VERSION}"})[0]
    assert json.loads(info["page_titles"]) == after
    last = review_history(drafted, NAME, VERSION)[-1]
    assert (last["action"], last["item"], last["kind"], last["who"]) == ("title", PAGE, "page title", "curator-e2e")
    assert json.loads(last["before"])["title"] == titles[PAGE] and json.loads(last["after"])["title"] == after[PAGE]
    # an empty title removes it; setting the same title again records nothing
    assert set_page_title(drafted, NAME, VERSION, PAGE, "", who="curator-e2e") == {}
    count = len(review_history(drafted, NAME, VERSION))
    assert set_page_title(drafted, NAME, VERSION, PAGE, "") == {}
    assert len(review_history(drafted, NAME, VERSION)) == count
