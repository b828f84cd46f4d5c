"""The web review of an onboarded draft through the API (the app's test client on the real Neo4j): list, accept /
edit / reject with the revision check, publish refused while items pend, publish, and the published version on the
clinician read path. The draft is loaded with dkg.graph.drafts (no PDF parsing or CoreNLP needed here)."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient
from PIL import Image

from dkg import MEDICAL_DISCLAIMER
from dkg.api.app import create_app
from dkg.api.breaker import GuardedGraph
from dkg.api.engine import Engine
from dkg.api.settings import ApiSettings, load_api_settings
from dkg.api.state import AppState
from dkg.config import Settings
from dkg.graph.db import Graph
from dkg.graph.drafts import DraftItem, create_draft, refuse_existing
from dkg.lexicon.topics import reload_topics
from dkg.vocabulary import GUIDELINES_ROOT, reload_vocabulary

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


def _clean(graph: Graph, name: str) -> None:
    graph.write("MATCH (n:Node {guideline: $g}) DETACH DELETE n", {"g": name})
    graph.write("MATCH (g:GuidelineVersion {guideline: $g}) DETACH DELETE g", {"g": name})
    graph.write("MATCH (d:DraftVersion {of_guideline: $g}) OPTIONAL MATCH (d)-[:HAS_ITEM]->(i) DETACH DELETE i, d",
                {"g": name})
    graph.write("MATCH (a:ReviewAction) WHERE a.version_uid STARTS WITH $p DETACH DELETE a", {"p": name + "|"})


def _app(neo4j_settings: Settings, qrels: Path) -> FastAPI:
    """The real app on the real Neo4j; no retriever or text-to-Cypher model (review does not use them)."""
    api_settings = load_api_settings(curator_tokens=f"rita:{CURATOR_TOKEN}", read_tokens=f"rob:{READER_TOKEN}",
                                     load_qa_model=False)

    def real_state(platform: Settings, api: ApiSettings) -> AppState:
        guarded = GuardedGraph(platform, probe_interval_s=api.graph_probe_interval_s)
        engine = Engine(guarded, None, "no retriever in this test", None, "text-to-Cypher off in this test",
                        workers=1, cache_size=8)
        return AppState(platform, api, api.principals(), guarded, engine, qrels)

    return create_app(neo4j_settings, api_settings, state_factory=real_state)


@contextmanager
def _draft(graph: Graph, settings: Settings, name: str, items: list[DraftItem]) -> Iterator[None]:
    """A draft of ``name`` with one review picture where `dkg onboard` leaves them; removed afterwards."""
    work = Path(settings.home) / "onboard" / f"{name}-{VERSION}"
    (work / "overlay").mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (120, 80), (255, 255, 255)).save(work / "overlay" / "page-001.png", format="PNG")
    # publishing writes the guideline's topic (and accepted keys) where the shipped guidelines' files live
    published_files = GUIDELINES_ROOT / name
    assert not published_files.exists(), f"{published_files} is left from an earlier run; remove it"
    _clean(graph, name)
    create_draft(graph, name, VERSION, items, title=f"{name} draft", source="test", who="e2e")
    try:
        yield
    finally:
        _clean(graph, name)
        shutil.rmtree(work, ignore_errors=True)  # a discarded draft's folder is gone already
        shutil.rmtree(published_files, ignore_errors=True)
        reload_vocabulary()
        reload_topics()


@pytest.fixture(scope="module")
def client(graph: Graph, neo4j_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with _draft(graph, neo4j_settings, NAME, ITEMS), \
            TestClient(_app(neo4j_settings, tmp_path_factory.mktemp("qrels"))) as c:
        yield c


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
    assert picture.content.startswith(b"\x89PNG")
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
    kept = client.post(f"{DRAFT}/discard", headers=CURATOR, json={})  # a published version is no draft
    assert kept.status_code == 404 and f"dkg unpublish {NAME} {VERSION}" in kept.json()["error"]["message"]
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
    assert client.post(f"/api/drafts/{NAME}/9.9999/publish", headers=CURATOR, json={}).status_code == 404
    assert client.get(f"{DRAFT}/pictures/nothing.png", headers=CURATOR).status_code == 404
    assert client.get(f"{DRAFT}/pictures/..%2Fsecret.png", headers=CURATOR).status_code in (404, 422)



def test_a_curator_discards_a_draft_and_the_version_can_be_onboarded_again(graph: Graph, neo4j_settings: Settings,
                                                                           tmp_path: Path) -> None:
    name = "review-discard-e2e"
    draft = f"/api/drafts/{name}/{VERSION}"
    with _draft(graph, neo4j_settings, name, ITEMS), TestClient(_app(neo4j_settings, tmp_path)) as c:
        assert c.post(f"{draft}/discard", json={}).status_code == 401
        assert c.post(f"{draft}/discard", headers=READER, json={}).status_code == 403
        assert c.get(draft, headers=CURATOR).status_code == 200  # nothing was deleted
        done = c.post(f"{draft}/discard", headers=CURATOR, json={"reason": "e2e: the wrong pages"})
        assert done.status_code == 200, done.text
        assert done.json() == {"guideline": name, "version": VERSION, "items": len(ITEMS)}
        assert c.get(draft, headers=CURATOR).status_code == 404
        assert graph.read("MATCH (i:DraftItem) WHERE i.draft_uid STARTS WITH $p RETURN i", {"p": f"{name}|"}) == []
        assert not (Path(neo4j_settings.home) / "onboard" / f"{name}-{VERSION}").exists()  # its review pictures
        history = c.get(f"{draft}/history", headers=CURATOR).json()  # the audit trail stays
        assert [(h["action"], h["who"]) for h in history] == [("onboard", "e2e"), ("discard", "api:rita")]
        assert history[-1]["reason"] == "e2e: the wrong pages" and '"items": 10' in history[-1]["before"]
        again = c.post(f"{draft}/discard", headers=CURATOR, json={})
        assert again.status_code == 404 and "no draft of" in again.json()["error"]["message"]
        refuse_existing(graph, name, VERSION)  # onboarding the version again is allowed


def test_a_curator_adds_a_missed_box_arrow_and_key_and_publishes_them(graph: Graph, neo4j_settings: Settings,
                                                                      tmp_path: Path) -> None:
    name = "review-add-e2e"
    draft = f"/api/drafts/{name}/{VERSION}"
    with _draft(graph, neo4j_settings, name, ITEMS), TestClient(_app(neo4j_settings, tmp_path)) as c:
        box = {"kind": "node", "text": " Refer the  review-add patient ", "page": "1", "reason": "e2e: box missed"}
        assert c.post(f"{draft}/items", json=box).status_code == 401
        assert c.post(f"{draft}/items", headers=READER, json=box).status_code == 403
        wrong_page = c.post(f"{draft}/items", headers=CURATOR, json={**box, "page": "9"})
        assert wrong_page.status_code == 422 and "page '9' is not a page of the draft" in wrong_page.text
        assert c.post(f"{draft}/items", headers=CURATOR, json={**box, "reason": ""}).status_code == 422
        added = c.post(f"{draft}/items", headers=CURATOR, json=box)
        assert added.status_code == 201, added.text
        assert {k: added.json()[k] for k in ("item", "kind", "content", "page", "status")} == {
            "item": "n6", "kind": "node", "content": "Refer the review-add patient", "page": "1", "status": "edited"}
        key = {"kind": "key", "name": "review_add_flag", "reason": "e2e: key missed",
               "entry": {"kind": "boolean", "description": "a made-up flag", "yes": ["flagged"], "no": ["not flagged"]}}
        assert c.post(f"{draft}/items", headers=CURATOR, json=key).status_code == 201
        arrow = {"kind": "edge", "head": "n4", "tail": "n6", "label": "if flagged",
                 "constraints": ["review_add_flag=yes"], "reason": "e2e: arrow missed"}
        unknown = c.post(f"{draft}/items", headers=CURATOR, json={**arrow, "tail": "n60"})
        assert unknown.status_code == 404 and "no box 'n60'" in unknown.text
        assert c.post(f"{draft}/items", headers=CURATOR, json=arrow).status_code == 201
        view = c.get(draft, headers=CURATOR).json()
        assert view["pending"] == len(ITEMS)  # what was added is reviewed as it is added
        history = c.get(f"{draft}/history", headers=CURATOR).json()
        assert [(h["action"], h["item"], h["who"]) for h in history[-3:]] == [
            ("add", "n6", "api:rita"), ("add", "k:review_add_flag", "api:rita"), ("add", "e5", "api:rita")]
        for it in view["items"]:
            if it["status"] == "pending":
                c.post(f"{draft}/items/{it['item']}/review", headers=CURATOR,
                       json={"action": "accept", "expected_rev": it["rev"]})
        published = c.post(f"{draft}/publish", headers=CURATOR, json={"reason": "e2e"})
        assert published.status_code == 200, published.text
        rows = graph.read("MATCH (a:Node {guideline: $g})-[r:NEXT_STEP]->(b:Node {content: $c}) "
                          "RETURN a.content AS a, r.constraints AS constraints",
                          {"g": name, "c": "Refer the review-add patient"})
        assert rows == [{"a": "Observe the review-web patient", "constraints": ["review_add_flag=yes"]}]


# ---- the page itself, in Debian's headless Chromium (as tests/e2e/test_browser_webapp.py) --------------------
CHROMIUM = "/usr/bin/chromium"
BROWSER_NAME = "review-browser-e2e"
BROWSER_ITEMS = [
    DraftItem("n1", "node", "Assess the review-browser patient", page="1"),
    DraftItem("n2", "node", "Give the review-browser drug", page="1"),
    DraftItem("n3", "node", "Stray review-browser text", page="1"),
    DraftItem("e1", "edge", "", ["age>=18"], head="n1", tail="n2"),
    DraftItem("e2", "edge", "", head="n2", tail="n3"),
]


@contextmanager
def _served(app: FastAPI) -> Iterator[str]:
    """``app`` on a free loopback port in a uvicorn thread; stopped on exit."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="review-web-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the test server did not start"
        time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.mark.slow
@pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason="Debian's chromium is not installed")
def test_a_page_title_is_set_and_audited(client: TestClient) -> None:
    view = client.get(DRAFT, headers=CURATOR).json()
    assert view["pages"] == ["1"] and view["page_titles"] == {}
    set_title = client.post(f"{DRAFT}/pages/1/title", headers=CURATOR,
                            json={"title": " Adult  review-web algorithm ", "reason": "e2e title"})
    assert set_title.status_code == 200, set_title.text
    assert set_title.json()["page_titles"] == {"1": "Adult review-web algorithm"}
    assert client.get(DRAFT, headers=CURATOR).json()["page_titles"] == {"1": "Adult review-web algorithm"}
    last = client.get(f"{DRAFT}/history", headers=CURATOR).json()[-1]
    assert (last["action"], last["item"], last["kind"], last["who"]) == ("title", "1", "page title", "api:rita")
    missing = client.post(f"{DRAFT}/pages/7/title", headers=CURATOR, json={"title": "x"})
    assert missing.status_code == 422 and "no page '7'" in missing.json()["error"]["message"]
    assert client.post(f"{DRAFT}/pages/1/title", json={"title": "x"}).status_code == 401
    cleared = client.post(f"{DRAFT}/pages/1/title", headers=CURATOR, json={"title": "", "reason": "e2e clear"})
    assert cleared.json()["page_titles"] == {}


def _review_page(playwright: Any, base: str, errors: list[str]) -> tuple[Any, Any]:
    """Headless Chromium on ``base``'s review page; JavaScript errors are collected in ``errors``."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox",
                                                                         "--disable-gpu"])
    page = browser.new_page(viewport={"width": 1366, "height": 768}, base_url=base)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(30_000)
    page.goto("/review")
    return browser, page


def test_a_curator_reviews_and_publishes_on_the_page(graph: Graph, neo4j_settings: Settings,
                                                     tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    errors: list[str] = []
    with _draft(graph, neo4j_settings, BROWSER_NAME, BROWSER_ITEMS), _served(_app(neo4j_settings, tmp_path)) as base, \
            sync_api.sync_playwright() as p:
        browser, page = _review_page(p, base, errors)
        assert page.locator("#disclaimer").inner_text().strip() == MEDICAL_DISCLAIMER
        assert page.locator("#nodes tbody tr").count() == 0  # nothing without a curator token
        page.fill("#token", CURATOR_TOKEN)
        page.click("text=Use token")
        page.wait_for_selector("#who:has-text('curator: rita')")
        page.select_option("#draft", f"{BROWSER_NAME}|{VERSION}")
        page.wait_for_selector("#nodes tbody tr[data-item=n3]")
        assert page.locator("#edges tbody tr[data-item=e1]").inner_text().count("age>=18") == 1
        page.wait_for_selector("#pictures img")
        assert page.locator("#publish").is_disabled()

        for item in ("n1", "n2", "e1"):
            page.get_by_role("button", name=f"Accept {item}", exact=True).click()
            page.wait_for_selector(f"tr[data-item={item}] .state-accepted")
        page.get_by_role("button", name="Reject n3", exact=True).click()  # no reason yet: refused
        page.wait_for_selector("#item-status.error:has-text('needs a reason')")
        page.fill("#reason", "browser test: not a step")
        page.get_by_role("button", name="Reject n3", exact=True).click()
        page.wait_for_selector("tr[data-item=n3] .state-rejected")
        assert page.locator("#publish").is_disabled()  # e2 still pending
        page.get_by_role("button", name="Edit e2", exact=True).click()
        page.get_by_label("Constraints of e2").fill("age<18")
        page.click("text=Save edit")
        page.wait_for_selector("tr[data-item=e2] .state-edited")
        page.wait_for_selector("#publish:not([disabled])")
        page.get_by_label("Title of page 1", exact=True).fill("ADULT REVIEW-BROWSER ALGORITHM")
        page.get_by_role("button", name="Save the title of page 1", exact=True).click()
        page.wait_for_selector("#title-status.ok:has-text('title saved')")
        page.click("#add-box summary")  # a box and an arrow the parser missed
        page.fill("#new-box-text", "Refer the review-browser patient")
        page.click("#new-box-add")
        page.wait_for_selector("tr[data-item=n4] .state-edited")
        page.click("#add-arrow summary")
        page.select_option("#new-arrow-head", "n2")
        page.select_option("#new-arrow-tail", "n4")
        page.click("#new-arrow-add")
        page.wait_for_selector("tr[data-item=e3] .state-edited")
        page.wait_for_selector("#publish:not([disabled])")
        page.screenshot(path=str(tmp_path / "review.png"), full_page=True)
        page.click("#publish")
        page.wait_for_selector(f"#publish-status.ok:has-text('Published {BROWSER_NAME}')")
        browser.close()
        published = graph.read("MATCH (n:Node {guideline: $g}) RETURN n.content AS content ORDER BY content",
                               {"g": BROWSER_NAME})
        assert [r["content"] for r in published] == ["Assess the review-browser patient",
                                                     "Give the review-browser drug", "Refer the review-browser patient"]
        titles = graph.read("MATCH (n:Node {guideline: $g}) RETURN DISTINCT n.page_titles AS t", {"g": BROWSER_NAME})
        assert [r["t"] for r in titles] == [["ADULT REVIEW-BROWSER ALGORITHM"]]  # the title set on the page
    assert not errors, f"JavaScript errors: {errors}"



@pytest.mark.slow
@pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason="Debian's chromium is not installed")
def test_a_curator_discards_a_draft_on_the_page(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    errors: list[str] = []
    name = "review-browser-discard-e2e"
    with _draft(graph, neo4j_settings, name, BROWSER_ITEMS), _served(_app(neo4j_settings, tmp_path)) as base, \
            sync_api.sync_playwright() as p:
        browser, page = _review_page(p, base, errors)
        assert page.locator("#discard").is_disabled()  # no draft chosen, no curator token
        page.fill("#token", CURATOR_TOKEN)
        page.click("text=Use token")
        page.wait_for_selector("#who:has-text('curator: rita')")
        page.select_option("#draft", f"{name}|{VERSION}")
        page.wait_for_selector("#nodes tbody tr[data-item=n3]")
        page.once("dialog", lambda dialog: dialog.dismiss())  # the curator changes their mind: nothing is deleted
        page.click("#discard")
        assert graph.read("MATCH (d:DraftVersion {draft_uid: $u}) RETURN d", {"u": f"{name}|{VERSION}"}) != []
        page.fill("#reason", "browser test: the wrong pages")
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#discard")
        page.wait_for_selector(f"#publish-status.ok:has-text('Discarded the draft of {name}')")
        browser.close()
    assert graph.read("MATCH (d:DraftVersion {draft_uid: $u}) RETURN d", {"u": f"{name}|{VERSION}"}) == []
    assert not errors, f"JavaScript errors: {errors}"
