"""One model's mean score with an interval that respects [0, 1] and the clustering of repeats.

Two regimes, each with the interval that fits it:

* A clean sheet (every score at 0, or every score at 1) gets the exact (Clopper-Pearson) far bound
  1 - (alpha/2)^(1/n) over its n cases. This is the bound the saturation verdict rests on, so it has to hold
  at every true rate, and it does whatever the correlation of repeats inside a case and for bounded scores
  too: a case whose expected score is m shows a zero on its first repeat with probability at most 1 - m, so
  n cases all at zero have probability at most (1 - mean m)^n. No variance has to be estimated (there is
  none to estimate from).
* Otherwise Wilson's score interval on the effective number of scores (Korn and Graubard's design-effect
  adjustment): n_eff = p(1 - p) / v, where v is the cluster-robust variance of the mean (cases as units), at
  least the number of cases (repeats that are copies) and, for binary scores, at most the number of scores
  (independent repeats), scaled by (z / t_{cases-1})^2 for few cases. Wilson rather than Clopper-Pearson
  here because the exact interval is conservative by construction: the calibration bench measured it at
  97-99 % coverage for 50 binary cases at rates of 5-15 %, outside the 93-97 % target, where Wilson stays
  inside. A bounded continuous score goes through the same formula: its variance is below p(1 - p), so
  n_eff may exceed the number of scores, and it is left to (capping it there made intervals cover 100 %).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _scipy
from .outcomes import Array, CaseTable, finite_or_none
from .paired import check_confidence
from .records import Record

METHOD = (
    "Wilson interval on the effective number of scores (the cluster-robust variance with each case one unit gives "
    "n_eff = p(1-p)/v, at least the cases, for 0/1 scores at most the scores, scaled by (z/t)^2 for few cases); "
    "a clean sheet (every score 0, or every score 1) gets the exact Clopper-Pearson bound over its cases, "
    "1 - (alpha/2)^(1/cases), which holds for any correlation inside a case"
)


@dataclass(frozen=True)
class RateArrays:
    """`rate_arrays`' result, one value per leading index."""

    mean: Array
    low: Array
    high: Array
    effective: Array
    cases: Array


def rate_arrays(counts: Array, sums: Array, squares: Array, *, confidence: float = 0.95) -> RateArrays:
    """Mean score and its clustered interval (last axis: cases; leading axes kept).

    `squares` (the sums of squared scores) tells binary outcomes (squares == sums) from continuous ones.
    """
    check_confidence(confidence)
    binary = np.all(np.abs(squares - sums) <= 1e-9 * np.maximum(1.0, counts), axis=-1)
    ran = counts > 0
    n = ran.sum(axis=-1).astype(np.float64)
    total = counts.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = sums.sum(axis=-1) / total
        influence = np.where(ran, (sums - mean[..., None] * counts) / total[..., None], 0.0)
        variance = n / (n - 1.0) * (influence * influence).sum(axis=-1)
        edge = (mean <= 0.0) | (mean >= 1.0)
        raw = np.where(variance > 0.0, mean * (1.0 - mean) / variance, np.inf)
        effective = np.clip(raw, n, np.where(binary, total, np.inf))
        z = _scipy.norm_ppf(0.5 + confidence / 2.0)
        t = _scipy.t_ppf(0.5 + confidence / 2.0, np.maximum(n - 1.0, 1.0))
        effective = np.where(edge | (n < 2), n, effective * (z / t) ** 2)  # one case: no spread to estimate
        tail = (1.0 - confidence) / 2.0
        share = z * z / effective
        centre = (mean + share / 2.0) / (1.0 + share)
        half = z / (1.0 + share) * np.sqrt(mean * (1.0 - mean) / effective + share / (4.0 * effective))
        exact = 1.0 - tail ** (1.0 / np.maximum(n, 1.0))  # the clean sheet's far bound, from the end
        low = np.where(mean <= 0.0, 0.0, np.where(mean >= 1.0, 1.0 - exact, np.maximum(0.0, centre - half)))
        high = np.where(mean >= 1.0, 1.0, np.where(mean <= 0.0, exact, np.minimum(1.0, centre + half)))
    none = n < 1
    return RateArrays(
        mean=np.where(none, np.nan, mean),
        low=np.where(none, np.nan, low),
        high=np.where(none, np.nan, high),
        effective=np.where(none, np.nan, effective),
        cases=n,
    )


@dataclass(frozen=True)
class Rate(Record):
    """One model's mean score with its interval; `effective` is the number of scores the interval counted."""

    model: str
    mean: float | None
    low: float | None
    high: float | None
    cases: int
    scores: int
    effective: float | None
    confidence: float


def rates(table: CaseTable, *, confidence: float = 0.95) -> tuple[Rate, ...]:
    """Every model's `Rate`, in the table's order."""
    result = rate_arrays(table.counts, table.sums, table.squares, confidence=confidence)
    return tuple(
        Rate(
            model=model,
            mean=finite_or_none(float(result.mean[i])),
            low=finite_or_none(float(result.low[i])),
            high=finite_or_none(float(result.high[i])),
            cases=int(result.cases[i]),
            scores=int(table.counts[i].sum()),
            effective=finite_or_none(float(result.effective[i])),
            confidence=confidence,
        )
        for i, model in enumerate(table.models)
    )


def cases_to_bound(margin: float, *, confidence: float = 0.95) -> int:
    """The fewest cases at which a clean sheet (every case at the end) puts the far bound within `margin`.

    Equivalently, the cases at which a model whose true rate is `margin` would show at least one departure
    from the end with probability above 1 - (1 - confidence) / 2: the number of cases needed to see it.
    """
    check_confidence(confidence)
    if not 0.0 < margin < 1.0:
        raise ValueError(f"margin must be strictly between 0 and 1, got {margin!r}")
    tail = (1.0 - confidence) / 2.0
    n = max(1, math.ceil(math.log(tail) / math.log1p(-margin)))
    while 1.0 - tail ** (1.0 / n) >= margin:  # the float logarithms may land one short
        n += 1
    while n > 1 and 1.0 - tail ** (1.0 / (n - 1)) < margin:
        n -= 1
    return n
