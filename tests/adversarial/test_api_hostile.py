"""Hostile requests against a real `dkg serve` on loopback and the real Neo4j: injection forms in every text
field, authentication forms on every curator endpoint, oversized and malformed bodies, parallel edits of one
node. Nothing may answer 5xx, nothing refused may change the graph (counts and a checksum of every property)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from urllib.parse import quote

import httpx
import pytest

from dkg.api.adversarial import (
    Tally,
    Target,
    auth_attacks,
    body_attacks,
    concurrent_sets,
    graph_fingerprint,
    injection_attacks,
)
from dkg.api.settings import ApiSettings
from dkg.api.testing import CURATOR_TOKEN, READER_TOKEN, live_server, server_env
from dkg.graph.db import Graph

pytestmark = [pytest.mark.adversarial, pytest.mark.neo4j, pytest.mark.slow]
PORT = int(os.environ.get("DKG_API_TEST_PORT", "8730")) + 4
NODE_TEXT = "Philadelphia-negative disease"


@pytest.fixture(scope="module")
def server(graph: Graph, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(PORT, server_env(graph.settings, tmp_path_factory.mktemp("qrels"))) as base:
        yield base


@pytest.fixture(scope="module")
def client(server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server, timeout=60.0) as c:
        yield c


def target(client: httpx.Client) -> Target:
    rows = client.get("/api/nodes", params={"q": NODE_TEXT, "guideline": "ALL", "version": "1.2026"}).json()
    uid = next(r["uid"] for r in rows if r["content"] == NODE_TEXT)
    rev = client.get(f"/api/nodes/{quote(uid, safe='')}").json()["rev"]
    return Target(uid, rev, CURATOR_TOKEN, READER_TOKEN)


@pytest.mark.parametrize("attack", ["injection", "auth", "bodies"])
def test_hostile_requests_are_refused_and_change_nothing(client: httpx.Client, graph: Graph, attack: str) -> None:
    aim = target(client)
    before = graph_fingerprint(graph)
    tally = Tally()
    if attack == "injection":
        injection_attacks(client, aim, tally)
    elif attack == "auth":
        auth_attacks(client, aim, tally)
    else:
        body_attacks(client, aim, ApiSettings().max_body_bytes, tally)
    assert tally.unexpected == []
    assert sum(tally.server_errors.values()) == 0
    assert sum(tally.tried.values()) >= 30
    assert graph_fingerprint(graph) == before
    assert client.get("/api/health").status_code == 200


def test_parallel_edits_of_one_revision_one_wins(client: httpx.Client, graph: Graph) -> None:
    # issue 21 item 2 (compare-and-set in dkg/graph/curation.py): all ten used to return 200
    aim = target(client)
    original = client.get(aim.path).json()
    history = client.get(aim.path + "/history").json()
    statuses = concurrent_sets(str(client.base_url), aim, clients=10)
    after = client.get(aim.path + "/history").json()
    try:
        assert sorted(statuses) == [200] + [409] * 9, statuses
        assert len(after) == len(history) + 1
        assert client.get(aim.path).json()["rev"] == aim.rev + 1
    finally:  # put the node's constraints back, whatever happened
        now = client.get(aim.path).json()
        if now["constraints"] != original["constraints"]:
            r = client.put(aim.path + "/constraints", headers={"Authorization": f"Bearer {CURATOR_TOKEN}"},
                           json={"typed": original["typed"] or {}, "reason": "adversarial suite: restore",
                                 "expected_rev": now["rev"]})
            assert r.status_code == 200, r.text
