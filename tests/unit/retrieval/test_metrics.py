"""Ranking metrics and statistics (docstring examples plus hand-computed cases)."""

from __future__ import annotations

import math

import pytest

from dkg.evaluation.retrieval_metrics import average_precision, ndcg_at_k, query_metrics, reciprocal_rank
from dkg.evaluation.statistics import benjamini_hochberg, bootstrap_ci, wilcoxon_paired


def test_graded_ndcg_prefers_higher_grade_first() -> None:
    qrels = {"a": 2.0, "b": 1.0}
    assert ndcg_at_k(["a", "b"], qrels, 10) == pytest.approx(1.0)
    swapped = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
    assert ndcg_at_k(["b", "a"], qrels, 10) == pytest.approx(swapped)


def test_missing_relevant_gives_zero() -> None:
    m = query_metrics(["x", "y"], {"a": 1.0})
    assert m["ndcg@10"] == 0 and m["mrr"] == 0 and m["map"] == 0 and m["r@10"] == 0


def test_ap_and_rr_hand_computed() -> None:
    assert average_precision(["x", "a", "y", "b"], {"a": 1, "b": 1}) == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert reciprocal_rank(["x", "y", "a"], {"a": 1}) == pytest.approx(1 / 3)


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [0.0, 1.0] * 50
    a, b = bootstrap_ci(values), bootstrap_ci(values)
    assert a == b
    assert a["ci_low"] < a["mean"] == 0.5 < a["ci_high"]


def test_wilcoxon_detects_a_consistent_difference() -> None:
    better = [0.9 + i * 0.001 for i in range(30)]
    worse = [0.5 + i * 0.002 for i in range(30)]
    assert wilcoxon_paired(better, worse)["p_value"] < 0.001
    with pytest.raises(ValueError):
        wilcoxon_paired([1, 2], [1])


def test_bh_adjustment_is_monotone_and_not_below_raw() -> None:
    raw = [0.001, 0.02, 0.03, 0.5]
    adj = benjamini_hochberg(raw)
    assert all(a >= r for a, r in zip(adj, raw, strict=True))
    assert adj == sorted(adj)
    assert adj[0] == pytest.approx(0.004)
