"""The web app in Debian's headless Chromium (Playwright, system browser, no download) against a real server
and the real Neo4j: ask and see the answer, curate (change, history, roll back), read-only for non-curators,
relevance annotation saving a qrels version. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dkg import MEDICAL_DISCLAIMER
from dkg.api.testing import CURATOR_TOKEN, READER_TOKEN, live_server, server_env
from dkg.config import PROJECT_ROOT
from dkg.graph.db import Graph
from dkg.retrieval.questions import load_set

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]
PORT = int(os.environ.get("DKG_API_TEST_PORT", "8730")) + 2
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = PROJECT_ROOT / "tests" / "artifacts"
QUESTION = ("A 30-year-old with Ph-positive B-cell ALL and no substantial comorbidities: what is the recommended "
            "induction?")
NODE_TEXT = "Philadelphia-negative disease"

if not Path(CHROMIUM).is_file():
    pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def qrels_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("qrels")


@pytest.fixture(scope="module")
def server(graph: Graph, qrels_dir: Path) -> Iterator[str]:
    with live_server(PORT, server_env(graph.settings, qrels_dir)) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1366, "height": 768}, base_url=server)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.set_default_timeout(90_000)
    yield pg
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"webapp-{name}.png"), full_page=True)


def use_token(page: Any, token: str) -> None:
    page.fill("#token", token)
    page.click("text=Use token")


def wait_answered(page: Any) -> None:
    """Wait until the page reports the answer or an error, and fail with the page's own message on an error."""
    page.wait_for_selector("#ask-status.ok, #ask-status.error", timeout=180_000)
    status = page.locator("#ask-status")
    assert "ok" in (status.get_attribute("class") or ""), f"the page reported: {status.inner_text()}"


def check_layout(page: Any) -> None:
    assert page.locator("#disclaimer").inner_text().strip() == MEDICAL_DISCLAIMER
    assert page.locator("#disclaimer").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366  # no sideways scrolling on a laptop


def test_clinician_asks_and_sees_answer_cypher_and_evidence_graph(page: Any) -> None:
    page.goto("/clinician")
    page.get_by_label("Question about the guidelines").fill(QUESTION)
    page.get_by_role("button", name="Ask", exact=True).click()
    wait_answered(page)
    answer = page.locator("#answer").inner_text()
    route = page.locator("#route").inner_text()
    assert route in ("text2cypher", "grag", "hybrid")
    assert answer.strip() and not answer.startswith("No answer")
    if route != "grag":
        assert "MATCH" in page.locator("#cypher").inner_text()
    nodes = page.locator("svg.graph g.node")
    assert nodes.count() >= 2
    before = nodes.count()
    for i in range(before):  # expand boxes until one has neighbours outside the drawn paths
        nodes.nth(i).click()
        page.wait_for_selector("#node-detail button:has-text('Expand neighbours')")
        page.click("#node-detail button:has-text('Expand neighbours')")
        if nodes.count() > before:
            break
    assert nodes.count() > before
    assert page.locator("#node-detail").inner_text().strip()
    check_layout(page)
    shot(page, "clinician")


def test_node_details_never_show_null(page: Any) -> None:
    # issue 21 item 13: a box without treatments showed a literal "null" in its details
    page.goto("/clinician")
    page.get_by_label("Question about the guidelines").fill(QUESTION)
    page.get_by_role("button", name="Ask", exact=True).click()
    wait_answered(page)
    nodes = page.locator("svg.graph g.node")
    without_treatments = 0
    for i in range(nodes.count()):
        nodes.nth(i).click()
        page.wait_for_selector("#node-detail button:has-text('Expand neighbours')")
        text = page.locator("#node-detail").inner_text()
        assert "null" not in text and "undefined" not in text, text
        without_treatments += "Treatments offered" not in text
    assert without_treatments >= 1  # the case of the defect was on the page


def _open_node(page: Any) -> None:
    page.goto("/curator")
    page.get_by_label("Text in the box").fill(NODE_TEXT)
    page.select_option("#guideline", "ALL")
    page.click("#find-form button[type=submit]")
    page.locator("#results li", has_text="ALL 1.2026").filter(has_text=NODE_TEXT).get_by_role("button").first.click()
    page.wait_for_selector("#current-constraints")


def test_curator_changes_a_constraint_sees_history_and_rolls_back(page: Any) -> None:
    page.goto("/curator")
    use_token(page, CURATOR_TOKEN)
    page.wait_for_selector("#who:has-text('curator: tester')")
    _open_node(page)
    original = page.locator("#current-constraints").inner_text()
    page.select_option("#add-key", "age")
    page.click("#add-btn")
    page.get_by_label("max", exact=True).fill("65")
    page.locator("#c-age-max_strict").check()
    page.get_by_label("Reason (goes into the audit trail)").fill("browser test: adults under 65")
    page.click("#save")
    page.wait_for_selector("#edit-status.ok")
    assert "age<65" in page.locator("#current-constraints").inner_text()
    top = page.locator("#history tbody tr").first
    assert "age<65" in top.inner_text() and "api:tester" in top.inner_text()
    shot(page, "curator")
    top.get_by_role("button", name="Roll back").click()
    page.wait_for_selector("#edit-status.ok:has-text('Rolled back')")
    assert page.locator("#current-constraints").inner_text() == original
    assert page.locator("#history tbody tr").first.locator("td").nth(3).inner_text() == "rollback"
    check_layout(page)


def test_non_curator_cannot_change_anything(page: Any, graph: Graph) -> None:
    _open_node(page)
    uid = page.locator("#node .muted").inner_text().split(" · ")[0]
    rev = graph.read("MATCH (n:Node {uid: $uid}) RETURN n.rev AS rev", {"uid": uid})[0]["rev"]
    assert page.locator("#save").is_disabled()
    assert all(b.is_disabled() for b in page.locator("button.rollback").all())
    use_token(page, READER_TOKEN)
    page.wait_for_selector("#who:has-text('reader: reader')")
    assert page.locator("#save").is_disabled()
    # Even a page that bypasses the disabled button is refused by the server.
    status = page.evaluate("""async (uid) => (await fetch('/api/nodes/' + encodeURIComponent(uid) + '/constraints',
        {method: 'PUT', headers: {'Content-Type': 'application/json',
                                  'Authorization': 'Bearer ' + sessionStorage.dkgToken},
         body: JSON.stringify({typed: {}, reason: 'sneaky', expected_rev: 0})})).status""", uid)
    assert status == 403
    status = page.evaluate("""async (uid) => (await fetch('/api/nodes/' + encodeURIComponent(uid) + '/constraints/set',
        {method: 'POST', headers: {'Content-Type': 'application/json'},
         body: JSON.stringify({constraints: ['age<1'], reason: 'sneaky', expected_rev: 0})})).status""", uid)
    assert status == 401
    assert graph.read("MATCH (n:Node {uid: $uid}) RETURN n.rev AS rev", {"uid": uid})[0]["rev"] == rev
    shot(page, "curator-readonly")


def test_researcher_sees_benchmarks_and_saves_versioned_qrels(page: Any, qrels_dir: Path) -> None:
    page.goto("/researcher")
    page.wait_for_selector("#bench table")
    use_token(page, CURATOR_TOKEN)
    page.wait_for_selector("#who:has-text('curator: tester')")
    page.get_by_label("Query").fill("why is MRD monitored?")
    page.click("#pool-btn")
    page.wait_for_selector("#pool tbody tr")
    headers = page.locator("#pool thead th").all_inner_texts()
    assert {"bm25", "vector", "grag", "hybrid"} <= set(headers)
    rows = page.locator("#pool tbody tr")
    rows.nth(0).get_by_label("3").check()
    rows.nth(1).get_by_label("irrelevant").check()
    if rows.count() > 2:
        rows.nth(2).get_by_label("duplicate").check()
    page.get_by_label("Add a missing node").fill("MRD")
    page.wait_for_function("document.querySelectorAll('#add-node-list option').length > 0")
    option = page.locator("#add-node-list option").first.get_attribute("value")
    page.get_by_label("Add a missing node").fill(option)
    page.click("#add-node-btn")
    page.click("#save-qrels")
    page.wait_for_selector("#save-status.ok")
    shot(page, "researcher")
    saved = sorted(qrels_dir.glob("annotated-v*.jsonl"))
    assert saved, "no qrels version written"
    questions = load_set(saved[-1].stem, saved[-1].parent)  # the loader `dkg eval retrieval` uses
    assert questions[-1].question == "why is MRD monitored?"
    assert len(questions[-1].qrels) >= 2 and set(questions[-1].qrels.values()) <= {1.0, 2.0, 3.0}
    check_layout(page)
