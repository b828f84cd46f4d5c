"""FHIR benchmark: export time per guideline version, and CDS Hooks latency under concurrent clients.
Writes bench/results/fhir.json.

    DKG_HOME=... DKG_NEO4J_BOLT_PORT=... python bench/fhir_bench.py [--runs 3] [--clients 20] [--requests 15]

Builds the shipped guideline versions from their sources when missing (unchanged ones are skipped), times
``export_version`` (graph reads, bundle, validation) ``--runs`` times per version (median; the first run, which
parses the expressions not seen before, is reported apart as export_first_ms), then starts its own
``dkg serve`` (``--port``, text-to-Cypher off: the CDS route does not use it) and has ``--clients`` threads each
send ``--requests`` patient-view requests, one patient per CPG-QA test scenario in turn (Patient, Observations and
the Condition naming the guideline's diagnosis). Each run's p50/p99 is recorded; the results are their medians.
The first request per guideline version builds its plan (reported apart as cold_ms).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dkg.api.testing import CURATOR_TOKEN, serve_process  # noqa: E402
from dkg.config import get_settings  # noqa: E402
from dkg.corpus.model import discover  # noqa: E402
from dkg.fhir.codes import CodeMap, load_code_map  # noqa: E402
from dkg.fhir.export import export_version  # noqa: E402
from dkg.fhir.patients import patient_bundle  # noqa: E402
from dkg.fhir.settings import load_fhir_settings  # noqa: E402
from dkg.graph.builder import build  # noqa: E402
from dkg.graph.db import Graph  # noqa: E402
from dkg.graph.sources import input_from_source  # noqa: E402
from dkg.qa.dataset import load_dataset  # noqa: E402
from dkg.qa.queries import QuestionType  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "fhir.json"
AUTH = {"Authorization": f"Bearer {CURATOR_TOKEN}"}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def cds_requests(codes: CodeMap) -> list[tuple[str, dict[str, Any]]]:
    """One patient-view request per CPG-QA test scenario (facts as FHIR resources, diagnosis as a Condition)."""
    scenarios: dict[str, Any] = {}
    for item in load_dataset():
        if item.split == "test" and item.question_type is QuestionType.NEXT_STEP:
            scenarios.setdefault(item.scenario_id, item)
    out = []
    for n, item in enumerate(scenarios.values()):
        pid = f"bench-{n}"
        facts = {k: v for k, v in item.params.items() if k not in ("guideline", "version")}
        made = patient_bundle(facts, codes, patient_id=pid)
        conditions = [{"resource": {"resourceType": "Condition", "subject": {"reference": f"Patient/{pid}"},
                                    "code": {"coding": [coding.model_dump(exclude_none=True)]}}}
                      for coding in codes.diseases.get(item.guideline, [])[:1]]
        out.append((item.guideline, {"hook": "patient-view", "hookInstance": str(uuid.uuid4()),
                    "context": {"userId": "Practitioner/bench", "patientId": pid},
                    "prefetch": {"patient": made["entry"][0]["resource"],
                                 "observations": {"resourceType": "Bundle", "type": "searchset",
                                                  "entry": made["entry"][1:]},
                                 "conditions": {"resourceType": "Bundle", "type": "searchset", "entry": conditions}}}))
    return out


def load_run(base: str, bodies: list[dict[str, Any]], clients: int, per_client: int) -> tuple[list[float], int]:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()

    def client(offset: int) -> None:
        nonlocal errors
        with httpx.Client(base_url=base, timeout=120.0, headers=AUTH) as http:
            for i in range(per_client):
                body = bodies[(offset * per_client + i) % len(bodies)]
                started = time.perf_counter()
                r = http.post("/cds-services/dkg-next-step", json=body)
                elapsed = (time.perf_counter() - started) * 1000
                with lock:
                    latencies.append(elapsed)
                    errors += r.status_code != 200 or not r.json().get("cards")

    threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=15, help="requests per client per run")
    parser.add_argument("--port", type=int, default=int(os.environ.get("DKG_FHIR_BENCH_PORT", "8738")))
    args = parser.parse_args()
    settings = get_settings()
    fhir_settings = load_fhir_settings()
    codes = load_code_map(fhir_settings.codes_file)
    results: dict[str, Any] = {"cpu_cores": os.cpu_count(), "export_runs": args.runs}
    with Graph(settings) as graph:
        graph.apply_schema()
        build(graph, [input_from_source(g, v) for g, v, _ in discover()])
        for g, v, _ in discover():
            times = []
            for _ in range(args.runs):
                started = time.perf_counter()
                result = export_version(graph, g, v, fhir_settings)
                times.append((time.perf_counter() - started) * 1000)
            results[f"export_ms_{g}_{v}"] = round(statistics.median(times), 1)
            results[f"export_first_ms_{g}_{v}"] = round(times[0], 1)
            results[f"export_actions_{g}_{v}"] = result.report.actions
            results[f"export_conditions_{g}_{v}"] = result.report.conditions
            results[f"export_unmapped_{g}_{v}"] = len(result.report.unmapped)
            print(f"export {g} {v}: first {times[0]:.0f} ms, median {results[f'export_ms_{g}_{v}']} ms, "
                  f"{result.report.actions} actions", flush=True)
    requests = cds_requests(codes)
    bodies = [body for _, body in requests]
    env = {"DKG_HOME": str(settings.home), "DKG_NEO4J_BOLT_PORT": str(settings.neo4j_bolt_port),
           "DKG_API_LOAD_QA_MODEL": "false", "DKG_API_CURATOR_TOKENS": f"bench:{CURATOR_TOKEN}"}
    with serve_process(args.port, env, log_path=ROOT / "tests" / "artifacts" / f"fhir-bench-{args.port}.log") as server:
        cold = []
        for guideline in sorted({g for g, _ in requests}):
            body = next(b for g, b in requests if g == guideline)
            started = time.perf_counter()
            httpx.post(server.base + "/cds-services/dkg-next-step", json=body, headers=AUTH, timeout=120.0)
            cold.append((time.perf_counter() - started) * 1000)
        p50s, p99s, errors, total = [], [], 0, 0
        for run in range(args.runs):
            started = time.perf_counter()
            latencies, failed = load_run(server.base, bodies, args.clients, args.requests)
            seconds = time.perf_counter() - started
            p50s.append(percentile(latencies, 0.5))
            p99s.append(percentile(latencies, 0.99))
            errors += failed
            total += len(latencies)
            print(f"run {run + 1}: p50 {p50s[-1]:.0f} ms, p99 {p99s[-1]:.0f} ms, {len(latencies) / seconds:.1f} req/s",
                  flush=True)
    results.update({"cds_clients": args.clients, "cds_runs": args.runs, "cds_requests": total, "cds_errors": errors,
                    "cds_patients": len(bodies), "cds_p50_ms": round(statistics.median(p50s), 1),
                    "cds_p99_ms": round(statistics.median(p99s), 1), "cds_p50_ms_runs": [round(x, 1) for x in p50s],
                    "cds_p99_ms_runs": [round(x, 1) for x in p99s], "cold_ms": [round(x, 1) for x in cold]})
    RESULTS.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(json.dumps(results, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
