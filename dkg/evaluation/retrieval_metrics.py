"""Ranking metrics as small pure functions: one ranked list of ids and graded relevance judgements in,
a flat ``dict[str, float]`` out."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

CUTOFFS = (1, 5, 10)


def dcg(gains: Sequence[float]) -> float:
    """Discounted cumulative gain with the (2^rel − 1) / log2(rank + 1) form.

    >>> round(dcg([1, 0, 1]), 4)
    1.5
    """
    return sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_at_k(ranking: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    """NDCG@k of ``ranking`` against graded ``qrels`` (0 when nothing is relevant).

    >>> ndcg_at_k(["a", "b"], {"a": 1}, 10)
    1.0
    >>> round(ndcg_at_k(["b", "a"], {"a": 1}, 10), 4)
    0.6309
    """
    ideal = dcg(sorted((g for g in qrels.values() if g > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return dcg([qrels.get(rid, 0.0) for rid in ranking[:k]]) / ideal


def precision_at_k(ranking: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    """Share of the first k positions holding a relevant id (positions past the list count as misses).

    >>> precision_at_k(["a", "x"], {"a": 1}, 2)
    0.5
    """
    return sum(1 for rid in ranking[:k] if qrels.get(rid, 0) > 0) / k


def recall_at_k(ranking: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    """Share of the relevant ids found in the first k positions.

    >>> recall_at_k(["a", "x"], {"a": 1, "b": 1}, 2)
    0.5
    """
    relevant = {rid for rid, g in qrels.items() if g > 0}
    return len(relevant & set(ranking[:k])) / len(relevant) if relevant else 0.0


def average_precision(ranking: Sequence[str], qrels: Mapping[str, float]) -> float:
    """Mean of the precision at each relevant hit, over all relevant ids.

    >>> round(average_precision(["a", "x", "b"], {"a": 1, "b": 1}), 4)
    0.8333
    """
    relevant = {rid for rid, g in qrels.items() if g > 0}
    if not relevant:
        return 0.0
    found, total = 0, 0.0
    for i, rid in enumerate(ranking, start=1):
        if rid in relevant:
            found += 1
            total += found / i
    return total / len(relevant)


def reciprocal_rank(ranking: Sequence[str], qrels: Mapping[str, float]) -> float:
    """1 / rank of the first relevant id (0 when none is retrieved).

    >>> reciprocal_rank(["x", "a"], {"a": 1})
    0.5
    """
    for i, rid in enumerate(ranking, start=1):
        if qrels.get(rid, 0) > 0:
            return 1.0 / i
    return 0.0


def query_metrics(ranking: Sequence[str], qrels: Mapping[str, float],
                  cutoffs: Sequence[int] = CUTOFFS) -> dict[str, float]:
    """All metrics of one query, flat: ndcg@k, p@k, r@k for each cutoff, plus map and mrr.

    >>> query_metrics(["a"], {"a": 1}, cutoffs=(1,))
    {'ndcg@1': 1.0, 'p@1': 1.0, 'r@1': 1.0, 'map': 1.0, 'mrr': 1.0}
    """
    out: dict[str, float] = {}
    for k in cutoffs:
        out[f"ndcg@{k}"] = ndcg_at_k(ranking, qrels, k)
        out[f"p@{k}"] = precision_at_k(ranking, qrels, k)
        out[f"r@{k}"] = recall_at_k(ranking, qrels, k)
    out["map"] = average_precision(ranking, qrels)
    out["mrr"] = reciprocal_rank(ranking, qrels)
    return out
