"""BM25 over the same serialisations the embeddings see (the lexical baseline and half of the hybrid)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dkg.retrieval.embedding import tokenize


class BM25Index:
    """Okapi BM25 (rank-bm25) over ``(rid, text)`` documents."""

    def __init__(self, docs: Sequence[tuple[str, str]]) -> None:
        from rank_bm25 import BM25Okapi

        if not docs:
            raise ValueError("BM25 needs at least one document")
        self.rids = [rid for rid, _ in docs]
        self._bm25 = BM25Okapi([tokenize(text) or ["_"] for _, text in docs])

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` best (rid, score) pairs, ties broken by rid."""
        scores = np.asarray(self._bm25.get_scores(tokenize(query)))
        order = sorted(range(len(self.rids)), key=lambda i: (-scores[i], self.rids[i]))[:k]
        return [(self.rids[i], float(scores[i])) for i in order]


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int, c: int = 60,
                           weights: Sequence[float] | None = None) -> list[tuple[str, float]]:
    """Fuse rankings by the (weighted) sum of 1/(c + rank) (Cormack et al. 2009); ties broken by rid.

    >>> reciprocal_rank_fusion([["a", "b"], ["b", "c"]], 3, c=0)
    [('b', 1.5), ('a', 1.0), ('c', 0.5)]
    >>> reciprocal_rank_fusion([["a", "b"], ["b", "a"]], 2, c=0, weights=[1.0, 0.25])
    [('a', 1.125), ('b', 0.75)]
    """
    weights = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(rankings)} rankings but {len(weights)} weights")
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, rid in enumerate(ranking, start=1):
            scores[rid] = scores.get(rid, 0.0) + weight / (c + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
