"""The standing adversarial run, counted: hostile requests against a real `dkg serve` on loopback and the real
Neo4j (injection forms, authentication forms on every curator endpoint, oversized and malformed bodies,
parallel edits of one revision), Neo4j killed under a serving API (a dedicated server with its own data folder),
and corrupt PDFs / CSVs / YAMLs given to the CLI. Writes bench/results/reliability.json.

    DKG_HOME=... DKG_NEO4J_BOLT_PORT=... python bench/adversarial.py [--port 8790] [--outage-neo4j-port 7790]

Bounded: a fixed catalogue of requests, one outage, loopback addresses only. Figures: requests tried, refused
(4xx), 5xx, unexpected answers, and the graph's node/relationship counts and property checksum before and after.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dkg.api.adversarial import (  # noqa: E402
    CORRUPT_FILES,
    Tally,
    Target,
    auth_attacks,
    body_attacks,
    concurrent_sets,
    corrupt_cli_case,
    graph_fingerprint,
    injection_attacks,
    kill_local_server,
    run_cli_case,
)
from dkg.api.settings import ApiSettings  # noqa: E402
from dkg.api.testing import CURATOR_TOKEN, READER_TOKEN, live_server, serve_process, server_env  # noqa: E402
from dkg.config import get_settings, load_settings  # noqa: E402
from dkg.graph.builder import build  # noqa: E402
from dkg.graph.db import Graph  # noqa: E402
from dkg.graph.sources import input_from_source  # noqa: E402
from dkg.services.neo4j_server import LocalNeo4jServer  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "reliability.json"
NODE_TEXT = "Philadelphia-negative disease"
COMMAND = "python bench/adversarial.py"


def aim(client: httpx.Client) -> Target:
    rows = client.get("/api/nodes", params={"q": NODE_TEXT, "guideline": "ALL", "version": "1.2026"}).json()
    uid = next(r["uid"] for r in rows if r["content"] == NODE_TEXT)
    return Target(uid, client.get(f"/api/nodes/{quote(uid, safe='')}").json()["rev"], CURATOR_TOKEN, READER_TOKEN)


def hostile_requests(port: int, say: Any) -> dict[str, Any]:
    settings = get_settings()
    if settings.uses_local_neo4j:
        LocalNeo4jServer(settings).start()  # idempotent; left running, like `dkg neo4j start`
    with tempfile.TemporaryDirectory() as qrels, Graph(settings) as graph:
        env = server_env(settings, Path(qrels), say=say)
        with live_server(port, env) as base, httpx.Client(base_url=base, timeout=60.0) as client:
            target = aim(client)
            before = graph_fingerprint(graph)
            tally = Tally()
            injection_attacks(client, target, tally)
            auth_attacks(client, target, tally)
            body_attacks(client, target, ApiSettings().max_body_bytes, tally)
            after = graph_fingerprint(graph)
            say(f"hostile requests: {tally.summary()['requests']}, unexpected {len(tally.unexpected)}")
            original = client.get(target.path).json()
            history = len(client.get(target.path + "/history").json())
            statuses = concurrent_sets(base, aim(client), clients=10)
            records = len(client.get(target.path + "/history").json()) - history
            now = client.get(target.path).json()
            if now["constraints"] != original["constraints"]:  # put the node back
                client.put(target.path + "/constraints", headers={"Authorization": f"Bearer {CURATOR_TOKEN}"},
                           json={"typed": original["typed"] or {}, "reason": "bench/adversarial.py: restore",
                                 "expected_rev": now["rev"]})
    return {**tally.summary(), "unexpected_answers": tally.unexpected[:50],
            "graph_before": before.__dict__, "graph_after": after.__dict__, "graph_unchanged": before == after,
            "concurrency": {"parallel_sets_same_rev": len(statuses), "ok_200": statuses.count(200),
                            "conflict_409": statuses.count(409),
                            "other": sorted(s for s in statuses if s not in (200, 409)),
                            "audit_records_added": records,
                            "holds": statuses.count(200) == 1 and statuses.count(409) == len(statuses) - 1
                            and records == 1}}


def outage(api_port: int, neo4j_port: int, say: Any) -> dict[str, Any]:
    """Neo4j SIGKILLed under a serving API: how requests were answered while it was down, and after."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(home=Path(tmp) / "home", neo4j_bolt_port=neo4j_port, neo4j_heap="512m",
                                 neo4j_pagecache="64m")
        server = LocalNeo4jServer(settings)
        server.start()
        try:
            with Graph(settings) as graph:
                graph.apply_schema()
                build(graph, [input_from_source("ALL", "1.2026")])
            env = {"DKG_HOME": str(settings.home), "DKG_NEO4J_BOLT_PORT": str(neo4j_port),
                   "DKG_API_LOAD_QA_MODEL": "false", "DKG_API_CURATOR_TOKENS": f"tester:{CURATOR_TOKEN}",
                   "DKG_API_QRELS_DIR": str(Path(tmp) / "qrels"), "DKG_API_GRAPH_PROBE_INTERVAL_S": "0.5"}
            with serve_process(api_port, env, log_path=Path(tmp) / "server.log") as srv, \
                    httpx.Client(base_url=srv.base, timeout=60.0) as c:
                kill_local_server(server)
                deadline = time.monotonic() + 30
                while c.get("/api/health").status_code != 503 and time.monotonic() < deadline:
                    time.sleep(0.2)
                tally = Tally()
                slowest = 0.0
                for path in ("/api/guidelines", "/api/nodes?q=ph", "/api/nodes/ALL%7C1.2026%7Cx",
                             "/api/nodes/ALL%7C1.2026%7Cx/history", "/api/health"):
                    started = time.perf_counter()
                    tally.send(c, "outage", path, frozenset({503}), "GET", path)
                    slowest = max(slowest, time.perf_counter() - started)
                started = time.perf_counter()
                tally.send(c, "outage", "ask", frozenset({503}), "POST", "/api/ask", json={"question": "why?"})
                slowest = max(slowest, time.perf_counter() - started)
                restart = time.perf_counter()
                server.start()
                deadline = time.monotonic() + 60
                while c.get("/api/health").status_code != 200 and time.monotonic() < deadline:
                    time.sleep(0.25)
                recovered_s = time.perf_counter() - restart
                health = c.get("/api/health")
                recovered = health.status_code == 200 and c.get("/api/guidelines").status_code == 200
                breaker = health.json().get("graph_breaker", {}) if health.status_code == 200 else {}
            say(f"outage: {tally.summary()['requests']} requests while down, slowest {slowest:.3f} s, "
                f"recovered={recovered}")
            return {**tally.summary(), "unexpected_answers": tally.unexpected, "slowest_refusal_s": round(slowest, 3),
                    "recovered_without_restart": recovered, "restart_to_serving_s": round(recovered_s, 1),
                    "breaker": breaker}
        finally:
            server.stop(timeout_s=30)


def corrupt_inputs(say: Any) -> dict[str, Any]:
    cases: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in CORRUPT_FILES:
            outcome = run_cli_case(corrupt_cli_case(name, Path(tmp)))
            cases[outcome.case.name] = outcome.problems
    bad = {k: v for k, v in cases.items() if v}
    say(f"corrupt CLI inputs: {len(cases)} tried, {len(bad)} not refused cleanly")
    return {"inputs": len(cases), "refused_cleanly": len(cases) - len(bad), "not_clean": bad}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8790, help="loopback port of the API under test")
    parser.add_argument("--outage-port", type=int, default=8791, help="loopback port of the API of the outage run")
    parser.add_argument("--outage-neo4j-port", type=int, default=7790, help="Bolt port of the outage run's Neo4j")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    started = time.perf_counter()
    results = {"command": COMMAND, "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
               "hostile_requests": hostile_requests(args.port, print),
               "neo4j_killed_mid_serve": outage(args.outage_port, args.outage_neo4j_port, print),
               "corrupt_cli_inputs": corrupt_inputs(print)}
    results["seconds"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
