"""A version built from its pipeline (PDF → parser → CoreNLP → Neo4j, all real) leaves the parser's review pictures
in its work folder; the API lists and serves them, and the curator page shows them for the selected version."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from PIL import Image

from dkg.api.app import create_app
from dkg.api.breaker import GuardedGraph
from dkg.api.engine import Engine
from dkg.api.settings import ApiSettings, load_api_settings
from dkg.api.state import AppState
from dkg.config import PROJECT_ROOT, Settings
from dkg.graph.builder import build
from dkg.graph.db import Graph
from dkg.graph.sources import input_from_source
from dkg.pipeline import PipelineSpec, overlay_dir, run_pipelines

pytestmark = pytest.mark.neo4j

PDF = PROJECT_ROOT / "tests" / "fixtures" / "pdfs" / "basic_rect_arrows.pdf"
NAME, VERSION = "pictures-e2e", "1.2026"
LIST = f"/api/guidelines/{NAME}/{VERSION}/pictures"
READER_TOKEN = "pictures-reader-token-01"
READER = {"Authorization": f"Bearer {READER_TOKEN}"}
CORENLP_PORT = int(os.environ.get("DKG_TEST_CORENLP_PORT", "9031"))
CHROMIUM = "/usr/bin/chromium"


def _clean(graph: Graph) -> None:
    graph.write("MATCH (n:Node {guideline: $g}) DETACH DELETE n", {"g": NAME})
    graph.write("MATCH (g:GuidelineVersion {guideline: $g}) DETACH DELETE g", {"g": NAME})


@pytest.fixture(scope="module")
def built(graph: Graph, neo4j_settings: Settings) -> Iterator[Settings]:
    """The fixture PDF built as ``NAME`` ``VERSION`` through its pipeline; removed (graph and folder) afterwards."""
    settings = neo4j_settings.model_copy(update={"corenlp_port": CORENLP_PORT})
    spec = PipelineSpec(guideline=NAME, version=VERSION, title="review pictures e2e", pdf=PDF)
    _clean(graph)
    shutil.rmtree(spec.work_dir(settings), ignore_errors=True)
    build(graph, [input_from_source("ALL", "1.2026")])  # a version built from its source: no pictures
    try:
        reports = run_pipelines([spec], echo=lambda _line: None, settings=settings)
        assert [(r.guideline, r.version, r.relations > 0) for r in reports] == [(NAME, VERSION, True)]
        yield settings
    finally:
        _clean(graph)
        shutil.rmtree(spec.work_dir(settings), ignore_errors=True)


def _app(settings: Settings, qrels: Path) -> FastAPI:
    """The real app on the real Neo4j; no retriever or text-to-Cypher model (pictures do not use them)."""
    api_settings = load_api_settings(read_tokens=f"rob:{READER_TOKEN}", require_read_token=True, load_qa_model=False)

    def real_state(platform: Settings, api: ApiSettings) -> AppState:
        guarded = GuardedGraph(platform, probe_interval_s=api.graph_probe_interval_s)
        engine = Engine(guarded, None, "no retriever in this test", None, "text-to-Cypher off in this test",
                        workers=1, cache_size=8)
        return AppState(platform, api, api.principals(), guarded, engine, qrels)

    return create_app(settings, api_settings, state_factory=real_state)


def test_the_build_writes_one_picture_per_parsed_page_and_the_api_serves_them(built: Settings,
                                                                               tmp_path: Path) -> None:
    folder = overlay_dir(built, NAME, VERSION)
    assert sorted(p.name for p in folder.iterdir()) == ["basic_rect_arrows-p1.png"]
    with TestClient(_app(built, tmp_path)) as client:
        assert (NAME, VERSION) in {(g["guideline"], g["version"]) for g in client.get("/api/guidelines",
                                                                                         headers=READER).json()}
        listed = client.get(LIST, headers=READER)
        assert listed.status_code == 200, listed.text
        pictures = listed.json()["pictures"]
        assert [(p["name"], p["page"], p["url"]) for p in pictures] == [
            ("basic_rect_arrows-p1.png", 1, f"{LIST}/basic_rect_arrows-p1.png")]
        served = client.get(pictures[0]["url"], headers=READER)
        assert served.status_code == 200 and served.headers["content-type"] == "image/png"
        assert served.content == (folder / "basic_rect_arrows-p1.png").read_bytes()
        assert client.get(LIST).status_code == 401
        # a shipped version built from its source (the session graph), not from a PDF, has none
        other = client.get("/api/guidelines/ALL/1.2026/pictures", headers=READER)
        assert other.status_code == 404 and "no review pictures for ALL 1.2026" in other.json()["error"]["message"]
        assert client.get(f"/api/guidelines/{NAME}/9.2026/pictures", headers=READER).status_code == 404


@pytest.mark.slow
@pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason="Debian's chromium is not installed")
def test_the_curator_page_shows_the_pictures_of_the_selected_version(built: Settings, tmp_path: Path) -> None:
    from tests.e2e.test_review_web import _served

    sync_api = pytest.importorskip("playwright.sync_api")
    errors: list[str] = []
    with _served(_app(built, tmp_path)) as base, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page: Any = browser.new_page(viewport={"width": 1366, "height": 768}, base_url=base)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.set_default_timeout(30_000)
        page.add_init_script(f"sessionStorage.setItem('dkgToken', '{READER_TOKEN}')")  # this server needs one
        page.goto("/curator")
        page.wait_for_selector("#who:has-text('reader: rob')")
        page.wait_for_selector(f"#picture-version option[value='{NAME}|{VERSION}']", state="attached")
        page.select_option("#picture-version", f"{NAME}|{VERSION}")
        page.wait_for_selector("#pictures img")
        width = page.eval_on_selector("#pictures img", "img => img.decode().then(() => img.naturalWidth)")
        assert page.locator("#pictures figcaption").inner_text() == "basic_rect_arrows-p1.png"
        page.select_option("#picture-version", "ALL|1.2026")
        page.wait_for_selector("#pictures-status:has-text('no review pictures for ALL 1.2026')")
        assert page.locator("#pictures img").count() == 0
        browser.close()
    with Image.open(overlay_dir(built, NAME, VERSION) / "basic_rect_arrows-p1.png") as image:
        assert width == image.width
    assert not errors, f"JavaScript errors: {errors}"
