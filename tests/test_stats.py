"""Tests for hallubench.stats: published values, independent re-computations, and properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hallubench.stats import (
    auroc,
    bootstrap_mean_ci,
    brier,
    ece,
    mean_or_nan,
    paired_bootstrap_diff,
    wilson_interval,
)

# --- wilson_interval -------------------------------------------------------------------------

# 95% Wilson intervals as published in Newcombe (1998), "Two-sided confidence intervals for the
# single proportion", Statistics in Medicine 17:857-872, Table II (method 3), and reproduced in
# Brown, Cai & DasGupta (2001). Four decimals, as printed.
PUBLISHED_WILSON_95 = [
    (0, 10, 0.0000, 0.2775),
    (1, 10, 0.0179, 0.4042),
    (5, 10, 0.2366, 0.7634),
    (10, 10, 0.7225, 1.0000),
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
]


@pytest.mark.parametrize(("successes", "n", "low", "high"), PUBLISHED_WILSON_95)
def test_wilson_matches_published_values(successes: int, n: int, low: float, high: float) -> None:
    got_low, got_high = wilson_interval(successes, n)
    assert got_low == pytest.approx(low, abs=5e-5)
    assert got_high == pytest.approx(high, abs=5e-5)


def _wilson_by_inversion(successes: int, n: int, z: float) -> tuple[float, float]:
    """Independent method: the Wilson interval is {p : |p_hat - p| <= z * sqrt(p(1-p)/n)}; bisect."""
    p_hat = successes / n

    def inside(p: float) -> bool:
        return abs(p_hat - p) <= z * math.sqrt(p * (1 - p) / n)

    def boundary(outside: float, inner: float) -> float:
        for _ in range(200):
            mid = (outside + inner) / 2
            if inside(mid):
                inner = mid
            else:
                outside = mid
        return inner

    low = 0.0 if successes == 0 else boundary(0.0, p_hat)
    high = 1.0 if successes == n else boundary(1.0, p_hat)
    return low, high


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.99])
@pytest.mark.parametrize(("successes", "n"), [(0, 7), (3, 7), (7, 7), (2, 50), (49, 50), (123, 400)])
def test_wilson_agrees_with_score_test_inversion(successes: int, n: int, confidence: float) -> None:
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    expected = _wilson_by_inversion(successes, n, z)
    assert wilson_interval(successes, n, confidence) == pytest.approx(expected, abs=1e-9)


def test_wilson_with_no_trials_is_the_vacuous_interval() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("successes", "n", "confidence"),
    [(-1, 5, 0.95), (6, 5, 0.95), (0, -1, 0.95), (1, 5, 0.0), (1, 5, 1.0), (True, 5, 0.95), (1.5, 5, 0.95)],
)
def test_wilson_rejects_impossible_input(successes: int, n: int, confidence: float) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, n, confidence)


@given(
    st.integers(min_value=1, max_value=5000).flatmap(
        lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
    ),
    st.floats(min_value=0.5, max_value=0.999),
)
def test_wilson_interval_is_inside_unit_range_and_contains_the_estimate(
    counts: tuple[int, int], confidence: float
) -> None:
    successes, n = counts
    low, high = wilson_interval(successes, n, confidence)
    assert 0.0 <= low <= successes / n <= high <= 1.0


def test_wilson_narrows_as_confidence_drops() -> None:
    wide = wilson_interval(30, 100, 0.99)
    narrow = wilson_interval(30, 100, 0.80)
    assert wide[0] < narrow[0] and narrow[1] < wide[1]


# --- bootstrap_mean_ci -----------------------------------------------------------------------


def test_bootstrap_of_two_points_matches_the_exact_resampling_distribution() -> None:
    # Resampled means of [0, 1] are 0, 0.5, 1 with probability 1/4, 1/2, 1/4, so with 10000
    # resamples the 2.5% and 97.5% percentiles are 0 and 1 (the tails hold ~2500 draws each).
    assert bootstrap_mean_ci([0.0, 1.0]) == (0.5, 0.0, 1.0)


def test_bootstrap_interval_approaches_the_normal_interval_for_a_large_sample() -> None:
    rng = np.random.default_rng(12345)
    values = rng.normal(loc=3.0, scale=2.0, size=2000)
    mean, low, high = bootstrap_mean_ci(values, resamples=4000, seed=7)
    half_width = 1.959964 * values.std(ddof=0) / math.sqrt(values.size)
    assert mean == pytest.approx(values.mean())
    assert low == pytest.approx(mean - half_width, abs=0.15 * half_width)
    assert high == pytest.approx(mean + half_width, abs=0.15 * half_width)


def test_bootstrap_of_constant_values_has_zero_width() -> None:
    assert bootstrap_mean_ci([0.1, 0.1, 0.1]) == (0.1, 0.1, 0.1)


def test_bootstrap_of_nothing_is_nan() -> None:
    assert all(math.isnan(x) for x in bootstrap_mean_ci([]))


def test_bootstrap_depends_on_the_seed() -> None:
    values = [0.0, 1.0, 1.0, 0.0, 1.0, 0.2, 0.7]
    assert bootstrap_mean_ci(values, resamples=500, seed=1) != bootstrap_mean_ci(values, resamples=500, seed=2)


@pytest.mark.parametrize("bad", [[1.0, math.nan], [math.inf], [[1.0, 2.0]], ["x"]])
def test_bootstrap_rejects_non_finite_or_malformed_values(bad: list[object]) -> None:
    with pytest.raises(ValueError):
        bootstrap_mean_ci(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("resamples", [0, -5, True, 2.5])
def test_bootstrap_rejects_bad_resample_counts(resamples: int) -> None:
    with pytest.raises(ValueError):
        bootstrap_mean_ci([1.0, 2.0], resamples=resamples)


finite_values = st.lists(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False), min_size=1, max_size=40
)


@settings(max_examples=60, deadline=None)
@given(finite_values, st.integers(min_value=0, max_value=2**32 - 1))
def test_bootstrap_is_deterministic_and_contains_the_mean(values: list[float], seed: int) -> None:
    first = bootstrap_mean_ci(values, resamples=300, seed=seed)
    assert first == bootstrap_mean_ci(values, resamples=300, seed=seed)
    mean, low, high = first
    assert low <= mean <= high
    assert min(values) <= low and high <= max(values)


# --- paired_bootstrap_diff -------------------------------------------------------------------


def test_paired_diff_detects_a_small_shift_that_unpaired_intervals_miss() -> None:
    # Item difficulty varies a lot, model A is better than B by 0.05 on every item. Only a
    # bootstrap that keeps pairs together sees that; resampling a and b independently would
    # give an interval as wide as the spread of difficulties and straddle zero.
    rng = np.random.default_rng(3)
    difficulty = rng.uniform(0.0, 1.0, size=60)
    a = difficulty + 0.05 + rng.normal(0.0, 0.01, size=60)
    b = difficulty
    result = paired_bootstrap_diff(a, b, resamples=2000, seed=11)
    assert result["n"] == 60
    assert result["mean_diff"] == pytest.approx(float(np.mean(a - b)))
    assert result["excludes_zero"] is True
    assert 0.04 < result["low"] < result["mean_diff"] < result["high"] < 0.06
    _, low_a, high_a = bootstrap_mean_ci(a, resamples=2000, seed=11)
    _, low_b, high_b = bootstrap_mean_ci(b, resamples=2000, seed=11)
    assert low_a < high_b and low_b < high_a  # the separate intervals overlap


def test_paired_diff_of_identical_systems_is_zero_and_does_not_exclude_zero() -> None:
    scores = [0.0, 1.0, 1.0, 0.0, 1.0]
    assert paired_bootstrap_diff(scores, scores) == {
        "mean_diff": 0.0,
        "low": 0.0,
        "high": 0.0,
        "excludes_zero": False,
        "n": 5,
    }


def test_paired_diff_sign_follows_argument_order() -> None:
    a = [1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    b = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    forward = paired_bootstrap_diff(a, b, resamples=1000)
    backward = paired_bootstrap_diff(b, a, resamples=1000)
    assert forward["mean_diff"] == pytest.approx(4 / 6)
    assert backward["mean_diff"] == pytest.approx(-4 / 6)
    assert forward["low"] == pytest.approx(-backward["high"])


def test_paired_diff_of_empty_samples_is_nan_and_inconclusive() -> None:
    result = paired_bootstrap_diff([], [])
    assert math.isnan(result["mean_diff"]) and math.isnan(result["low"]) and math.isnan(result["high"])
    assert result["excludes_zero"] is False and result["n"] == 0


def test_paired_diff_rejects_unpaired_lengths() -> None:
    with pytest.raises(ValueError, match="same length"):
        paired_bootstrap_diff([1.0, 2.0], [1.0])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([0.0, 0.5, 1.0]), st.sampled_from([0.0, 0.5, 1.0])), min_size=1, max_size=30),
    st.integers(min_value=0, max_value=1000),
)
def test_paired_diff_is_deterministic_and_contains_its_estimate(pairs: list[tuple[float, float]], seed: int) -> None:
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    result = paired_bootstrap_diff(a, b, resamples=300, seed=seed)
    assert result == paired_bootstrap_diff(a, b, resamples=300, seed=seed)
    assert result["low"] <= result["mean_diff"] <= result["high"]
    assert result["excludes_zero"] == (result["low"] > 0 or result["high"] < 0)


# --- ece, brier ------------------------------------------------------------------------------


def test_ece_hand_computed() -> None:
    # bin 9: confidences 0.9, 0.9, accuracy 1/2 -> gap 0.4, weight 2/4
    # bin 1: confidences 0.1, 0.1, accuracy 0   -> gap 0.1, weight 2/4
    assert ece([0.9, 0.9, 0.1, 0.1], [1, 0, 0, 0]) == pytest.approx(0.25)


def test_ece_puts_confidence_one_in_the_last_bin() -> None:
    # Together in bin 9: mean confidence 0.95, accuracy 0.5 -> 0.45. Were 1.0 given a bin of its
    # own the answer would be 0.5 * 1.0 + 0.5 * 0.1 = 0.55.
    assert ece([1.0, 0.9], [0, 1]) == pytest.approx(0.45)


def test_ece_bin_edges_are_left_closed() -> None:
    # 0.5 opens bin 5 of 10, so it does not share a bin with 0.45 (bin 4).
    assert ece([0.45, 0.5], [1, 0]) == pytest.approx(0.5 * 0.55 + 0.5 * 0.5)
    # With 2 bins both 0.5 and 0.75 are in bin 1: mean confidence 0.625, accuracy 0.5.
    assert ece([0.5, 0.75], [1, 0], bins=2) == pytest.approx(0.125)


def test_ece_of_perfect_calibration_is_zero() -> None:
    confidences = [0.25] * 4 + [0.75] * 4
    labels = [1, 0, 0, 0, 1, 1, 1, 0]
    assert ece(confidences, labels) == pytest.approx(0.0)


def test_brier_hand_computed() -> None:
    assert brier([0.8, 0.3], [True, False]) == pytest.approx((0.2**2 + 0.3**2) / 2)


def test_calibration_of_nothing_is_nan() -> None:
    assert math.isnan(ece([], []))
    assert math.isnan(brier([], []))


@pytest.mark.parametrize(
    ("confidences", "labels"),
    [([1.2], [1]), ([-0.1], [0]), ([0.5], [2]), ([0.5, 0.5], [1]), ([math.nan], [1])],
)
def test_calibration_rejects_bad_input(confidences: list[float], labels: list[int]) -> None:
    with pytest.raises(ValueError):
        ece(confidences, labels)
    with pytest.raises(ValueError):
        brier(confidences, labels)


@pytest.mark.parametrize("bins", [0, -1, 2.5, True])
def test_ece_rejects_bad_bin_counts(bins: int) -> None:
    with pytest.raises(ValueError):
        ece([0.5], [1], bins=bins)


@given(
    st.lists(st.tuples(st.floats(min_value=0.0, max_value=1.0), st.booleans()), min_size=1, max_size=50),
    st.integers(min_value=1, max_value=20),
)
def test_calibration_scores_are_bounded(pairs: list[tuple[float, bool]], bins: int) -> None:
    confidences = [c for c, _ in pairs]
    labels = [y for _, y in pairs]
    assert 0.0 <= ece(confidences, labels, bins) <= 1.0
    assert 0.0 <= brier(confidences, labels) <= 1.0


# --- auroc -----------------------------------------------------------------------------------


def _auroc_by_pair_count(scores: list[float], labels: list[int]) -> float:
    """Independent method: count every (positive, negative) pair, ties worth half."""
    positives = [s for s, y in zip(scores, labels, strict=True) if y]
    negatives = [s for s, y in zip(scores, labels, strict=True) if not y]
    credit = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(positives, negatives))
    return credit / (len(positives) * len(negatives))


@given(st.lists(st.tuples(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]), st.booleans()), min_size=2, max_size=60))
def test_auroc_equals_the_brute_force_pair_count(pairs: list[tuple[float, bool]]) -> None:
    scores = [s for s, _ in pairs]
    labels = [int(y) for _, y in pairs]
    if len(set(labels)) < 2:
        assert math.isnan(auroc(scores, labels))
    else:
        assert auroc(scores, labels) == pytest.approx(_auroc_by_pair_count(scores, labels), abs=1e-12)


def test_auroc_known_values() -> None:
    assert auroc([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1]) == 1.0
    assert auroc([0.1, 0.2, 0.8, 0.9], [1, 1, 0, 0]) == 0.0
    assert auroc([0.5, 0.5, 0.5], [1, 0, 1]) == 0.5
    # one positive at 0.6 above negatives 0.1, 0.6 (tie), 0.9 (below): (1 + 0.5 + 0) / 3
    assert auroc([0.6, 0.1, 0.6, 0.9], [1, 0, 0, 0]) == pytest.approx(0.5)


def test_auroc_is_nan_when_a_class_is_missing() -> None:
    assert math.isnan(auroc([0.1, 0.9], [1, 1]))
    assert math.isnan(auroc([0.1, 0.9], [0, 0]))
    assert math.isnan(auroc([], []))


def test_auroc_rejects_mismatched_or_non_binary_labels() -> None:
    with pytest.raises(ValueError):
        auroc([0.1, 0.2], [1])
    with pytest.raises(ValueError):
        auroc([0.1, 0.2], [1, 3])


# --- mean_or_nan -----------------------------------------------------------------------------


def test_mean_or_nan() -> None:
    assert mean_or_nan([1.0, 2.0, 6.0]) == 3.0
    assert math.isnan(mean_or_nan([]))
    with pytest.raises(ValueError):
        mean_or_nan([1.0, math.nan])
