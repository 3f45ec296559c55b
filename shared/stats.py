"""Statistics for benchmark aggregates: intervals, paired comparisons, calibration, ranking.

Embedded into task files, so: standard library and numpy only, no I/O, and every random draw
comes from a `numpy.random.default_rng(seed)` made inside the call (the same inputs and seed
always give the same numbers, on every machine with the same numpy major version).

Conventions, chosen so that an empty or degenerate input never raises and never looks like
a result:

* no data gives `nan` (means, ECE, Brier, AUROC, bootstrap bounds), except `wilson_interval`
  with `n == 0`, which gives the vacuous interval `(0.0, 1.0)`: nothing was observed, so
  every rate is still possible, and the bounds stay inside [0, 1] for report arithmetic.
  Reports print the denominator beside every rate, so `0/0` is never mistaken for evidence.
* NaN or infinite inputs are rejected with `ValueError`: a silently propagated NaN would turn
  a harness error into a number. Filter unscored rows before calling.
* Bootstrap intervals are percentile intervals (`numpy.quantile`, linear interpolation) of
  `resamples` resampled means.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

# Largest number of resampled values held in memory at once (about 16 MB of indices).
_BOOTSTRAP_CHUNK_ELEMENTS = 2_000_000


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion `successes / n`.

    Unlike the normal (Wald) interval it stays inside [0, 1] and is not degenerate at 0 or n
    successes, which is exactly where small benchmark slices live. `n == 0` gives `(0.0, 1.0)`.
    """
    _check_confidence(confidence)
    if isinstance(successes, bool) or isinstance(n, bool):
        raise ValueError("successes and n must be integers, not booleans")
    if int(successes) != successes or int(n) != n:
        raise ValueError(f"successes and n must be integers, got {successes!r} and {n!r}")
    successes, n = int(successes), int(n)
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    p_hat = successes / n
    z2_n = z * z / n
    centre = (p_hat + z2_n / 2.0) / (1.0 + z2_n)
    margin = z / (1.0 + z2_n) * math.sqrt(p_hat * (1.0 - p_hat) / n + z2_n / (4.0 * n))
    # At 0 and n successes the exact bound is 0 or 1; the formula only reaches it up to rounding.
    low = 0.0 if successes == 0 else max(0.0, centre - margin)
    high = 1.0 if successes == n else min(1.0, centre + margin)
    return (low, high)


def bootstrap_mean_ci(
    values: npt.ArrayLike, *, resamples: int = 10000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """`(mean, low, high)`: the sample mean and its percentile bootstrap interval.

    Empty input gives `(nan, nan, nan)`; constant input gives a zero-width interval.
    """
    data = _finite_vector(values, "values")
    _check_confidence(confidence)
    _check_resamples(resamples)
    if data.size == 0:
        return (math.nan, math.nan, math.nan)
    if bool(np.all(data == data[0])):
        # Exact, where summing would drift: the mean of three 0.1s is 0.10000000000000002.
        value = float(data[0])
        return (value, value, value)
    mean = float(data.mean())
    low, high = _percentile_interval(_bootstrap_means(data, resamples, seed), confidence)
    # A mean of values lies within their range; summation rounding can step an ulp outside.
    low, high = max(low, float(data.min())), min(high, float(data.max()))
    return (mean, low, high)


def paired_bootstrap_diff(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    resamples: int = 10000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """Mean of `a - b` over paired items, with a paired percentile bootstrap interval.

    Pairs are resampled by index (item i of `a` always travels with item i of `b`), so the
    variation shared by both systems on the same item cancels: two models scored on the same
    cases are compared on those cases, not as two independent samples. Returns `mean_diff`,
    `low`, `high`, `excludes_zero` (the interval lies strictly on one side of 0) and `n`.
    """
    first = _finite_vector(a, "a")
    second = _finite_vector(b, "b")
    if first.shape != second.shape:
        raise ValueError(f"paired samples must have the same length, got {first.size} and {second.size}")
    mean_diff, low, high = bootstrap_mean_ci(first - second, resamples=resamples, confidence=confidence, seed=seed)
    excludes_zero = bool(low > 0.0 or high < 0.0)  # False when the bounds are nan
    return {"mean_diff": mean_diff, "low": low, "high": high, "excludes_zero": excludes_zero, "n": first.size}


def ece(confidences: npt.ArrayLike, labels: npt.ArrayLike, bins: int = 10) -> float:
    """Expected calibration error over `bins` equal-width confidence bins.

    Bin k holds confidences in [k/bins, (k+1)/bins); the last bin is closed, so a confidence
    of exactly 1.0 counts in it. ECE is the item-weighted mean of |accuracy - mean confidence|
    over non-empty bins. Empty input gives nan.
    """
    conf, truth = _confidences_and_labels(confidences, labels)
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    if conf.size == 0:
        return math.nan
    index = np.minimum(np.floor(conf * bins).astype(np.int64), bins - 1)
    counts = np.bincount(index, minlength=bins)
    conf_sums = np.bincount(index, weights=conf, minlength=bins)
    hit_sums = np.bincount(index, weights=truth, minlength=bins)
    filled = counts > 0
    gaps = np.abs(hit_sums[filled] - conf_sums[filled]) / counts[filled]
    return float(np.sum(gaps * counts[filled]) / conf.size)


def brier(confidences: npt.ArrayLike, labels: npt.ArrayLike) -> float:
    """Brier score: mean squared difference between confidence and outcome (0 is perfect)."""
    conf, truth = _confidences_and_labels(confidences, labels)
    if conf.size == 0:
        return math.nan
    return float(np.mean((conf - truth) ** 2))


def auroc(scores: npt.ArrayLike, labels: npt.ArrayLike) -> float:
    """Area under the ROC curve: P(score of a random positive > score of a random negative).

    Computed from average ranks (Mann-Whitney U), so tied scores get half credit. nan when
    either class is absent, since the probability is then undefined.
    """
    values = _finite_vector(scores, "scores")
    truth = _binary_labels(labels, values.size)
    positives = int(truth.sum())
    negatives = truth.size - positives
    if positives == 0 or negatives == 0:
        return math.nan
    ranks = _average_ranks(values)
    rank_sum = float(ranks[truth == 1.0].sum())
    u_statistic = rank_sum - positives * (positives + 1) / 2.0
    return u_statistic / (positives * negatives)


def mean_or_nan(values: npt.ArrayLike) -> float:
    """Mean of `values`, or nan when there are none (numpy would warn and still give nan)."""
    data = _finite_vector(values, "values")
    return float(data.mean()) if data.size else math.nan


def _bootstrap_means(data: npt.NDArray[np.float64], resamples: int, seed: int) -> npt.NDArray[np.float64]:
    """Means of `resamples` resamples with replacement, drawn in chunks to bound memory."""
    rng = np.random.default_rng(seed)
    n = data.size
    chunk = max(1, _BOOTSTRAP_CHUNK_ELEMENTS // n)
    means = np.empty(resamples, dtype=np.float64)
    for start in range(0, resamples, chunk):
        stop = min(start + chunk, resamples)
        index = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = data[index].mean(axis=1)
    return means


def _percentile_interval(samples: npt.NDArray[np.float64], confidence: float) -> tuple[float, float]:
    alpha = 1.0 - confidence
    low, high = np.quantile(samples, [alpha / 2.0, 1.0 - alpha / 2.0])
    return (float(low), float(high))


def _average_ranks(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """1-based ranks where tied values share the mean of the ranks they span."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    last_rank = np.cumsum(counts).astype(np.float64)
    mean_rank = last_rank - (counts - 1) / 2.0
    ranks: npt.NDArray[np.float64] = mean_rank[inverse.reshape(-1)]
    return ranks


def _finite_vector(values: npt.ArrayLike, name: str) -> npt.NDArray[np.float64]:
    try:
        data = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a sequence of numbers: {exc}") from exc
    if data.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {data.shape}")
    if not bool(np.all(np.isfinite(data))):
        raise ValueError(f"{name} contains NaN or infinite values; filter unscored rows first")
    return data


def _binary_labels(labels: npt.ArrayLike, size: int) -> npt.NDArray[np.float64]:
    truth = _finite_vector(labels, "labels")
    if truth.size != size:
        raise ValueError(f"labels must match the other input in length, got {truth.size} and {size}")
    if not bool(np.all((truth == 0.0) | (truth == 1.0))):
        raise ValueError("labels must be 0/1 or booleans")
    return truth


def _confidences_and_labels(
    confidences: npt.ArrayLike, labels: npt.ArrayLike
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    conf = _finite_vector(confidences, "confidences")
    if not bool(np.all((conf >= 0.0) & (conf <= 1.0))):
        raise ValueError("confidences must lie in [0, 1]")
    return conf, _binary_labels(labels, conf.size)


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")


def _check_resamples(resamples: int) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")
