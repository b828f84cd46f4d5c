"""Uncertainty and significance for per-query scores: percentile bootstrap CIs, paired Wilcoxon signed-rank
tests (scipy) and the Benjamini–Hochberg false-discovery-rate correction."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 42


def bootstrap_ci(values: Sequence[float], *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                 level: float = 0.95) -> dict[str, float]:
    """Mean and percentile bootstrap confidence interval of the mean.

    >>> bootstrap_ci([1.0, 1.0, 1.0])
    {'mean': 1.0, 'ci_low': 1.0, 'ci_high': 1.0}
    """
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return {"mean": float("nan"), "ci_low": float("nan"), "ci_high": float("nan")}
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    tail = (1.0 - level) / 2 * 100
    return {"mean": float(data.mean()), "ci_low": float(np.percentile(means, tail)),
            "ci_high": float(np.percentile(means, 100 - tail))}


def wilcoxon_paired(a: Sequence[float], b: Sequence[float]) -> dict[str, float]:
    """Two-sided paired Wilcoxon signed-rank test of a vs b (p = 1 when every pair ties).

    >>> wilcoxon_paired([1, 1, 1], [1, 1, 1])["p_value"]
    1.0
    """
    from scipy.stats import wilcoxon

    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} vs {y.size}")
    diff = x - y
    if not np.any(diff != 0):
        return {"statistic": 0.0, "p_value": 1.0, "mean_diff": 0.0}
    result = wilcoxon(x, y, zero_method="wilcox", alternative="two-sided")
    return {"statistic": float(result.statistic), "p_value": float(result.pvalue), "mean_diff": float(diff.mean())}


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """BH-adjusted p-values (step-up, monotone, capped at 1), in the input order.

    >>> [round(p, 4) for p in benjamini_hochberg([0.01, 0.04, 0.03])]
    [0.03, 0.04, 0.04]
    """
    p = np.asarray(p_values, dtype=float)
    n = p.size
    if n == 0:
        return []
    order = np.argsort(p)
    ranked = p[order] * n / np.arange(1, n + 1)
    adjusted = np.minimum.accumulate(ranked[::-1])[::-1]
    out = np.empty(n)
    out[order] = np.minimum(adjusted, 1.0)
    return out.tolist()
