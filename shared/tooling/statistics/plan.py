"""Power planning: what difference a design can detect, and the cases and repeats a given difference needs.

The variance of a paired difference is split into components estimated from the pilot: `between`, the
variance across cases of the true per-case difference, and `within`, the variance of single repeats around
their case's expectation (both models' added). A design of n cases with r repeats then has variance
(between + within / r) / n, the design-effect form 1 + (r - 1) * ICC. This, rather than a cluster bootstrap
of the pilot, because a plan has to extrapolate to numbers of cases and repeats the pilot did not have: a
bootstrap can only resample the pilot's own design, while the components give every design in closed form,
instantly and without random draws. Power is that of the two-sided paired t test the comparisons use (see
`paired`), from the noncentral t distribution, so small designs are not flattered by a normal
approximation. Cases count as a sample of the cases the benchmark could have had: more repeats shrink only
the within part, so past some point only more cases help (`repeats_needed` says when no number of repeats
suffices).

The estimators are the usual one-way ANOVA ones: `within` pools the squared deviations of repeats from their
case mean; `between` is the variance of the case means less the part the repeats explain (at least 0). With
one repeat per case the two cannot be told apart: all the variance is put in `between` (extra repeats are
then assumed to buy nothing, and the plan says so). The calibration bench checks the predicted power against
simulated experiments.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from . import _scipy
from .outcomes import Array, CaseTable, Outcomes, finite_or_none
from .paired import check_confidence
from .records import Record, percent

REPEAT_CHOICES = (1, 2, 3, 5, 10)
_MAX_CASES = 10_000_000
_MAX_REPEATS = 100_000
METHOD = (
    "variance components from the pilot (between cases, within a case) give the variance of any design of cases x "
    "repeats (the design effect); power of the two-sided paired t test from the noncentral t distribution"
)


@dataclass(frozen=True)
class Components(Record):
    """The pilot's variance of a paired difference (or of one model), split between and within cases.

    `repeats` is the pilot's repeats per case as the variance sees them (a harmonic mean); `within_known` is
    False when no case had two repeats, and then `within` is 0 and `between` holds all the variance.
    """

    between: float
    within: float
    within_known: bool
    cases: int
    repeats: float

    def variance(self, cases: float, repeats: float) -> float:
        """The variance of the mean difference over `cases` cases with `repeats` repeats each."""
        return (self.between + self.within / repeats) / cases

    def icc(self) -> float | None:
        """The intra-case correlation: the share of one repeat's variance that its case explains."""
        total = self.between + self.within
        return self.between / total if total > 0 and self.within_known else None

    def design_effect(self, repeats: float) -> float | None:
        """How much `repeats` clustered repeats inflate the variance over as many independent scores."""
        icc = self.icc()
        return 1.0 + (repeats - 1.0) * icc if icc is not None else None


@dataclass(frozen=True)
class DesignOption(Record):
    """For a number of repeats per case: the cases needed for the target power (None: out of reach)."""

    repeats: int
    cases: int | None
    power: float | None


@dataclass(frozen=True)
class PowerPlan(Record):
    """The plan for one pair of models (or one model against a like model, `second` None)."""

    first: str
    second: str | None
    assumption: str | None
    observed_diff: float | None
    cases: int
    repeats: float
    alpha: float
    power: float
    comparisons: int
    components: Components
    icc: float | None
    design_effect: float | None
    mdd: float | None
    detect: float | None
    power_at_detect: float | None
    options: tuple[DesignOption, ...]
    repeats_at_current_cases: int | None
    method: str
    notes: tuple[str, ...]

    def power_at(self, diff: float, *, cases: int | None = None, repeats: float | None = None) -> float | None:
        """The power to detect `diff` with `cases` x `repeats` (the pilot's design by default): a power curve."""
        if self.mdd is None:
            return None
        return power(
            self.components,
            diff=diff,
            cases=self.cases if cases is None else cases,
            repeats=self.repeats if repeats is None else repeats,
            alpha=self.alpha,
            comparisons=self.comparisons,
        )


def pair_components(table: CaseTable, i: int, j: int) -> Components:
    """The components of row `i` minus row `j` over the cases both ran."""
    shared = (table.counts[i] > 0) & (table.counts[j] > 0)
    counts_a, counts_b = table.counts[i][shared], table.counts[j][shared]
    within_a, known_a = _within(counts_a, table.sums[i][shared], table.squares[i][shared])
    within_b, known_b = _within(counts_b, table.sums[j][shared], table.squares[j][shared])
    diffs = table.sums[i][shared] / counts_a - table.sums[j][shared] / counts_b
    explained = within_a / counts_a + within_b / counts_b
    return _components(diffs, explained, within_a + within_b, known_a and known_b, counts_a, counts_b)


def model_components(table: CaseTable, i: int) -> Components:
    """The components of one model's scores (for a plan against a like model)."""
    ran = table.counts[i] > 0
    counts = table.counts[i][ran]
    within, known = _within(counts, table.sums[i][ran], table.squares[i][ran])
    return _components(table.sums[i][ran] / counts, within / counts, within, known, counts, counts)


def _within(counts: Array, sums: Array, squares: Array) -> tuple[float, bool]:
    repeated = counts >= 2
    if not bool(repeated.any()):
        return 0.0, False
    deviations = squares[repeated] - sums[repeated] ** 2 / counts[repeated]
    return max(0.0, float(deviations.sum() / (counts[repeated] - 1.0).sum())), True


def _components(
    values: Array, explained: Array, within: float, known: bool, counts_a: Array, counts_b: Array
) -> Components:
    n = int(values.size)
    spread = float(np.var(values, ddof=1)) if n >= 2 else 0.0
    if known and within > 0:
        repeats = within / float(np.mean(explained))
    else:
        repeats = float(2.0 / np.mean(1.0 / counts_a + 1.0 / counts_b)) if n else 0.0
    if abs(repeats - round(repeats)) <= 1e-9 * max(1.0, repeats):
        repeats = float(round(repeats))  # a balanced pilot's repeats, not 2.9999999999999987
    between = max(0.0, spread - float(np.mean(explained))) if known else spread
    return Components(between=between, within=within if known else 0.0, within_known=known, cases=n, repeats=repeats)


def power(
    components: Components,
    *,
    diff: float,
    cases: float,
    repeats: float,
    alpha: float = 0.05,
    comparisons: int = 1,
) -> float:
    """The power of the two-sided paired t test at level alpha / comparisons to detect a true `diff`."""
    if cases < 2 or repeats <= 0:
        raise ValueError(f"need at least 2 cases and a positive number of repeats, got {cases} x {repeats}")
    level = _level(alpha, comparisons)
    se = math.sqrt(components.variance(cases, repeats))
    if se == 0.0:
        return 1.0 if diff != 0.0 else level
    df = cases - 1.0
    critical = float(_scipy.t_ppf(1.0 - level / 2.0, df))
    shift = abs(diff) / se
    upper = float(_scipy.nct_sf(critical, df, shift))
    lower = float(_scipy.nct_cdf(-critical, df, shift))
    # Far in the tail scipy's noncentral t can return nan (an underflow): the lower tail is then 0, the upper 1.
    if not math.isfinite(lower):
        lower = 0.0
    if not math.isfinite(upper):
        upper = 1.0 if shift > critical else 0.0
    return min(1.0, upper + lower)


def minimum_detectable(
    components: Components,
    *,
    cases: float,
    repeats: float,
    alpha: float = 0.05,
    target: float = 0.8,
    comparisons: int = 1,
) -> float:
    """The smallest true difference the design detects with probability `target`."""
    _check_target(target, alpha)
    if components.variance(cases, repeats) == 0.0:
        return 0.0

    def gap(diff: float) -> float:
        return power(components, diff=diff, cases=cases, repeats=repeats, alpha=alpha, comparisons=comparisons) - target

    high = math.sqrt(components.variance(cases, repeats))
    while gap(high) < 0.0:
        high *= 2.0
    return _scipy.root(gap, 0.0, high)


def cases_needed(
    components: Components,
    *,
    diff: float,
    repeats: float,
    alpha: float = 0.05,
    target: float = 0.8,
    comparisons: int = 1,
) -> int | None:
    """The fewest cases (at `repeats` each) that detect `diff` with probability `target`; None beyond 10 million."""
    _check_target(target, alpha)

    def enough(n: int) -> bool:
        return power(components, diff=diff, cases=n, repeats=repeats, alpha=alpha, comparisons=comparisons) >= target

    return _smallest(enough, 2, _MAX_CASES)


def repeats_needed(
    components: Components,
    *,
    diff: float,
    cases: int,
    alpha: float = 0.05,
    target: float = 0.8,
    comparisons: int = 1,
) -> int | None:
    """The fewest repeats per case that detect `diff` at `cases` cases; None when no number of repeats does."""
    _check_target(target, alpha)
    if cases < 2 or not components.within_known:
        return None

    def enough(r: int) -> bool:
        return power(components, diff=diff, cases=cases, repeats=r, alpha=alpha, comparisons=comparisons) >= target

    return _smallest(enough, 1, _MAX_REPEATS)


def _smallest(enough: Callable[[int], bool], low: int, limit: int) -> int | None:
    """The smallest integer in [low, limit] where the increasing condition `enough` holds (None: nowhere)."""
    if enough(low):
        return low
    high = low
    while not enough(high):
        if high >= limit:
            return None
        low, high = high, min(limit, high * 2)
    while high - low > 1:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle
    return high


def plan_pair(
    table: CaseTable,
    first: str,
    second: str,
    *,
    detect: float | None = None,
    alpha: float = 0.05,
    target: float = 0.8,
    comparisons: int = 1,
    repeat_choices: Sequence[int] = REPEAT_CHOICES,
) -> PowerPlan:
    """The plan for telling `first` from `second` (rows of `table`), from their paired pilot outcomes."""
    i, j = table.row(first), table.row(second)
    components = pair_components(table, i, j)
    shared = (table.counts[i] > 0) & (table.counts[j] > 0)
    observed = None
    if bool(shared.any()):
        means = [table.sums[k][shared].sum() / table.counts[k][shared].sum() for k in (i, j)]
        observed = finite_or_none(float(means[0] - means[1]))
    return _plan(first, second, None, observed, components, detect, alpha, target, comparisons, repeat_choices)


def plan_single(
    table: CaseTable,
    model: str,
    *,
    detect: float | None = None,
    correlation: float = 0.0,
    alpha: float = 0.05,
    target: float = 0.8,
    comparisons: int = 1,
    repeat_choices: Sequence[int] = REPEAT_CHOICES,
) -> PowerPlan:
    """The plan for telling `model` from a model like it, from one model's pilot.

    The other model is assumed to have the same variance components, and its case effects to correlate
    `correlation` with this one's (0 by default: the cautious choice, since models usually find the same
    cases hard and a positive correlation only shrinks the variance of their difference).
    """
    if not -1.0 <= correlation <= 1.0:
        raise ValueError(f"correlation must lie in [-1, 1], got {correlation!r}")
    one = model_components(table, table.row(model))
    components = Components(
        between=2.0 * (1.0 - correlation) * one.between,
        within=2.0 * one.within,
        within_known=one.within_known,
        cases=one.cases,
        repeats=one.repeats,
    )
    assumption = (
        f"a second model with this model's variance (between and within cases), its case effects correlated "
        f"{correlation:g} with this model's"
    )
    return _plan(model, None, assumption, None, components, detect, alpha, target, comparisons, repeat_choices)


def plan(
    outcomes: Outcomes,
    *,
    detect: float | None = None,
    alpha: float = 0.05,
    target: float = 0.8,
    comparisons: int = 1,
    correlation: float = 0.0,
) -> tuple[PowerPlan, ...]:
    """Plans from pilot outcomes: one model planned against a like model, otherwise every pair (table order)."""
    table = CaseTable.from_outcomes(outcomes)
    if len(table.models) == 1:
        return (
            plan_single(
                table,
                table.models[0],
                detect=detect,
                correlation=correlation,
                alpha=alpha,
                target=target,
                comparisons=comparisons,
            ),
        )
    return tuple(
        plan_pair(table, a, b, detect=detect, alpha=alpha, target=target, comparisons=comparisons)
        for k, a in enumerate(table.models)
        for b in table.models[k + 1 :]
    )


def _plan(
    first: str,
    second: str | None,
    assumption: str | None,
    observed: float | None,
    components: Components,
    detect: float | None,
    alpha: float,
    target: float,
    comparisons: int,
    repeat_choices: Sequence[int],
) -> PowerPlan:
    _check_target(target, alpha)
    _level(alpha, comparisons)
    if detect is not None and not 0.0 < detect <= 1.0:
        raise ValueError(f"the difference to detect must lie in (0, 1], got {detect!r}")
    notes: list[str] = []
    n, r = components.cases, components.repeats
    usable = n >= 2 and components.between + components.within > 0.0
    if n < 2:
        notes.append("fewer than 2 cases with scores on both sides: nothing to plan from")
    elif not usable:
        notes.append("every score in the pilot is the same: its variance cannot plan (see the saturation verdict)")
    if not components.within_known and n >= 2:
        notes.append("one repeat per case: between- and within-case variance cannot be told apart, so more repeats "
                     "are assumed to buy nothing")  # fmt: skip
    if comparisons > 1:
        notes.append(
            f"level alpha / {comparisons} (Bonferroni, the first and strictest step of Holm's procedure), for "
            f"{comparisons} comparisons"
        )
    mdd = power_at_detect = repeats_at_current = None
    options: list[DesignOption] = []
    if usable:
        mdd = minimum_detectable(components, cases=n, repeats=r, target=target, alpha=alpha, comparisons=comparisons)
        if detect is not None:
            power_at_detect = power(components, diff=detect, cases=n, repeats=r, alpha=alpha, comparisons=comparisons)
            choices = sorted({*repeat_choices, max(1, round(r))}) if components.within_known else [max(1, round(r))]
            for repeats in choices:
                needed = cases_needed(
                    components, diff=detect, repeats=repeats, target=target, alpha=alpha, comparisons=comparisons
                )
                achieved = None
                if needed is not None:
                    achieved = power(
                        components, diff=detect, cases=needed, repeats=repeats, alpha=alpha, comparisons=comparisons
                    )
                options.append(DesignOption(repeats=repeats, cases=needed, power=achieved))
            repeats_at_current = repeats_needed(
                components, diff=detect, cases=n, target=target, alpha=alpha, comparisons=comparisons
            )
            if repeats_at_current is None and components.within_known:
                notes.append(
                    f"at {n} cases no number of repeats reaches {percent(target)} power for {detect:g}: more cases"
                )
    return PowerPlan(
        first=first,
        second=second,
        assumption=assumption,
        observed_diff=observed,
        cases=n,
        repeats=r,
        alpha=alpha,
        power=target,
        comparisons=comparisons,
        components=components,
        icc=components.icc(),
        design_effect=components.design_effect(r) if r else None,
        mdd=mdd,
        detect=detect,
        power_at_detect=power_at_detect,
        options=tuple(options),
        repeats_at_current_cases=repeats_at_current,
        method=METHOD,
        notes=tuple(notes),
    )


def _level(alpha: float, comparisons: int) -> float:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
    if isinstance(comparisons, bool) or not isinstance(comparisons, int) or comparisons < 1:
        raise ValueError(f"comparisons must be a positive integer, got {comparisons!r}")
    return alpha / comparisons


def _check_target(target: float, alpha: float) -> None:
    check_confidence(1.0 - alpha)
    if not alpha < target < 1.0:
        raise ValueError(f"the target power must lie between alpha and 1, got {target!r}")
