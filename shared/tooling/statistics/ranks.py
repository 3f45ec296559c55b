"""How uncertain each model's rank is: percentile intervals from a cluster bootstrap over cases.

A resample draws cases with replacement, each case with all its repeats and for every model at once (so
what the models share travels together, as in the paired comparisons), and ranks the models by their mean
score on the drawn cases. Ties are not broken at random: a model's best place in a resample is 1 + the
models strictly ahead of it and its worst is the models ahead or level with it, so models that cannot be
ordered (36 models all at zero) get the whole span [1, 36] rather than a spurious middle rank. The interval
runs from the alpha/2 quantile of the best places to the 1 - alpha/2 quantile of the worst. Intervals are
per model (marginal), not simultaneous: read them beside the letters of `separability`, which control the
error over all pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .outcomes import Array, CaseTable, Outcomes, finite_or_none
from .paired import check_confidence
from .records import Record, percent

_CHUNK_ELEMENTS = 4_000_000  # resample x case (or model x model) cells held at once


@dataclass(frozen=True)
class RankInterval(Record):
    """A model's mean score, its rank (ties share the better rank) and its rank interval."""

    model: str
    mean: float | None
    rank: int | None
    low: int | None
    high: int | None


@dataclass(frozen=True)
class Ranks(Record):
    """Every model's rank interval, best first, with the bootstrap's settings."""

    higher_is_better: bool
    confidence: float
    resamples: int
    seed: int
    method: str
    models: tuple[RankInterval, ...]


def rank_intervals(
    outcomes: Outcomes | CaseTable,
    *,
    higher_is_better: bool = True,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> Ranks:
    """Rank intervals for every model with scores (models without scores are listed last, without ranks)."""
    check_confidence(confidence)
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")
    table = outcomes if isinstance(outcomes, CaseTable) else CaseTable.from_outcomes(outcomes)
    sign = -1.0 if higher_is_better else 1.0
    means = table.estimates()
    scored = [k for k in range(len(table.models)) if np.isfinite(means[k])]
    order = sorted(scored, key=lambda k: (sign * means[k], table.models[k]))
    best, worst = _bootstrap_places(table.counts[scored], table.sums[scored], sign, resamples, seed)
    tail = (1.0 - confidence) / 2.0
    found: dict[int, RankInterval] = {}
    for column, k in enumerate(scored):
        rank = 1 + sum(1 for other in scored if sign * means[other] < sign * means[k])
        low = np.nanquantile(best[:, column], tail, method="lower") if scored else np.nan
        high = np.nanquantile(worst[:, column], 1.0 - tail, method="higher") if scored else np.nan
        found[k] = RankInterval(table.models[k], float(means[k]), rank, _int(low), _int(high))
    unscored = [
        RankInterval(table.models[k], None, None, None, None) for k in range(len(table.models)) if k not in found
    ]
    method = (
        f"cluster bootstrap over cases ({resamples} resamples, seed {seed}): each drawn case brings all its repeats, "
        f"for every model at once; ties span their places; {percent(confidence)} percentile interval of each model's "
        "place, per model (not simultaneous)"
    )
    return Ranks(
        higher_is_better=higher_is_better,
        confidence=confidence,
        resamples=resamples,
        seed=seed,
        method=method,
        models=tuple([found[k] for k in order] + unscored),
    )


def _bootstrap_places(counts: Array, sums: Array, sign: float, resamples: int, seed: int) -> tuple[Array, Array]:
    """Per resample and model: the best place (1 + strictly ahead) and the worst (ahead or level)."""
    models, cases = counts.shape
    best = np.full((resamples, models), np.nan)
    worst = np.full((resamples, models), np.nan)
    if models == 0 or cases == 0:
        return best, worst
    rng = np.random.default_rng(seed)
    step = max(1, _CHUNK_ELEMENTS // max(cases, models * models))
    for start in range(0, resamples, step):
        size = min(step, resamples - start)
        drawn = rng.integers(0, cases, size=(size, cases)) + cases * np.arange(size)[:, None]
        weights = np.bincount(drawn.ravel(), minlength=size * cases).reshape(size, cases).astype(np.float64)
        totals = weights @ counts.T
        with np.errstate(invalid="ignore", divide="ignore"):
            values = sign * (weights @ sums.T) / totals
        values = np.where(totals > 0, values, np.nan)
        ahead = (values[:, None, :] < values[:, :, None]).sum(axis=-1)
        level = (values[:, None, :] <= values[:, :, None]).sum(axis=-1)
        defined = np.isfinite(values)
        best[start : start + size] = np.where(defined, 1.0 + ahead, np.nan)
        worst[start : start + size] = np.where(defined, level, np.nan)
    return best, worst


def _int(value: float) -> int | None:
    number = finite_or_none(float(value))
    return None if number is None else round(number)
