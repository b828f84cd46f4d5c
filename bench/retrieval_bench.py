"""Retrieval benchmark: quality of BM25 / vector-only / GRAG without and with the query-intent term / hybrid
(MiniLM, plus the LSA and fastText embeddings trained on our text for comparison) on the generated sets and
on the human-written queries (users_dev, users_heldout: per category, and again with query understanding
switched off for the before/after), incremental re-index time of one changed node, and query latency at
200k nodes (vector index vs exact brute force, the full GRAG query, and GRAG read through the query's
understanding).

Quality runs on the configured Neo4j (DKG_HOME / DKG_NEO4J_BOLT_PORT; started if local and not running):
it builds every guideline source, loads the MedQuAD knowledge layer and indexes. Latency runs on a separate
server (data folder ``<DKG_HOME>-200k``, port --bench-port) holding 200k synthetic retrievable nodes whose
vectors are real graph embeddings plus noise; the demo database is never touched.

    DKG_HOME=$PWD/.dkg-bench DKG_NEO4J_BOLT_PORT=7720 .venv/bin/python bench/retrieval_bench.py

Writes bench/results/retrieval.json (flat keys, numbers), merged into the figures already there, so a partial
run (``--models lsa,fasttext --skip-reindex --skip-latency``: only the second embeddings' quality) keeps the
other keys.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from dkg.config import PROJECT_ROOT, get_settings, load_settings
from dkg.corpus.model import discover
from dkg.evaluation.retrieval_eval import EvalResult, evaluate, test_between
from dkg.evaluation.statistics import bootstrap_ci
from dkg.graph.builder import build
from dkg.graph.db import Graph
from dkg.graph.sources import input_from_source
from dkg.retrieval.embedding import minilm
from dkg.retrieval.grag import METHODS, Retriever
from dkg.retrieval.index import build_index
from dkg.retrieval.knowledge import load_knowledge
from dkg.retrieval.questions import SETS, USER_SETS, Question, load_set
from dkg.retrieval.settings import load_retrieval_settings
from dkg.retrieval.understanding import QueryAnalysis
from dkg.services.neo4j_server import LocalNeo4jServer

RESULTS = PROJECT_ROOT / "bench" / "results" / "retrieval.json"
MODELS = ("minilm", "lsa", "fasttext")
COMPARISON_SETS = ("medquad", "paraphrase", "heldout", "role_traps")
COMPARISON_METHODS = ("vector", "grag_nointent", "grag")
SYNTHETIC_BATCH = 2000
DEFAULT_METHOD = "grag"  # chosen on users_dev (docs/retrieval.md, "Choosing the default method")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def per_category(result: EvalResult, name: str, questions: list[Question], figures: dict[str, float],
                 suffix: str = "") -> None:
    """NDCG@10 / MRR / R@10 with 95% bootstrap CIs per category of a human-written set."""
    categories = sorted({q.meta["category"] for q in questions})
    for method, rows in result.per_query[name].items():
        for category in categories:
            picked = [row for row, q in zip(rows, questions, strict=True) if q.meta["category"] == category]
            for metric in ("ndcg@10", "mrr", "r@10"):
                ci = bootstrap_ci([row[metric] for row in picked])
                key = f"{metric.replace('@', '')}_{name}_{category}_{method}{suffix}"
                figures[key] = round(ci["mean"], 4)
                figures[f"{key}_ci_low"] = round(ci["ci_low"], 4)
                figures[f"{key}_ci_high"] = round(ci["ci_high"], 4)
            figures[f"questions_{name}_{category}"] = len(picked)


def users_before(graph: Graph, figures: dict[str, float]) -> None:
    """The human-written sets with query understanding switched off (the retriever before the lexicon)."""
    sets = {name: load_set(name) for name in USER_SETS}
    result = evaluate(Retriever(graph, load_retrieval_settings(understanding=False)), sets, on_progress=print)
    for name, questions in sets.items():
        for method in METHODS:
            for metric in ("ndcg@10", "mrr", "r@10"):
                figures[f"{metric.replace('@', '')}_{name}_{method}_nounderstanding"] = round(
                    result.summary[f"{name}.{method}.{metric}"], 4)
        per_category(result, name, questions, figures, "_nounderstanding")


def quality(graph: Graph, figures: dict[str, float]) -> None:
    settings = load_retrieval_settings()
    sets = {name: load_set(name) for name in SETS + USER_SETS}
    result = evaluate(Retriever(graph, settings), sets, on_progress=print)
    s = result.summary
    for name in USER_SETS:
        per_category(result, name, sets[name], figures)
    for name in SETS + USER_SETS:
        figures[f"questions_{name}"] = s[f"{name}.questions"]
        for method in METHODS:
            for metric in ("ndcg@1", "ndcg@5", "ndcg@10", "p@5", "r@10", "map", "mrr"):
                key = f"{name}.{method}.{metric}"
                figures[f"{metric.replace('@', '')}_{name}_{method}"] = round(s[key], 4)
            figures[f"ndcg10_{name}_{method}_ci_low"] = round(s[f"{name}.{method}.ndcg@10.ci_low"], 4)
            figures[f"ndcg10_{name}_{method}_ci_high"] = round(s[f"{name}.{method}.ndcg@10.ci_high"], 4)
        for a, b in (("vector", "grag"), ("vector", "hybrid"), ("bm25", "grag"), ("grag", "hybrid"),
                     ("grag_nointent", "grag"), ("vector", "grag_nointent")):
            t = test_between(result, name, a, b)
            if t is not None:
                figures[f"p_bh_{name}_{a}_vs_{b}"] = t["p_bh"]
    figures["ndcg10_medquad"] = figures[f"ndcg10_medquad_{DEFAULT_METHOD}"]  # the retriever's default method
    figures["ndcg10_users_dev"] = figures[f"ndcg10_users_dev_{DEFAULT_METHOD}"]
    figures["ndcg10_users_heldout"] = figures[f"ndcg10_users_heldout_{DEFAULT_METHOD}"]
    figures["disease_weight"] = settings.disease_weight
    figures["intent_weight"] = settings.intent_weight
    figures["ndcg10_medquad_vector_only"] = figures["ndcg10_medquad_vector"]
    figures["ndcg10_role_traps_vector_only"] = figures["ndcg10_role_traps_vector"]
    figures["p_value_role_traps"] = figures["p_bh_role_traps_vector_vs_grag"]
    figures["eval_seconds"] = round(result.seconds, 1)


def comparison_quality(graph: Graph, model: str, figures: dict[str, float]) -> None:
    """A second embedding option (lsa, fasttext): vector-only and GRAG NDCG@10 on the MedQuAD-based sets."""
    sets = {name: load_set(name) for name in COMPARISON_SETS}
    result = evaluate(Retriever(graph, load_retrieval_settings(model=model)), sets, COMPARISON_METHODS,
                      on_progress=print)
    for name in sets:
        for method in COMPARISON_METHODS:
            figures[f"ndcg10_{name}_{method}_{model}"] = round(result.summary[f"{name}.{method}.ndcg@10"], 4)
    t = test_between(result, "role_traps", "vector", "grag")
    if t is not None:
        figures[f"p_bh_role_traps_vector_vs_grag_{model}"] = t["p_bh"]


def reindex_one_node(graph: Graph, home: Path, runs: int) -> list[float]:
    """Seconds for `build_index` after editing one leaf node's content (model already loaded)."""
    uid = graph.read("MATCH (n:Node {guideline: 'kidney', version: '1.2026'}) WHERE NOT (n)-[:NEXT_STEP]->() "
                     "RETURN n.uid AS uid ORDER BY uid LIMIT 1")[0]["uid"]
    original = graph.read("MATCH (n:Node {uid: $uid}) RETURN n.content AS c", {"uid": uid})[0]["c"]
    minilm()
    times = []
    try:
        for i in range(runs):
            graph.write("MATCH (n:Node {uid: $uid}) SET n.content = $c", {"uid": uid, "c": f"{original} (edit {i})"})
            start = time.perf_counter()
            report = build_index(graph, home=home, models=("minilm",))
            times.append(time.perf_counter() - start)
            if report.embedded["minilm"] != 1:
                raise RuntimeError(f"expected one re-embedded node, got {report.embedded}")
    finally:
        graph.write("MATCH (n:Node {uid: $uid}) SET n.content = $c", {"uid": uid, "c": original})
        build_index(graph, home=home, models=("minilm",))
    return times


def fill_synthetic(graph: Graph, source: np.ndarray, total: int, seed: int = 42) -> None:
    """Write ``total`` retrievable nodes (real vectors + noise, re-normalised) in chains of 50 linked by NEXT_STEP."""
    rng = np.random.default_rng(seed)
    have = graph.read("MATCH (n:Retrievable) RETURN count(n) AS c")[0]["c"]
    for start in range(have, total, SYNTHETIC_BATCH):
        n = min(SYNTHETIC_BATCH, total - start)
        base = source[rng.integers(0, len(source), size=n)]
        vecs = base + rng.normal(0, 0.04, size=base.shape)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        rows = [{"rid": f"syn|{start + i}", "prev": f"syn|{start + i - 1}" if (start + i) % 50 else None,
                 "vector": vecs[i].astype(float).tolist()} for i in range(n)]
        graph.write("UNWIND $rows AS row CREATE (n:Node:Embedded:Retrievable {rid: row.rid, uid: row.rid, "
                    "guideline: 'SYN', version: '1', content: 'synthetic', emb_minilm: row.vector})", {"rows": rows})
        graph.write("UNWIND $rows AS row WITH row WHERE row.prev IS NOT NULL "
                    "MATCH (a:Embedded {rid: row.prev}), (b:Embedded {rid: row.rid}) CREATE (a)-[:NEXT_STEP]->(b)",
                    {"rows": rows})
        if (start // SYNTHETIC_BATCH) % 10 == 0:
            print(f"synthetic nodes: {start + n}/{total}")


def wait_online(graph: Graph, name: str, timeout_s: float = 900) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        rows = graph.read("SHOW INDEXES YIELD name, state, populationPercent WHERE name = $n "
                          "RETURN state, populationPercent", {"n": name})
        if rows and rows[0]["state"] == "ONLINE":
            return
        time.sleep(5)
    raise RuntimeError(f"vector index {name} not online after {timeout_s} s")


def understanding_latency(graph: Graph, queries: list[str], figures: dict[str, float]) -> list[QueryAnalysis]:
    """Milliseconds to read each query through the lexicon (on the real graph's diseases); the analyses."""
    retriever = Retriever(graph, load_retrieval_settings(), embedder=minilm())
    retriever.analyse(queries[0])  # loads the lexicon and the graph's disease names once
    analyses, times = [], []
    for q in queries:
        t = time.perf_counter()
        analyses.append(retriever.analyse(q))
        times.append((time.perf_counter() - t) * 1000)
    figures["p50_ms_query_understanding"] = round(statistics.median(times), 3)
    figures["p99_ms_query_understanding"] = round(percentile(times, 0.99), 3)
    return analyses


def latency(source: np.ndarray, queries: list[str], analyses: list[QueryAnalysis], bench_port: int, total: int,
            figures: dict[str, float]) -> None:
    base = get_settings()
    settings = load_settings(home=Path(f"{base.home}-200k"), neo4j_bolt_port=bench_port, neo4j_heap="2g",
                             neo4j_pagecache="1g", neo4j_start_timeout_s=300)
    with LocalNeo4jServer(settings).running(), Graph(settings) as graph:
        graph.apply_schema(("schema", "schema_retrieval"))
        fill_synthetic(graph, source, total)
        wait_online(graph, "retrieval_minilm")
        figures["bench_nodes"] = graph.read("MATCH (n:Retrievable) RETURN count(n) AS c")[0]["c"]
        retriever = Retriever(graph, load_retrieval_settings(), check=False, embedder=minilm())
        vectors = [v.astype(float).tolist() for v in minilm().encode([a.text for a in analyses])]
        for v in vectors[:5]:
            retriever.seeds(v, 10)  # warm-up
        retriever.node_types(), retriever.node_diseases()  # read once per retriever
        index_ms, exact_ms, grag_ms, understood_ms, overlap = [], [], [], [], []
        for v, analysis in zip(vectors, analyses, strict=True):
            t = time.perf_counter()
            approx = retriever.seeds(v, 10)
            index_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            retriever.grag(v, 10)
            grag_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            retriever.understood(analysis, v, 10)
            understood_ms.append((time.perf_counter() - t) * 1000)
        for v in vectors[:20]:
            t = time.perf_counter()
            exact = retriever.seeds(v, 10, exact=True)
            exact_ms.append((time.perf_counter() - t) * 1000)
            approx = retriever.seeds(v, 10)
            overlap.append(len({r for r, _, _ in exact} & {r for r, _, _ in approx}) / 10)
        embed_ms = []
        for q in queries[:50]:
            t = time.perf_counter()
            minilm().encode([q])
            embed_ms.append((time.perf_counter() - t) * 1000)
    figures["p50_ms_200k"] = round(statistics.median(index_ms), 2)
    figures["p99_ms_200k"] = round(percentile(index_ms, 0.99), 2)
    figures["p50_ms_200k_exact"] = round(statistics.median(exact_ms), 2)
    figures["p99_ms_200k_exact"] = round(percentile(exact_ms, 0.99), 2)
    figures["p50_ms_200k_grag"] = round(statistics.median(grag_ms), 2)
    figures["p99_ms_200k_grag"] = round(percentile(grag_ms, 0.99), 2)
    figures["p50_ms_200k_grag_understood"] = round(statistics.median(understood_ms), 2)
    figures["p99_ms_200k_grag_understood"] = round(percentile(understood_ms, 0.99), 2)
    figures["p50_ms_query_embedding"] = round(statistics.median(embed_ms), 2)
    figures["recall10_index_vs_exact_200k"] = round(float(np.mean(overlap)), 4)
    figures["latency_queries"] = len(vectors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench-port", type=int, default=7721)
    parser.add_argument("--nodes", type=int, default=200_000)
    parser.add_argument("--reindex-runs", type=int, default=5)
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--skip-reindex", action="store_true")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="Embeddings to index and evaluate (comma-separated; default all). Re-index and latency "
                             "use minilm.")
    args = parser.parse_args()
    models = tuple(m for m in args.models.split(",") if m)
    if not models or any(m not in MODELS for m in models):
        parser.error(f"--models: choose from {', '.join(MODELS)}")
    if "minilm" not in models and not (args.skip_reindex and args.skip_latency):
        parser.error("re-index and latency use minilm: add it to --models, or pass --skip-reindex --skip-latency")
    settings = get_settings()
    figures: dict[str, float] = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
    with LocalNeo4jServer(settings).running(), Graph(settings) as graph:
        build(graph, [input_from_source(g, v) for g, v, _ in discover()])
        load_knowledge(graph, load_retrieval_settings().medquad_dir)
        for model in models:  # one at a time, so a full index (or training) is timed per model
            t = time.perf_counter()
            report = build_index(graph, home=Path(settings.home), models=(model,), on_progress=print)
            print(report.summary())
            if report.embedded[model] == report.nodes:
                figures["index_full_s" if model == "minilm" else f"index_full_s_{model}"] = round(
                    time.perf_counter() - t, 1)
        figures["indexed_nodes"] = report.nodes
        if not args.skip_quality:
            if "minilm" in models:
                quality(graph, figures)
                users_before(graph, figures)
            for model in models:
                if model != "minilm":
                    comparison_quality(graph, model, figures)
        if not args.skip_reindex:
            times = reindex_one_node(graph, Path(settings.home), args.reindex_runs)
            figures["reindex_one_node_s"] = round(statistics.median(times), 3)
            figures["reindex_one_node_max_s"] = round(max(times), 3)
        source = np.asarray([r["v"] for r in graph.read(
            "MATCH (n:Retrievable) WHERE n.emb_minilm IS NOT NULL RETURN n.emb_minilm AS v")], dtype=np.float32)
        queries = [q.question for name in ("users_dev", "role_traps", "paraphrase", "medquad")
                   for q in load_set(name)][:200]
        analyses = understanding_latency(graph, queries, figures) if not args.skip_latency else []
    if not args.skip_latency:
        latency(source, queries, analyses, args.bench_port, args.nodes, figures)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(dict(sorted(figures.items())), indent=1))
    print(json.dumps({k: figures[k] for k in ("ndcg10_users_dev", "ndcg10_users_heldout", "ndcg10_medquad",
                                              "ndcg10_medquad_vector_only", "ndcg10_role_traps_grag",
                                              "ndcg10_role_traps_vector_only", "p_value_role_traps", "p50_ms_200k",
                                              "reindex_one_node_s") if k in figures}, indent=1))


if __name__ == "__main__":
    main()
