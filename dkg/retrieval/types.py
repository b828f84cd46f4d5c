"""Records shared by the retrieval modules (the retriever, the intent re-ranker, the evaluation and the API),
kept apart so that none of them imports another only for a type."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hit:
    """One ranked node with its provenance: the seed it was reached from, the hop count and the path, and
    why the query's understanding ranked it (the disease or sub-query it answers)."""

    rid: str
    score: float
    cos: float
    graph_term: float = 0.0
    seed: str | None = None
    hop: int = 0
    via: tuple[str, ...] = ()
    reason: str | None = None
