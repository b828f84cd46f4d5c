"""Load test of the HTTP API: N concurrent clients asking questions for T seconds against a local server on
loopback (bounded in requests and time; stops by itself). Writes bench/results/webapp.json.

    DKG_HOME=... DKG_NEO4J_BOLT_PORT=... python bench/webapp_load.py [--runs 3] [--browser-tests]

Starts its own server (port 8731) against the configured graph unless --url is given. Each run first asks
every question once (cold in the first run: model and retrieval work, reported as cold_*), then measures the
steady state, where repeated questions are served from the answer cache (keyed by the normalised question and the graph
snapshot). Figures: median over runs for latencies and throughput, totals for requests and errors.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dkg.api.testing import live_server  # noqa: E402

QUESTIONS = [
    "A 30-year-old with Ph-positive B-cell ALL and no substantial comorbidities: what is the recommended induction?",
    "Is blinatumomab appropriate for a 70 year old man with Philadelphia-negative B-ALL who is MRD-positive after "
    "achieving complete remission?",
    "In renal cell carcinoma, which patients should receive partial nephrectomy?",
    "A 55-year-old woman has stage IV clear-cell RCC with IMDC favorable risk. What next?",
    "Which patients with bone sarcoma should get wide en bloc excision?",
    "What is the best treatment for metastatic breast cancer?",
    "what is blinatumomab used for in ALL?",
    "why is MRD monitored?",
    "How is Wilms tumor treated in children?",
    "what is denosumab used for in bone tumors?",
    "Which tests are used to find acute lymphoblastic leukemia in adults?",
    "What is recommended for Ph-positive B-ALL?",
]
MAX_REQUESTS = 200_000


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


async def one_run(base: str, clients: int, seconds: float) -> dict[str, float]:
    limits = httpx.Limits(max_connections=clients + 2, max_keepalive_connections=clients + 2)
    async with httpx.AsyncClient(base_url=base, timeout=120.0, limits=limits) as http:
        cold: list[float] = []
        cold_errors = 0
        for q in QUESTIONS:  # cold pass: every question computed once
            t = time.perf_counter()
            r = await http.post("/api/ask", json={"question": q})
            cold.append((time.perf_counter() - t) * 1000)
            cold_errors += r.status_code != 200
        latencies: list[float] = []
        errors = 0
        deadline = time.perf_counter() + seconds

        async def client(i: int) -> None:
            nonlocal errors
            n = i
            while time.perf_counter() < deadline and len(latencies) + errors < MAX_REQUESTS:
                q = QUESTIONS[n % len(QUESTIONS)]
                n += 1
                t = time.perf_counter()
                try:
                    r = await http.post("/api/ask", json={"question": q})
                    ok = r.status_code == 200 and bool(r.json()["answer"]["answer"] or
                                                       r.json()["answer"]["no_answer_reason"])
                except (httpx.HTTPError, ValueError, KeyError):
                    ok = False
                if ok:
                    latencies.append((time.perf_counter() - t) * 1000)
                else:
                    errors += 1

        start = time.perf_counter()
        await asyncio.gather(*(client(i) for i in range(clients)))
        elapsed = time.perf_counter() - start
    return {"requests": len(latencies) + errors, "errors": errors, "p50": percentile(latencies, 50),
            "p99": percentile(latencies, 99), "max": max(latencies), "rps": (len(latencies) + errors) / elapsed,
            "cold_p50": statistics.median(cold), "cold_max": max(cold), "cold_errors": cold_errors}


def browser_tests() -> tuple[int, int]:
    """Run the browser tests; (passed, failed) from their JUnit report."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        subprocess.run([sys.executable, "-m", "pytest", "tests/e2e/test_browser_webapp.py", "-q",
                        "-p", "no:cacheprovider", f"--junitxml={report}"], cwd=ROOT, check=False, timeout=1800)
        suite = ET.parse(report).getroot().iter("testsuite").__next__()
        total, failed = int(suite.get("tests", 0)), int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skipped = int(suite.get("skipped", 0))
        return total - failed - skipped, failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="an already running server (default: start one on --port)")
    parser.add_argument("--port", type=int, default=8731)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--browser-tests", action="store_true", help="also run the browser tests and count passes")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "webapp.json")
    args = parser.parse_args()

    def measure(base: str) -> list[dict[str, float]]:
        runs = []
        for i in range(args.runs):
            r = asyncio.run(one_run(base, args.clients, args.seconds))
            print(f"run {i + 1}: {r['requests']} requests, {r['errors']} errors, p50 {r['p50']:.1f} ms, "
                  f"p99 {r['p99']:.1f} ms, {r['rps']:.0f} req/s; cold p50 {r['cold_p50']:.0f} ms", flush=True)
            runs.append(r)
        return runs

    if args.url:
        runs = measure(args.url)
    else:
        with live_server(args.port, {}) as base:
            health = httpx.get(base + "/api/health", timeout=10).json()
            print(f"server: text2cypher={health['text2cypher']} retriever={health['retriever']} "
                  f"workers={health['workers']}", flush=True)
            runs = measure(base)
    med = lambda key: round(statistics.median(r[key] for r in runs), 2)  # noqa: E731
    figures: dict[str, float] = {
        "load_clients": args.clients, "load_seconds": args.seconds, "load_runs": len(runs),
        "load_requests": sum(int(r["requests"]) for r in runs), "load_errors": sum(int(r["errors"]) for r in runs),
        "load_p50_ms": med("p50"), "load_p99_ms": med("p99"), "load_max_ms": med("max"),
        "load_throughput_rps": med("rps"), "load_questions": len(QUESTIONS),
        # only the first run's warm-up pass is really cold (later runs find the answers cached)
        "cold_p50_ms": round(runs[0]["cold_p50"], 2), "cold_max_ms": round(runs[0]["cold_max"], 2),
        "cold_errors": sum(int(r["cold_errors"]) for r in runs), "cpu_cores": os.cpu_count() or 0,
    }
    previous = json.loads(args.out.read_text()) if args.out.is_file() else {}
    if args.browser_tests:
        passed, failed = browser_tests()
        figures.update(browser_tests_passed=passed, browser_tests_failed=failed)
    else:
        figures.update({k: previous[k] for k in ("browser_tests_passed", "browser_tests_failed") if k in previous})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n")
    print(json.dumps(figures, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
