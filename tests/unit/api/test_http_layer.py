"""The HTTP layer without a graph: body limit, malformed JSON, validation messages, token checks before any
graph access, the answer cache and single flight (a stand-in engine counts the computations)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dkg.answering import GragAnswerer, route_answer
from dkg.answers import Answer
from dkg.api.app import create_app
from dkg.api.engine import AnswerCache, Engine, normalise_question
from dkg.api.settings import ApiSettings, load_api_settings
from dkg.config import Settings

CURATOR = "curator-token-000001"
READER = "reader-token-0000001"


@dataclass
class CountingEngine:
    calls: list[str] = field(default_factory=list)
    rendered: AnswerCache = field(default_factory=lambda: AnswerCache(8))

    async def current_snapshot(self) -> str:
        return "s"

    async def ask(self, question: str, k: int = 5, explain: bool = False) -> Any:
        from dkg.answering import HybridResult
        from dkg.api.engine import AskOutcome
        self.calls.append(question)
        return AskOutcome(HybridResult(Answer(question=question, route="grag", answer="ok")), False, "s")


@dataclass
class FakeState:
    api_settings: ApiSettings
    principals: dict[str, Any]
    engine: CountingEngine

    def close(self) -> None:
        pass


@pytest.fixture
def client() -> Iterator[TestClient]:
    api_settings = load_api_settings(curator_tokens=f"alice:{CURATOR}", read_tokens=f"rob:{READER}",
                                     max_body_bytes=4096)

    def factory(_: Settings, s: ApiSettings) -> FakeState:
        return FakeState(s, s.principals(), CountingEngine())

    app = create_app(Settings(), api_settings, state_factory=factory)
    with TestClient(app) as c:
        yield c


def test_ask_goes_to_the_engine_and_repeats_come_rendered(client: TestClient) -> None:
    r = client.post("/api/ask", json={"question": "what is blinatumomab?"})
    assert r.status_code == 200 and r.json()["answer"]["answer"] == "ok" and r.json()["cached"] is False
    again = client.post("/api/ask", json={"question": "what is blinatumomab?"})
    assert again.json()["cached"] is True and again.json()["answer"] == r.json()["answer"]
    assert client.app.state.dkg.engine.calls == ["what is blinatumomab?"]  # type: ignore[attr-defined]


def test_malformed_json_and_validation(client: TestClient) -> None:
    r = client.post("/api/ask", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "malformed JSON" in r.json()["error"]["message"]
    r = client.post("/api/ask", json={"question": "x", "k": 500})
    assert r.status_code == 422 and r.json()["error"]["message"].startswith("body.k:")
    r = client.post("/api/ask", json={"question": ["not", "a", "string"]})
    assert r.status_code == 422 and "body.question" in r.json()["error"]["message"]


def test_body_limit(client: TestClient) -> None:
    r = client.post("/api/ask", content=b'{"question":"' + b"a" * 5000 + b'"}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and "4096 bytes" in r.json()["error"]["message"]
    assert client.post("/api/ask", json={"question": "a" * 100}).status_code == 200


@pytest.mark.parametrize("headers,status", [({}, 401), ({"Authorization": f"Bearer {READER}"}, 403),
                                            ({"Authorization": "Bearer wrong-token-000000"}, 401),
                                            ({"Authorization": f"Basic {CURATOR}"}, 401)])
def test_curator_endpoints_refuse_before_touching_the_graph(client: TestClient, headers: dict[str, str],
                                                            status: int) -> None:
    uid = "ALL%7C1.2026%7Cabc"
    body = {"constraints": ["age<65"], "reason": "r", "expected_rev": 0}
    assert client.post(f"/api/nodes/{uid}/constraints/set", json=body, headers=headers).status_code == status
    assert client.post("/api/changes/abc-1/rollback", json={}, headers=headers).status_code == status
    r = client.post("/api/annotation/qrels", json={"query": "q", "judgments": [{"uid": "a", "label": "3"}]},
                    headers=headers)
    assert r.status_code == status


def test_read_token_can_be_required() -> None:
    s = load_api_settings(read_tokens=f"rob:{READER}", require_read_token=True)
    app = create_app(Settings(), s, state_factory=lambda _, a: FakeState(a, a.principals(), CountingEngine()))
    with TestClient(app) as c:
        assert c.post("/api/ask", json={"question": "q"}).status_code == 401
        assert c.post("/api/ask", json={"question": "q"}, headers={"Authorization": f"Bearer {READER}"}
                      ).status_code == 200


def test_pages_and_disclaimer_are_served(client: TestClient) -> None:
    for page in ("clinician", "curator", "researcher"):
        html = client.get(f"/{page}").text
        assert 'id="disclaimer"' in html and "<label" in html
    assert client.get("/static/graph.js").status_code == 200


# ---- engine: routing, cache, single flight ---------------------------------------------------------------
# (the routing itself is tested in tests/unit/test_answering.py)
def grag(question: str, k: int) -> Answer:
    return Answer(question=question, route="grag", answer="retrieved")


class SlowEngine(Engine):
    delay_s = 0.2

    def __init__(self) -> None:
        self.count = 0
        self.guard = threading.Lock()
        super().__init__(graph=None, retriever=None, retriever_problem=None, service=None,  # type: ignore[arg-type]
                         service_problem="none", workers=2, cache_size=8)

    def snapshot(self, force: bool = False) -> str:
        return "snap"

    def answer_now(self, question: str, k: int, explain: bool) -> Any:
        with self.guard:
            self.count += 1
        time.sleep(self.delay_s)
        return route_answer(question, None, GragAnswerer(grag, k), explain=explain, text_to_cypher_problem="none")


def test_cache_and_single_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dkg.api.engine.named_queries", lambda _: {})
    engine = SlowEngine()

    async def many() -> list[Any]:
        return await asyncio.gather(*[engine.ask("What is X?  ") for _ in range(10)], engine.ask("what is x"))

    outcomes = asyncio.run(many())
    assert engine.count == 1  # eleven identical (normalised) questions, one computation
    assert outcomes[-1].result.answer.question == "what is x"
    again = asyncio.run(engine.ask("WHAT IS X?"))
    assert again.cached and engine.count == 1
    asyncio.run(engine.ask("another question"))
    assert engine.count == 2
    engine.close()


def test_normalise_question() -> None:
    assert normalise_question("What  is X?") == normalise_question("what is x") != normalise_question("what is y")


def test_openapi_schema_documents_the_endpoints_and_bearer_auth(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert {"/api/ask", "/api/retrieve", "/api/nodes/{uid}/neighbourhood", "/api/nodes/{uid}/constraints",
            "/api/changes/{change_id}/rollback", "/api/benchmarks", "/api/annotation/qrels"} <= set(schema["paths"])
    assert "HTTPBearer" in schema["components"]["securitySchemes"]


class InstantEngine(SlowEngine):
    """Its pool hands back futures that have already finished (an instantly answered question)."""

    delay_s = 0.0

    def __init__(self) -> None:
        super().__init__()

        def finished(fn: Any, *args: Any) -> Future[Any]:
            future: Future[Any] = Future()
            future.set_result(fn(*args))
            return future

        self._pool.submit = finished  # type: ignore[method-assign]


def test_an_already_answered_question_does_not_deadlock_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 21 item 1: the done callback of a finished future ran inside the engine's lock and took it again
    monkeypatch.setattr("dkg.api.engine.named_queries", lambda _: {})
    engine = InstantEngine()
    outcomes: list[Any] = []
    worker = threading.Thread(target=lambda: outcomes.extend(asyncio.run(engine.ask(q)) for q in ("a?", "a?", "b?")),
                              daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "engine.ask deadlocked on an already finished answer"
    assert [o.cached for o in outcomes] == [False, True, False]
    assert not engine._inflight
    engine.close()


@pytest.mark.parametrize("endpoint,body", [("/api/ask", {"question": "   "}), ("/api/ask", {"question": "\t\n "}),
                                           ("/api/retrieve", {"question": "  "})])
def test_blank_questions_are_422_naming_the_field(client: TestClient, endpoint: str, body: dict[str, str]) -> None:
    r = client.post(endpoint, json=body)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["message"] == "body.question: the text is blank (only whitespace); type a question"
    assert client.app.state.dkg.engine.calls == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("params", [{"guideline": "ALL' OR 1=1 //"}, {"version": "../../etc"},
                                    {"guideline": "A|B"}, {"version": "1|x"}])
def test_search_filters_refuse_names_outside_the_documented_pattern(client: TestClient,
                                                                    params: dict[str, str]) -> None:
    r = client.get("/api/nodes", params={"q": "ph", **params})  # refused before the graph is read
    assert r.status_code == 422 and f"query.{next(iter(params))}" in r.json()["error"]["message"], r.text
