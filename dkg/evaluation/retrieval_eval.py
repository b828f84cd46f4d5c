"""`dkg eval retrieval`: BM25, vector-only, GRAG and hybrid over the benchmark question sets, with per-set
means, 95% bootstrap CIs and BH-corrected paired Wilcoxon tests between methods."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dkg.evaluation.retrieval_metrics import query_metrics
from dkg.evaluation.statistics import benjamini_hochberg, bootstrap_ci, wilcoxon_paired
from dkg.retrieval.grag import HYBRID_DEPTH, METHODS, Retriever
from dkg.retrieval.questions import Question, version_free
from dkg.retrieval.types import Hit

TEST_METRIC = "ndcg@10"
REPORTED = ("ndcg@1", "ndcg@5", "ndcg@10", "p@1", "p@5", "p@10", "r@1", "r@5", "r@10", "map", "mrr")


def dedupe_ranking(hits: Sequence[Hit], k: int) -> list[str]:
    """Version-free ids of the hits, first occurrence kept, cut at ``k``.

    >>> dedupe_ranking([Hit("A|1|x", 1, 1), Hit("A|2|x", 1, 1), Hit("s1", 1, 1)], 10)
    ['A|*|x', 's1']
    """
    seen: list[str] = []
    for h in hits:
        rid = version_free(h.rid)
        if rid not in seen:
            seen.append(rid)
    return seen[:k]


@dataclass
class EvalResult:
    per_query: dict[str, dict[str, list[dict[str, float]]]] = field(default_factory=dict)  # set → method → rows
    summary: dict[str, Any] = field(default_factory=dict)
    tests: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


def rankings_for(retriever: Retriever, questions: Sequence[Question], methods: Sequence[str], k: int,
                 on_progress: Callable[[str], None] | None = None) -> dict[str, list[list[str]]]:
    """Per method, the version-free top-k ranking of every question (each query embedded once)."""
    out: dict[str, list[list[str]]] = {m: [] for m in methods}
    depth = max(k, HYBRID_DEPTH)
    prepared = retriever.prepare([q.question for q in questions])
    for i, (analysis, qvec) in enumerate(prepared):
        hits = retriever.rank_methods(analysis, qvec, methods, depth * 2)
        for m in methods:
            out[m].append(dedupe_ranking(hits[m], k))
        if on_progress and (i + 1) % 100 == 0:
            on_progress(f"{i + 1}/{len(questions)} questions")
    return out


def evaluate(retriever: Retriever, sets: Mapping[str, Sequence[Question]], methods: Sequence[str] = METHODS,
             k: int = 10, on_progress: Callable[[str], None] | None = None) -> EvalResult:
    """Run every method on every set; summary keys are ``<set>.<method>.<metric>[.ci_low|.ci_high]``."""
    start = time.perf_counter()
    result = EvalResult()
    p_values: list[float] = []
    for name, questions in sets.items():
        if on_progress:
            on_progress(f"{name}: {len(questions)} questions")
        rankings = rankings_for(retriever, questions, methods, k, on_progress)
        result.per_query[name] = {m: [query_metrics(r, q.qrels) for r, q in zip(rankings[m], questions, strict=True)]
                                  for m in methods}
        result.summary[f"{name}.questions"] = len(questions)
        for m in methods:
            rows = result.per_query[name][m]
            for metric in REPORTED:
                ci = bootstrap_ci([row[metric] for row in rows])
                result.summary[f"{name}.{m}.{metric}"] = ci["mean"]
                result.summary[f"{name}.{m}.{metric}.ci_low"] = ci["ci_low"]
                result.summary[f"{name}.{m}.{metric}.ci_high"] = ci["ci_high"]
        for a, b in itertools.combinations(methods, 2):
            test = wilcoxon_paired([r[TEST_METRIC] for r in result.per_query[name][a]],
                                   [r[TEST_METRIC] for r in result.per_query[name][b]])
            result.tests.append({"set": name, "a": a, "b": b, "metric": TEST_METRIC, **test})
            p_values.append(test["p_value"])
    for test, adjusted in zip(result.tests, benjamini_hochberg(p_values), strict=True):
        test["p_bh"] = adjusted
    result.seconds = time.perf_counter() - start
    return result


def test_between(result: EvalResult, set_name: str, a: str, b: str) -> dict[str, Any] | None:
    """The (BH-corrected) test between methods a and b on a set, in either order."""
    for t in result.tests:
        if t["set"] == set_name and {t["a"], t["b"]} == {a, b}:
            return t
    return None
