"""Builder benchmark: build throughput, constraint-update latency at 1k–200k nodes, rebuild time.

Runs its own Neo4j server (separate data folder and port; the demo database is never touched),
scales the graph by loading copies of the three shipped guidelines under different guideline codes,
and writes bench/results/builder.json plus docs/img/builder_latency.png.

    .venv/bin/python bench/builder_bench.py            # full run (about 10 minutes here)
    .venv/bin/python bench/builder_bench.py --quick    # sizes 1k and 10k only
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import time
from dataclasses import replace

from dkg.config import PROJECT_ROOT, load_settings
from dkg.graph.build_input import BuildInput
from dkg.graph.builder import build
from dkg.graph.curation import Curator
from dkg.graph.db import Graph
from dkg.graph.sources import input_from_source
from dkg.services.neo4j_server import LocalNeo4jServer

RESULTS = PROJECT_ROOT / "bench" / "results" / "builder.json"
PLOT = PROJECT_ROOT / "docs" / "img" / "builder_latency.png"
BATCH_VERSIONS = 100  # guideline copies written per transaction while scaling up (about 40k nodes+relations)


def copies(templates: list[BuildInput], start: int, count: int) -> list[BuildInput]:
    """``count`` renamed copies (guideline code ``<G>-<n>``) of the template guidelines."""
    out = []
    for i in range(start, start + count):
        t = templates[i % len(templates)]
        c = BuildInput(f"{t.guideline}-{i:05d}", t.version, t.title)
        c.nodes = {k: replace(n, pages=set(n.pages), box_ids=set(n.box_ids)) for k, n in t.nodes.items()}
        c.edges = dict(t.edges)
        out.append(c)
    return out


def node_count(graph: Graph) -> int:
    return graph.read("MATCH (n:Node) RETURN count(n) AS c")[0]["c"]


def store_counts(graph: Graph) -> int:
    """Nodes + relations in the database (Neo4j answers both counts from its count store)."""
    nodes = graph.read("MATCH (n) RETURN count(n) AS c")[0]["c"]
    return int(nodes + graph.read("MATCH ()-[r]->() RETURN count(r) AS c")[0]["c"])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def update_latencies(graph: Graph, samples: int, seed: int) -> list[float]:
    """Milliseconds per audited constraint update (read node + one write transaction), on random decisions."""
    rng = random.Random(seed)
    uids = [r["uid"] for r in graph.read("MATCH (n:Decision) WHERE n.age_min IS NOT NULL OR n.age_max IS NOT NULL "
                                         "RETURN n.uid AS uid")]
    curator = Curator(graph, "bench")
    timings = []
    for i in range(samples):
        uid = rng.choice(uids)
        value = f"age<{60 + (i % 20)}"
        start = time.perf_counter()
        curator.set(uid, [value], "benchmark update")
        timings.append((time.perf_counter() - start) * 1000)
    return timings


def raw_set_latencies(graph: Graph, samples: int, seed: int) -> list[float]:
    """Milliseconds per bare constraint SET (one parameterized write transaction, no audit record)."""
    rng = random.Random(seed)
    uids = [r["uid"] for r in graph.read("MATCH (n:Decision) RETURN n.uid AS uid")]
    timings = []
    for i in range(samples):
        start = time.perf_counter()
        graph.write("MATCH (n:Node {uid: $uid}) SET n.age_max = $value, n.age_max_strict = true", {
            "uid": rng.choice(uids), "value": float(60 + i % 20)})
        timings.append((time.perf_counter() - start) * 1000)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="only 1k and 10k nodes")
    parser.add_argument("--port", type=int, default=7702)
    parser.add_argument("--samples", type=int, default=300, help="updates timed per graph size")
    parser.add_argument("--rebuild-runs", type=int, default=3)
    args = parser.parse_args()
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000, 200_000]

    home = PROJECT_ROOT / ".dkg-bench-builder"
    shutil.rmtree(home, ignore_errors=True)
    settings = load_settings(home=home, neo4j_bolt_port=args.port, neo4j_heap="3g", neo4j_pagecache="1g")
    server = LocalNeo4jServer(settings)
    templates = [input_from_source(g, "1.2026") for g in ("ALL", "kidney", "bone")]
    results: dict[str, float] = {}
    latency: dict[int, tuple[float, float]] = {}
    with server.running(), Graph(settings) as graph:
        graph.apply_schema()
        loaded: list[BuildInput] = []
        build_seconds = 0.0
        build_items = 0  # every node and relation the builds wrote, from Neo4j's counts
        guideline_items = 0  # boxes and arrows only (no CONTAINS / OFFERS / Treatment / version nodes)
        for size in sizes:
            while node_count(graph) < size:
                per_copy = sum(len(t.nodes) for t in templates) / len(templates)
                need = max(1, min(BATCH_VERSIONS, int((size - node_count(graph)) / per_copy) + 1))
                batch = copies(templates, len(loaded), need)
                before = store_counts(graph)
                start = time.perf_counter()
                build(graph, batch)
                build_seconds += time.perf_counter() - start
                build_items += store_counts(graph) - before
                guideline_items += sum(b.counts()["nodes"] + len(b.edges) for b in batch)
                loaded += batch
            n = node_count(graph)
            timings = update_latencies(graph, args.samples, seed=size)
            p50, p99 = statistics.median(timings), percentile(timings, 0.99)
            latency[size] = (p50, p99)
            label = f"{size // 1000}k"
            results[f"nodes_at_{label}"] = n
            results[f"update_p50_ms_{label}"] = round(p50, 3)
            results[f"update_p99_ms_{label}"] = round(p99, 3)
            raw = raw_set_latencies(graph, args.samples, seed=size + 1)
            results[f"raw_set_p50_ms_{label}"] = round(statistics.median(raw), 3)
            results[f"raw_set_p99_ms_{label}"] = round(percentile(raw, 0.99), 3)
            print(f"{n:>7} nodes: audited update p50 {p50:.2f} ms, p99 {p99:.2f} ms; bare SET p50 "
                  f"{statistics.median(raw):.2f} ms, p99 {percentile(raw, 0.99):.2f} ms ({args.samples} each)")
        results["build_items_per_s"] = round(build_items / build_seconds, 1)
        results["build_guideline_items_per_s"] = round(guideline_items / build_seconds, 1)
        results["build_items"] = build_items
        results["build_seconds"] = round(build_seconds, 2)
        print(f"build: {build_items} nodes+relations in {build_seconds:.1f} s = {results['build_items_per_s']}/s "
              f"({guideline_items} boxes+arrows = {results['build_guideline_items_per_s']}/s)")

        largest = f"{sizes[-1] // 1000}k"
        rebuilds = []
        for run in range(args.rebuild_runs):
            start = time.perf_counter()
            graph.run_autocommit("MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS")
            for i in range(0, len(loaded), BATCH_VERSIONS):
                build(graph, loaded[i:i + BATCH_VERSIONS], force=True)
            rebuilds.append(time.perf_counter() - start)
            print(f"rebuild {run + 1}: {rebuilds[-1]:.1f} s ({node_count(graph)} nodes)")
        rebuild_s = statistics.median(rebuilds)
        results[f"rebuild_s_{largest}"] = round(rebuild_s, 2)
        results["rebuild_over_update"] = round(rebuild_s * 1000 / latency[sizes[-1]][0], 1)
        results["rebuild_over_raw_set"] = round(rebuild_s * 1000 / results[f"raw_set_p50_ms_{largest}"], 1)
        results["load_average_1m_at_end"] = round(os.getloadavg()[0], 2)
        results["update_samples"] = args.samples
        results["rebuild_runs"] = args.rebuild_runs
    shutil.rmtree(home, ignore_errors=True)

    if not args.quick:
        RESULTS.write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {RESULTS}")
        _plot(latency)
    print(json.dumps(results, indent=2))


def _plot(latency: dict[int, tuple[float, float]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(latency)
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    ax.plot(sizes, [latency[s][0] for s in sizes], marker="o", label="p50")
    ax.plot(sizes, [latency[s][1] for s in sizes], marker="s", label="p99")
    ax.set_xscale("log")
    ax.set_xlabel("graph size (nodes)")
    ax.set_ylabel("constraint update latency (ms)")
    ax.set_title("Audited constraint update (read + write transaction)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(PLOT)
    print(f"wrote {PLOT}")


if __name__ == "__main__":
    main()
