"""The web review of an onboarded draft through the API (the app's test client on the real Neo4j): list, accept /
edit / reject with the revision check, publish refused while items pend, publish, and the published version on the
clinician read path. The draft is loaded with dkg.graph.drafts (no PDF parsing or CoreNLP needed here)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dkg.api.app import create_app
from dkg.api.breaker import GuardedGraph
from dkg.api.engine import Engine
from dkg.api.settings import ApiSettings, load_api_settings
from dkg.api.state import AppState
from dkg.config import Settings
from dkg.graph.db import Graph
from dkg.graph.drafts import DraftItem, create_draft

pytestmark = pytest.mark.neo4j

NAME, VERSION = "review-web-e2e", "1.2026"
CURATOR_TOKEN = "review-curator-token-01"
READER_TOKEN = "review-reader-token-001"
CURATOR = {"Authorization": f"Bearer {CURATOR_TOKEN}"}
READER = {"Authorization": f"Bearer {READER_TOKEN}"}
DRAFT = f"/api/drafts/{NAME}/{VERSION}"
# a tiny flowchart: a question box with YES / NO arrows, and one proposed key the review rejects
ITEMS = [
    DraftItem("n1", "node", "Assess the review-web patient", page="1"),
    DraftItem("n2", "node", "Age below 50?", page="1"),
    DraftItem("n3", "node", "Give the review-web drug", page="1"),
    DraftItem("n4", "node", "Observe the review-web patient", page="1"),
    DraftItem("n5", "node", "Stray review-web text", page="1"),
    DraftItem("e1", "edge", "", head="n1", tail="n2"),
    DraftItem("e2", "edge", "YES", ["age<50"], head="n2", tail="n3"),
    DraftItem("e3", "edge", "NO", ["age>=50"], head="n2", tail="n4"),
    DraftItem("e4", "edge", "", head="n4", tail="n5"),
    DraftItem("k:review_web_score", "key", "review_web_score",
              entry='{"description": "a made-up score", "kind": "numeric", "range": [0.0, 10.0], '
                    '"synonyms": [], "unit": ""}'),
]


def _clean(graph: Graph) -> None:
    graph.write("MATCH (n:Node {guideline: $g}) DETACH DELETE n", {"g": NAME})
    graph.write("MATCH (g:GuidelineVersion {guideline: $g}) DETACH DELETE g", {"g": NAME})
    graph.write("MATCH (d:DraftVersion {of_guideline: $g}) OPTIONAL MATCH (d)-[:HAS_ITEM]->(i) DETACH DELETE i, d",
                {"g": NAME})
    graph.write("MATCH (a:ReviewAction) WHERE a.version_uid STARTS WITH $p DETACH DELETE a", {"p": NAME + "|"})


@pytest.fixture(scope="module")
def client(graph: Graph, neo4j_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    # where `dkg onboard` leaves the parser's review pictures (a stand-in PNG: the page only shows it)
    work = Path(neo4j_settings.home) / "onboard" / f"{NAME}-{VERSION}"
    (work / "overlay").mkdir(parents=True, exist_ok=True)
    (work / "overlay" / "page-001.png").write_bytes(b"\x89PNG\r\n\x1a\n-review-web-picture")
    api_settings = load_api_settings(curator_tokens=f"rita:{CURATOR_TOKEN}", read_tokens=f"rob:{READER_TOKEN}",
                                     load_qa_model=False)

    def real_state(platform: Settings, api: ApiSettings) -> AppState:
        guarded = GuardedGraph(platform, probe_interval_s=api.graph_probe_interval_s)
        engine = Engine(guarded, None, "no retriever in this test", None, "text-to-Cypher off in this test",
                        workers=1, cache_size=8)
        return AppState(platform, api, api.principals(), guarded, engine, tmp_path_factory.mktemp("qrels"))

    _clean(graph)
    create_draft(graph, NAME, VERSION, ITEMS, title="Review web e2e", source="test", who="e2e")
    app = create_app(neo4j_settings, api_settings, state_factory=real_state)
    with TestClient(app) as c:
        yield c
    _clean(graph)
    shutil.rmtree(work)


def _item(client: TestClient, item: str) -> dict[str, object]:
    items = client.get(DRAFT, headers=CURATOR).json()["items"]
    return next(i for i in items if i["item"] == item)


def _review(client: TestClient, item: str, action: str, **body: object) -> object:
    rev = _item(client, item)["rev"]
    return client.post(f"{DRAFT}/items/{item}/review", headers=CURATOR,
                       json={"action": action, "expected_rev": rev, "reason": f"e2e {action}", **body})


def test_drafts_need_a_curator_token(client: TestClient) -> None:
    assert client.get("/api/drafts").status_code == 401
    assert client.get(DRAFT, headers=READER).status_code == 403
    accept = {"action": "accept", "expected_rev": 0}
    assert client.post(f"{DRAFT}/items/n1/review", json=accept).status_code == 401
    assert client.post(f"{DRAFT}/items/n1/review", headers=READER, json=accept).status_code == 403
    assert client.post(f"{DRAFT}/publish", headers=READER, json={}).status_code == 403
    assert _item(client, "n1")["status"] == "pending"  # nothing was written


def test_the_review_page_is_served_with_the_disclaimer(client: TestClient) -> None:
    page = client.get("/review")
    assert page.status_code == 200 and 'id="disclaimer"' in page.text and "/static/review.js" in page.text
    assert client.get("/static/review.js").status_code == 200
    assert 'href="/review"' in client.get("/curator").text


def test_review_then_publish_and_clinicians_see_the_version(client: TestClient) -> None:
    drafts = {(d["guideline"], d["version"]): d for d in client.get("/api/drafts", headers=CURATOR).json()}
    assert drafts[(NAME, VERSION)] == {"guideline": NAME, "version": VERSION, "items": 10, "pending": 10}
    view = client.get(DRAFT, headers=CURATOR).json()
    assert {i["kind"] for i in view["items"]} == {"node", "edge", "key"} and view["pending"] == 10
    assert _item(client, "e2")["constraints"] == ["age<50"]
    assert _item(client, "k:review_web_score")["entry"]["kind"] == "numeric"
    assert view["pictures"] == [f"{DRAFT}/pictures/page-001.png"]
    picture = client.get(view["pictures"][0], headers=CURATOR)
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
    assert client.get(view["pictures"][0]).status_code == 401
    # a draft is not on the clinician read path
    assert NAME not in {g["guideline"] for g in client.get("/api/guidelines").json()}

    for item in ("n1", "n2", "n3", "e1", "e2"):
        r = _review(client, item, "accept")
        assert r.status_code == 200, r.text
    edited = _review(client, "n4", "edit", content="Observe  and recheck the review-web patient",
                     constraints=["age>=50"])
    assert edited.status_code == 200, edited.text
    assert edited.json()["status"] == "edited"
    assert edited.json()["content"] == "Observe and recheck the review-web patient"
    bad_edit = _review(client, "e3", "edit", constraints=["colour=red"])
    assert bad_edit.status_code == 422 and "unknown key 'colour'" in bad_edit.json()["error"]["message"]
    assert _review(client, "n5", "reject").status_code == 200
    assert _review(client, "e4", "reject").status_code == 200
    no_reason = client.post(f"{DRAFT}/items/e3/review", headers=CURATOR,
                            json={"action": "reject", "expected_rev": _item(client, "e3")["rev"]})
    assert no_reason.status_code == 422 and "needs a reason" in no_reason.json()["error"]["message"]

    refused = client.post(f"{DRAFT}/publish", headers=CURATOR, json={"reason": "too early"})
    assert refused.status_code == 409
    message = refused.json()["error"]["message"]
    assert "2 unresolved review item(s)" in message and "e3" in message and "k:review_web_score" in message
    assert NAME not in {g["guideline"] for g in client.get("/api/guidelines").json()}

    assert _review(client, "e3", "accept").status_code == 200
    assert _review(client, "k:review_web_score", "reject").status_code == 200
    assert client.get(DRAFT, headers=CURATOR).json()["pending"] == 0
    published = client.post(f"{DRAFT}/publish", headers=CURATOR, json={"reason": "e2e reviewed"})
    assert published.status_code == 200, published.text
    assert published.json()["counts"]["nodes"] == 4  # the rejected box is left out

    versions = {(g["guideline"], g["version"]) for g in client.get("/api/guidelines").json()}
    assert (NAME, VERSION) in versions
    nodes = client.get("/api/nodes", params={"q": "review-web", "guideline": NAME}).json()
    assert sorted(n["content"] for n in nodes) == ["Assess the review-web patient", "Give the review-web drug",
                                                    "Observe and recheck the review-web patient"]
    assert client.get(DRAFT, headers=CURATOR).status_code == 404  # the draft is gone
    history = client.get(f"{DRAFT}/history", headers=CURATOR).json()
    assert history[-1]["action"] == "publish" and history[-1]["who"] == "api:rita"
    assert {h["who"] for h in history if h["action"] == "accept"} == {"api:rita"}

    back = client.post(f"/api/guidelines/{NAME}/{VERSION}/unpublish", headers=CURATOR, json={"reason": "e2e undo"})
    assert back.status_code == 200 and back.json()["items"] == 4 + 3
    assert NAME not in {g["guideline"] for g in client.get("/api/guidelines").json()}
    assert client.get(DRAFT, headers=CURATOR).json()["pending"] == 0


def test_a_stale_revision_gets_409_and_changes_nothing(client: TestClient) -> None:
    item = _item(client, "n1")
    stale = client.post(f"{DRAFT}/items/n1/review", headers=CURATOR,
                        json={"action": "reject", "expected_rev": int(str(item["rev"])) + 5, "reason": "stale"})
    assert stale.status_code == 409 and "changed since you read it" in stale.json()["error"]["message"]
    assert _item(client, "n1") == item


def test_a_bad_item_or_draft_gets_404(client: TestClient) -> None:
    accept = {"action": "accept", "expected_rev": 0}
    missing = client.post(f"{DRAFT}/items/n999/review", headers=CURATOR, json=accept)
    assert missing.status_code == 404 and "no item 'n999'" in missing.json()["error"]["message"]
    assert client.get(f"/api/drafts/{NAME}/9.9999", headers=CURATOR).status_code == 404
    assert client.post(f"/api/drafts/{NAME}/9.9999/items/n1/review", headers=CURATOR, json=accept).status_code == 404
    assert client.get(f"{DRAFT}/pictures/nothing.png", headers=CURATOR).status_code == 404
    assert client.get(f"{DRAFT}/pictures/..%2Fsecret.png", headers=CURATOR).status_code in (404, 422)

