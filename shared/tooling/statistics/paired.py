"""The paired difference of two mean scores over the cases both ran, with its interval and p-value.

Two models (or two runs of one model) scored on the same cases share each case's difficulty, so their
difference is judged case by case. Each case is one unit however many repeats it has: the variance is the
cluster-robust (linearised) variance of the difference of the two ratio-of-sums means, scaled by n/(n-1),
and the interval and p-value come from Student's t with n-1 degrees of freedom. With one repeat per case
this is exactly the paired t test. It is analytic rather than a bootstrap because the Holm adjustment over
many pairs needs p-values far in the tail (0.05 / 630 pairs at 36 models), which a bootstrap of a
thousand resamples cannot resolve; the calibration bench checks its coverage.

No p-value is below 2 / 2**n, the smallest the exact sign-flip test over n cases can give (all n cases moved
the same way): with 3 cases nothing is separable at 5 %, however small the spread. Without that floor a
pair whose cases all differ by the same amount (variance 0) would be either infinitely sure (a t of
infinity) or, with the sign-flip value alone, less separable than a pair whose differences vary a little.
A difference of 0 with variance 0 has p = 1.

Every function takes arrays whose last axis is the cases, with any leading axes (the calibration bench
stacks thousands of simulated experiments), so the bench exercises this very code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _scipy
from .outcomes import Array, CaseTable, ModelOutcomes, finite_or_none
from .records import Record

METHOD = (
    "paired over the cases both ran: the difference of the two mean scores, cluster-robust variance with each case "
    "one unit (repeats inside it), Student t with cases - 1 degrees of freedom"
)
_ZERO_SE = 1e-12  # a standard error this small (relative to the difference) is rounding, not spread


@dataclass(frozen=True)
class PairedArrays:
    """`paired_arrays`' result, one value per leading index."""

    diff: Array
    low: Array
    high: Array
    se: Array
    p: Array
    cases: Array


def paired_arrays(
    counts_a: Array, sums_a: Array, counts_b: Array, sums_b: Array, *, confidence: float = 0.95
) -> PairedArrays:
    """First minus second over the cases where both have scores (last axis: cases).

    Fewer than 2 shared cases give a nan interval and p-value; no shared case a nan difference too.
    """
    check_confidence(confidence)
    shared = (counts_a > 0) & (counts_b > 0)
    n = shared.sum(axis=-1).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        total_a = np.where(shared, counts_a, 0.0).sum(axis=-1)
        total_b = np.where(shared, counts_b, 0.0).sum(axis=-1)
        mean_a = np.where(shared, sums_a, 0.0).sum(axis=-1) / total_a
        mean_b = np.where(shared, sums_b, 0.0).sum(axis=-1) / total_b
        influence = np.where(
            shared,
            (sums_a - mean_a[..., None] * counts_a) / total_a[..., None]
            - (sums_b - mean_b[..., None] * counts_b) / total_b[..., None],
            0.0,
        )
        diff = mean_a - mean_b
        se = np.sqrt(n / (n - 1.0) * (influence * influence).sum(axis=-1))
        se = np.where(n >= 2, se, np.nan)
        zero = se <= _ZERO_SE * np.maximum(1.0, np.abs(diff))
        df = np.maximum(n - 1.0, 1.0)
        t = np.abs(diff) / np.where(zero, 1.0, se)
        floor = np.minimum(1.0, 2.0 ** (1.0 - n))  # the exact sign-flip test's smallest p over n cases
        p = np.where(zero, np.where(diff == 0.0, 1.0, floor), np.maximum(2.0 * _scipy.t_sf(t, df), floor))
        se = np.where(zero, 0.0, se)
        half = _scipy.t_ppf(0.5 + confidence / 2.0, df) * se
    p = np.where(n >= 2, p, np.nan)
    diff = np.where(n >= 1, diff, np.nan)
    return PairedArrays(diff=diff, low=diff - half, high=diff + half, se=se, p=p, cases=n)


@dataclass(frozen=True)
class PairedDifference(Record):
    """First minus second, paired over shared cases, with its interval and two-sided p-value."""

    first: str
    second: str
    first_mean: float | None
    second_mean: float | None
    diff: float | None
    low: float | None
    high: float | None
    p_value: float | None
    cases: int
    confidence: float
    method: str


def paired_difference(
    first: ModelOutcomes,
    second: ModelOutcomes,
    *,
    names: tuple[str, str] = ("first", "second"),
    confidence: float = 0.95,
) -> PairedDifference:
    """The paired difference `first - second` of two models' (or runs') outcomes over their shared cases."""
    table = CaseTable.from_outcomes({names[0]: first, names[1]: second})
    return pair_from_table(table, 0, 1, confidence=confidence)


def pair_from_table(table: CaseTable, i: int, j: int, *, confidence: float) -> PairedDifference:
    """Row `i` minus row `j` of `table`."""
    result = paired_arrays(table.counts[i], table.sums[i], table.counts[j], table.sums[j], confidence=confidence)
    shared = (table.counts[i] > 0) & (table.counts[j] > 0)
    means = [_mean(table.counts[k][shared], table.sums[k][shared]) for k in (i, j)]
    return PairedDifference(
        first=table.models[i],
        second=table.models[j],
        first_mean=means[0],
        second_mean=means[1],
        diff=finite_or_none(float(result.diff)),
        low=finite_or_none(float(result.low)),
        high=finite_or_none(float(result.high)),
        p_value=finite_or_none(float(result.p)),
        cases=int(result.cases),
        confidence=confidence,
        method=METHOD,
    )


def _mean(counts: Array, sums: Array) -> float | None:
    total = float(counts.sum())
    return float(sums.sum()) / total if total else None


def check_confidence(confidence: float) -> None:
    """Refuse a confidence level outside (0, 1)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
