"""The HTTP API against a real server process and the real Neo4j: answers, curation with tokens, and bad
input (malformed JSON, huge bodies, missing/invalid tokens, injection attempts in every text field)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from dkg.api.testing import CURATOR_TOKEN, READER_TOKEN, live_server, serve_process, server_env
from dkg.graph.db import Graph
from dkg.types import GUIDELINE_NAME_PATTERN, VERSION_NAME_PATTERN

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]
PORT = int(os.environ.get("DKG_API_TEST_PORT", "8730"))
CURATOR = {"Authorization": f"Bearer {CURATOR_TOKEN}"}
READER = {"Authorization": f"Bearer {READER_TOKEN}"}
INJECTIONS = [
    "x' }) MATCH (n) DETACH DELETE n //",
    "\" OR 1=1 WITH 1 AS x CALL { MATCH (n) DETACH DELETE n } RETURN x //",
    "ALL|1.2026|x'}) DETACH DELETE n; //",
    "$uid} SET n.content = 'pwned' //",
    "<script>alert('x')</script>",
]


@pytest.fixture(scope="module")
def server(graph: Graph, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = server_env(graph.settings, tmp_path_factory.mktemp("qrels"))
    with live_server(PORT, env) as base:
        yield base


@pytest.fixture(scope="module")
def client(server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server, timeout=120.0) as c:
        yield c


def counts(graph: Graph) -> tuple[int, int, int]:
    row = graph.read("RETURN COUNT { MATCH (n) } AS nodes, COUNT { MATCH ()-[r]->() } AS rels, "
                     "COUNT { MATCH (n:Node) WHERE n.content CONTAINS 'pwned' } AS pwned")[0]
    return row["nodes"], row["rels"], row["pwned"]


def known_lsa_zero_vector(r: httpx.Response) -> bool:
    """Not an injection: with the LSA embedding (used here for speed) a question made only of words the model
    does not know has no vector; the retriever refuses it as a bad query (422) naming the reason."""
    return r.status_code == 422 and "none of the question's words" in r.json()["error"]["message"]


def node_uid(client: httpx.Client, text: str = "Philadelphia-negative disease") -> str:
    rows = client.get("/api/nodes", params={"q": text, "guideline": "ALL", "version": "1.2026"}).json()
    return next(r["uid"] for r in rows if r["content"] == text)


def test_ask_returns_a_real_answer_with_route_and_evidence(client: httpx.Client) -> None:
    r = client.post("/api/ask", json={"question": "A 30-year-old with Ph-positive B-cell ALL and no substantial "
                                                  "comorbidities: what is the recommended induction?"})
    assert r.status_code == 200, r.text
    body = r.json()
    answer = body["answer"]
    assert answer["route"] in ("text2cypher", "grag", "hybrid")
    assert answer["answer"].strip() and answer["evidence"]
    assert answer["disclaimer"]
    again = client.post("/api/ask", json={"question": "a 30-year-old with Ph-positive B-cell ALL and no substantial "
                                                      "comorbidities:  what is the recommended induction"}).json()
    assert again["cached"] is True and again["answer"]["answer"] == answer["answer"]


def test_retrieve_has_provenance(client: httpx.Client) -> None:
    r = client.post("/api/retrieve", json={"question": "why is MRD monitored?", "k": 5})
    assert r.status_code == 200, r.text
    evidence = r.json()["evidence"]
    assert evidence and all(e["hop"] is not None for e in evidence)


def test_guidelines_and_openapi(client: httpx.Client) -> None:
    rows = client.get("/api/guidelines").json()
    versions = {(g["guideline"], g["version"]) for g in rows}
    assert ("ALL", "1.2026") in versions and ("bone", "2.2026") in versions
    periods = {(g["guideline"], g["version"]): (g["effective_start"], g["effective_end"]) for g in rows}
    assert periods[("ALL", "1.2026")] == ("2026-01-15", "2026-06-30") and periods[("bone", "2.2026")] == (
        "2026-07-01", None), "the source's effective period, as ISO dates"
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/ask" in paths and "/api/nodes/{uid}/constraints" in paths


def test_curation_change_history_and_rollback(client: httpx.Client) -> None:
    uid = node_uid(client)
    path = f"/api/nodes/{quote(uid, safe='')}"
    before = client.get(path).json()
    r = client.post(path + "/constraints/set", headers=CURATOR,
                    json={"constraints": ["age>=18"], "reason": "e2e test", "expected_rev": before["rev"]})
    assert r.status_code == 200, r.text
    change = r.json()
    assert "age>=18" in change["after"] and change["who"] == "api:tester"
    stale = client.post(path + "/constraints/set", headers=CURATOR,
                        json={"constraints": ["age>=20"], "reason": "stale", "expected_rev": before["rev"]})
    assert stale.status_code == 409 and "changed since you read it" in stale.json()["error"]["message"]
    history = client.get(path + "/history").json()
    assert history[-1]["id"] == change["id"]
    back = client.post(f"/api/changes/{change['id']}/rollback", headers=CURATOR, json={"reason": "undo e2e"})
    assert back.status_code == 200, back.text
    assert client.get(path).json()["constraints"] == before["constraints"]


def test_typed_replace_validates_against_the_vocabulary(client: httpx.Client) -> None:
    uid = node_uid(client)
    path = f"/api/nodes/{quote(uid, safe='')}/constraints"
    rev = client.get(f"/api/nodes/{quote(uid, safe='')}").json()["rev"]
    bad = client.put(path, headers=CURATOR, json={"typed": {"ph": {"values": ["maybe"]}}, "reason": "x",
                                                  "expected_rev": rev})
    assert bad.status_code == 422 and "'maybe' is not a value of ph" in bad.json()["error"]["message"]
    wrong = client.put(path, headers=CURATOR, json={"typed": {"age": {"minimum": 70, "maximum": 20}}, "reason": "x",
                                                    "expected_rev": rev})
    assert wrong.status_code == 422 and "typed.age" in wrong.json()["error"]["message"]


def test_non_curators_cannot_change_anything(client: httpx.Client, graph: Graph) -> None:
    uid = node_uid(client)
    path = f"/api/nodes/{quote(uid, safe='')}"
    rev = client.get(path).json()["rev"]
    body = {"constraints": ["age>=18"], "reason": "not allowed", "expected_rev": rev}
    assert client.post(path + "/constraints/set", json=body).status_code == 401
    assert client.post(path + "/constraints/set", json=body, headers=READER).status_code == 403
    assert client.post(path + "/constraints/set", json=body,
                       headers={"Authorization": "Bearer not-a-valid-token-at-all"}).status_code == 401
    assert client.put(path + "/constraints", json={"typed": {}, "reason": "x", "expected_rev": rev}).status_code == 401
    assert client.post("/api/annotation/qrels", json={"query": "q", "judgments": [
        {"uid": uid, "label": "3"}]}, headers=READER).status_code == 403
    assert client.get(path).json()["rev"] == rev


def test_malformed_json_is_400_naming_the_body(client: httpx.Client) -> None:
    r = client.post("/api/ask", content=b'{"question": "x",', headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "malformed JSON" in r.json()["error"]["message"]


@pytest.mark.parametrize("body,field", [({}, "body.question"), ({"question": ""}, "body.question"),
                                        ({"question": "x" * 601}, "body.question"),
                                        ({"question": "ok", "k": 0}, "body.k")])
def test_validation_errors_name_the_field(client: httpx.Client, body: dict[str, object], field: str) -> None:
    r = client.post("/api/ask", json=body)
    assert r.status_code == 422 and r.json()["error"]["message"].startswith(field)


def test_huge_bodies_are_refused(client: httpx.Client) -> None:
    big = b'{"question": "' + b"a" * 200_000 + b'"}'
    declared = client.post("/api/ask", content=big, headers={"Content-Type": "application/json"})
    assert declared.status_code == 413

    def chunks() -> Iterator[bytes]:
        for i in range(0, len(big), 8192):
            yield big[i:i + 8192]

    streamed = client.post("/api/ask", content=chunks(), headers={"Content-Type": "application/json"})
    assert streamed.status_code == 413


def test_injection_attempts_stay_data(client: httpx.Client, graph: Graph) -> None:
    before = counts(graph)
    uid = node_uid(client)
    path = f"/api/nodes/{quote(uid, safe='')}"
    rev = client.get(path).json()["rev"]
    for text in INJECTIONS:
        for endpoint in ("/api/ask", "/api/retrieve"):
            r = client.post(endpoint, json={"question": text})
            assert r.status_code == 200 or known_lsa_zero_vector(r), r.text
        assert client.get("/api/nodes", params={"q": text}).status_code == 200
        r = client.get("/api/nodes", params={"q": "ph", "guideline": text, "version": text})
        valid_names = re.fullmatch(GUIDELINE_NAME_PATTERN, text) and re.fullmatch(VERSION_NAME_PATTERN, text)
        assert r.json() == [] if valid_names else r.status_code == 422, r.text
        assert client.get(f"/api/nodes/{quote(text, safe='')}").status_code in (404, 422)
        assert client.post("/api/paths", json={"uids": [text]}).status_code in (200, 422)
        r = client.get("/api/annotation/pool", params={"query": text, "k": 3})
        assert r.status_code == 200 or known_lsa_zero_vector(r), r.text
        for endpoint, body in (("/constraints/set", {"constraints": [text], "reason": text, "expected_rev": rev}),
                               ("/constraints/remove", {"targets": [text], "reason": text, "expected_rev": rev}),
                               ("/constraints/update", {"old": text, "new": text, "reason": text,
                                                        "expected_rev": rev})):
            r = client.post(path + endpoint, json=body, headers=CURATOR)
            assert r.status_code == 422, r.text
        r = client.put(path + "/constraints", headers=CURATOR,
                       json={"typed": {text[:40]: {"values": [text]}}, "reason": text, "expected_rev": rev})
        assert r.status_code == 422
        assert client.post(f"/api/changes/{quote(text, safe='')}/rollback", headers=CURATOR,
                           json={"reason": text}).status_code in (404, 422)
    assert counts(graph) == before
    assert client.get(path).json()["rev"] == rev


def bare_env(graph: Graph, qrels_dir: Path) -> dict[str, str]:
    """A server on the session graph without the text-to-Cypher model: questions are answered (or refused)
    at once, which is what used to deadlock the engine."""
    return {"DKG_HOME": str(graph.settings.home), "DKG_NEO4J_BOLT_PORT": str(graph.settings.neo4j_bolt_port),
            "DKG_RETRIEVAL_MODEL": os.environ.get("DKG_RETRIEVAL_MODEL", "lsa"), "DKG_API_LOAD_QA_MODEL": "false",
            "DKG_API_CURATOR_TOKENS": f"tester:{CURATOR_TOKEN}", "DKG_API_QRELS_DIR": str(qrels_dir)}


def test_blank_and_instant_questions_leave_the_server_answering_and_stoppable(graph: Graph, tmp_path: Path) -> None:
    # issue 21 item 1: one blank question hung every later request and made the process ignore SIGTERM
    with serve_process(PORT + 1, bare_env(graph, tmp_path), log_path=tmp_path / "server.log") as srv:
        with httpx.Client(base_url=srv.base, timeout=10.0) as c:  # the timeout is the deadline of each request
            blank = c.post("/api/ask", json={"question": "   "})
            assert blank.status_code == 422, blank.text
            assert "blank" in blank.json()["error"]["message"]
            for i in range(6):  # answered (or refused) at once, before the engine registers its callback
                r = c.post("/api/ask", json={"question": f"qzxv{i % 3} wvut?"})
                assert r.status_code in (200, 422, 503), r.text
            assert c.get("/api/health").status_code == 200
        srv.proc.send_signal(signal.SIGTERM)
        try:
            srv.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("dkg serve ignored SIGTERM for 30 s")


@pytest.mark.parametrize("bad", ["../../etc/passwd", "<b>x</b>", "ALL|1.2026|no-such-key", "[red]x[/red]"])
def test_qrels_judgments_only_cite_results_that_exist(client: httpx.Client, bad: str) -> None:
    # issue 21 item 11: any uid was written into the qrels file
    before = client.get("/api/annotation/qrels").json()
    uid = node_uid(client)
    r = client.post("/api/annotation/qrels", headers=CURATOR, json={"query": "why is MRD monitored?", "judgments": [
        {"uid": uid, "label": "3"}, {"uid": bad, "label": "2"}]})
    assert r.status_code == 422, r.text
    message = r.json()["error"]["message"]
    assert repr(bad) in message and repr(uid) not in message
    assert client.get("/api/annotation/qrels").json() == before  # nothing saved
    ok = client.post("/api/annotation/qrels", headers=CURATOR, json={"query": "why is MRD monitored?",
                                                                     "judgments": [{"uid": uid, "label": "3"}]})
    assert ok.status_code == 200, ok.text


def test_credentials_never_reach_the_server_log(graph: Graph, tmp_path: Path) -> None:
    # issue 21 item 12: a token sent as ?token= was refused but written in full to the access log
    log = tmp_path / "server.log"
    wrong = "wrong-but-secret-token-4711"
    with serve_process(PORT + 1, bare_env(graph, tmp_path), log_path=log, log_level="info") as srv:
        with httpx.Client(base_url=srv.base, timeout=30.0) as c:
            assert c.post(f"/api/changes/x/rollback?token={CURATOR_TOKEN}", json={}).status_code == 401
            assert c.get("/api/whoami", params={"access_token": wrong, "password": wrong}).status_code == 200
            assert c.get(f"/api/nodes/{CURATOR_TOKEN}").status_code == 422
            assert c.get("/api/whoami", headers={"Authorization": f"Bearer {wrong}"}).status_code == 401
    text = log.read_text()
    assert "/api/changes/x/rollback?token=[REDACTED]" in text  # the lines are written, the secrets are not
    assert "access_token=[REDACTED]&password=[REDACTED]" in text
    assert CURATOR_TOKEN not in text and wrong not in text
