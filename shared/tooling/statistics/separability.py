"""Which models can be told apart, with the family-wise error of all the pairs held at alpha.

Every pair of models is compared on the cases both ran (`paired`); the p-values of all the pairs are
adjusted together (Holm by default, `multiplicity`), and a pair is separable when its adjusted p-value is at
most alpha = 1 - confidence. The letters follow (`multiplicity.groups`): models that share a letter were not
shown to differ; models that share none differ, and the chance that any such call among all the pairs is
wrong is at most alpha, at 3 models as at 36. Intervals of the differences are at the nominal confidence
(not widened for the number of pairs); the adjusted p-value decides.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .multiplicity import DESCRIPTIONS, adjust, check_adjustment, groups, label
from .outcomes import Array, CaseTable, Outcomes, finite_or_none
from .paired import METHOD as PAIRED_METHOD
from .paired import PairedArrays, check_confidence, paired_arrays
from .records import Record, percent

_CHUNK_ELEMENTS = 4_000_000  # pair x case cells compared at once (a few tens of MB)


@dataclass(frozen=True)
class PairTest(Record):
    """`first` (the better ranked) minus `second`, with the raw and adjusted p-values and the call."""

    first: str
    second: str
    diff: float | None
    low: float | None
    high: float | None
    p_value: float | None
    p_adjusted: float | None
    cases: int
    separable: bool


@dataclass(frozen=True)
class Standing(Record):
    """A model's mean score, its rank by that mean (ties share the better rank) and its group letters."""

    model: str
    mean: float | None
    rank: int | None
    letters: str


@dataclass(frozen=True)
class Separability(Record):
    """The ranked models with their letters, every pair's test, and the method named in words."""

    higher_is_better: bool
    confidence: float
    alpha: float
    adjustment: str
    method: str
    models: tuple[Standing, ...]
    pairs: tuple[PairTest, ...]
    groups: tuple[tuple[str, ...], ...]
    any_separable: bool


def pair_indices(models: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Row indices (i, j), i < j, of every pair of `models` rows, in a fixed order."""
    first, second = np.triu_indices(models, k=1)
    return first.astype(np.intp), second.astype(np.intp)


def pairwise_arrays(counts: Array, sums: Array, *, confidence: float = 0.95) -> PairedArrays:
    """Every pair's paired test (axis -2: models, -1: cases; result axis -1: the pairs of `pair_indices`)."""
    first, second = pair_indices(counts.shape[-2])
    cells = max(1, int(np.prod(counts.shape[:-2], dtype=np.int64)) * counts.shape[-1])
    step = max(1, _CHUNK_ELEMENTS // cells)
    parts = [
        paired_arrays(
            counts[..., first[k : k + step], :],
            sums[..., first[k : k + step], :],
            counts[..., second[k : k + step], :],
            sums[..., second[k : k + step], :],
            confidence=confidence,
        )
        for k in range(0, max(1, first.size), step)
    ]
    fields = ("diff", "low", "high", "se", "p", "cases")
    joined = {f: np.concatenate([getattr(part, f) for part in parts], axis=-1) for f in fields}
    return PairedArrays(**joined)


def separability(
    outcomes: Outcomes | CaseTable,
    *,
    higher_is_better: bool = True,
    confidence: float = 0.95,
    adjustment: str = "holm",
) -> Separability:
    """Every pairwise paired comparison, adjusted together, with the group letters they imply."""
    check_confidence(confidence)
    check_adjustment(adjustment)
    table = outcomes if isinstance(outcomes, CaseTable) else CaseTable.from_outcomes(outcomes)
    alpha = 1.0 - confidence
    means = table.estimates()
    scored = [k for k in range(len(table.models)) if np.isfinite(means[k])]
    sign = -1.0 if higher_is_better else 1.0
    order = sorted(scored, key=lambda k: (sign * means[k], table.models[k]))
    ranked = [table.models[k] for k in order]
    result = pairwise_arrays(table.counts, table.sums, confidence=confidence)
    adjusted = adjust(result.p, adjustment)
    first, second = pair_indices(len(table.models))
    position = {k: r for r, k in enumerate(order)}
    pairs: list[PairTest] = []
    for k, (i, j) in enumerate(zip(first.tolist(), second.tolist(), strict=True)):
        if i not in position or j not in position:
            continue
        flip = position[i] > position[j]
        diff, low, high = float(result.diff[k]), float(result.low[k]), float(result.high[k])
        if flip:
            diff, low, high = -diff, -high, -low
        p_adj = float(adjusted[k])
        pairs.append(
            PairTest(
                first=table.models[j if flip else i],
                second=table.models[i if flip else j],
                diff=finite_or_none(diff),
                low=finite_or_none(low),
                high=finite_or_none(high),
                p_value=finite_or_none(float(result.p[k])),
                p_adjusted=finite_or_none(p_adj),
                cases=int(result.cases[k]),
                separable=bool(p_adj <= alpha),  # False for nan: no interval, no call
            )
        )
    pairs.sort(key=lambda p: (ranked.index(p.first), ranked.index(p.second)))
    apart = {frozenset((p.first, p.second)) for p in pairs if p.separable}
    found = groups(ranked, apart)
    letters = {name: "".join(label(g) for g, members in enumerate(found) if name in members) for name in ranked}
    standings = []
    for k in [*order, *[k for k in range(len(table.models)) if k not in position]]:
        mean = finite_or_none(float(means[k]))
        rank = None
        if mean is not None:
            rank = 1 + sum(1 for other in scored if sign * means[other] < sign * means[k])
        standings.append(Standing(table.models[k], mean, rank, letters.get(table.models[k], "")))
    method = (
        f"{PAIRED_METHOD}; {len(pairs)} pairs, {DESCRIPTIONS[adjustment]}; a pair is separable when its adjusted "
        f"p-value is at most {alpha:.3g}; models sharing a letter were not shown to differ, models sharing none "
        f"differ (family-wise error {percent(alpha)})" if adjustment != "none" else
        f"{PAIRED_METHOD}; {len(pairs)} pairs, {DESCRIPTIONS[adjustment]}: with many pairs some separable calls "
        "are chance"
    )  # fmt: skip
    return Separability(
        higher_is_better=higher_is_better,
        confidence=confidence,
        alpha=alpha,
        adjustment=adjustment,
        method=method,
        models=tuple(standings),
        pairs=tuple(pairs),
        groups=tuple(tuple(g) for g in found),
        any_separable=bool(apart),
    )
