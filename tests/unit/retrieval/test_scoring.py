"""GRAG scoring math, fusion and pooling."""

from __future__ import annotations

import numpy as np
import pytest

from dkg.retrieval.grag import grag_score, rank_grag
from dkg.retrieval.index import neighbourhood, pooled_vector
from dkg.retrieval.lexical import reciprocal_rank_fusion


def test_score_formula_matches_the_issue() -> None:
    alpha, lam = 0.6, 0.75
    # score = α·q·v + (1−α)·λ^hop·q·g
    assert grag_score(0.5, 0.9, 1, alpha, lam) == pytest.approx(0.6 * 0.5 + 0.4 * 0.75 * 0.9)
    assert grag_score(0.5, 0.9, 3, alpha, lam) == pytest.approx(0.6 * 0.5 + 0.4 * 0.75 ** 3 * 0.9)


def test_alpha_one_is_vector_only_and_zero_is_graph_only() -> None:
    assert grag_score(0.3, 0.9, 0, 1.0, 0.75) == pytest.approx(0.3)
    assert grag_score(0.3, 0.9, 2, 0.0, 0.5) == pytest.approx(0.9 * 0.25)


def test_graph_term_reorders_nodes_with_similar_own_scores() -> None:
    # Two seeds with nearly equal q·v: the one whose neighbourhood matches the query wins.
    hits = rank_grag([("adult", 0.70, 0.30), ("child", 0.69, 0.60)], [], alpha=0.6, lam=0.75, k=2)
    assert [h.rid for h in hits] == ["child", "adult"]


def test_node_reached_from_two_seeds_keeps_best_score_and_provenance() -> None:
    seeds = [("s1", 0.9, 0.2), ("s2", 0.5, 0.8)]
    exp = [{"seed": "s1", "rid": "n", "hop": 1, "via": ["s1", "n"], "cos": 0.6},
           {"seed": "s2", "rid": "n", "hop": 2, "via": ["s2", "x", "n"], "cos": 0.6}]
    hits = {h.rid: h for h in rank_grag(seeds, exp, alpha=0.6, lam=0.75, k=5)}
    via_s1 = 0.6 * 0.6 + 0.4 * 0.75 * 0.2
    via_s2 = 0.6 * 0.6 + 0.4 * 0.75 ** 2 * 0.8
    assert hits["n"].score == pytest.approx(max(via_s1, via_s2))
    assert hits["n"].seed == ("s2" if via_s2 > via_s1 else "s1")
    assert hits["n"].hop == (2 if via_s2 > via_s1 else 1)


def test_top_k_is_respected_and_sorted() -> None:
    seeds = [(f"s{i}", i / 10, 0.0) for i in range(10)]
    hits = rank_grag(seeds, [], alpha=0.6, lam=0.75, k=3)
    assert [h.rid for h in hits] == ["s9", "s8", "s7"]
    assert hits[0].score >= hits[1].score >= hits[2].score


def test_pooled_vector_is_unit_length_mean_direction() -> None:
    v = pooled_vector([np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), np.array([0.0, 1.0, 0.0])])
    assert float(np.linalg.norm(v)) == pytest.approx(1.0, abs=1e-6)
    assert v[1] > v[0] > 0 and v[2] == 0


def test_neighbourhood_respects_hops() -> None:
    adj = {"a": {"b"}, "b": {"a", "c"}, "c": {"b", "d"}, "d": {"c"}}
    assert neighbourhood(adj, "a", 2) == {"a": 0, "b": 1, "c": 2}
    assert neighbourhood(adj, "a", 0) == {"a": 0}


def test_rrf_rewards_agreement() -> None:
    fused = reciprocal_rank_fusion([["x", "y", "z"], ["y", "x", "w"]], 4)
    assert {fused[0][0], fused[1][0]} == {"x", "y"}
    assert fused[-1][0] in {"z", "w"}
