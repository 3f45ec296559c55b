"""Checked by simulation, not by trust: the four calibration targets, on synthetic outcomes with known truth.

1. coverage: the intervals (one model's rate, a paired difference, a drift change) contain the truth in
   93-97 % of experiments at nominal 95 %;
2. power: the planner's predicted power matches the power of simulated experiments within 5 points, for the
   cases it says are needed (target 80 %), for its minimum detectable difference at the pilot's design, and
   for a given difference at the pilot's design;
3. family-wise error: with Holm-controlled separability, the share of experiments in which any pair of truly
   equal models is called separable is at most 5 %;
4. drift false alarms: two runs of an unchanged model are flagged in at most 5 % of experiments (several
   metrics each), and two copies of one run never.

The checks call the very functions the reports use (`paired_arrays`, `rate_arrays`, `pairwise_arrays`,
`adjust`, `plan_pair`), on arrays holding many experiments at once. A pilot's plan is judged over many
pilots: a single pilot's variance is itself an estimate, so one plan can miss by chance; the check is that
the planner is right on average, and the spread across pilots is printed beside it. `FULL` is what the
bench runs; `SMALL` is the tests' fixed-seed version (wider bands for their fewer experiments).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from .bounds import rate_arrays
from .multiplicity import adjust
from .outcomes import CaseTable
from .paired import PairedArrays, paired_arrays
from .plan import plan_pair
from .records import Record
from .separability import pair_indices, pairwise_arrays
from .synthetic import Draw, Truth, draw

NOMINAL = 0.95
ALPHA = 0.05


@dataclass(frozen=True)
class Row(Record):
    """One checked scenario: what was observed, what was expected, and whether it is inside the band."""

    check: str
    scenario: str
    observed: float
    expected: float
    low: float
    high: float
    experiments: int
    passed: bool
    note: str = ""


@dataclass(frozen=True)
class Design:
    """A truth and the cases x repeats of the experiments drawn from it."""

    truth: Truth
    cases: int
    repeats: int

    def describe(self) -> str:
        t = self.truth
        means = "/".join(f"{m:g}" for m in t.means) if len(set(t.means)) > 1 else f"{len(t.means)}x{t.means[0]:g}"
        return f"{t.kind} {means} icc {t.icc():.2f} {self.cases}x{self.repeats}"


@dataclass(frozen=True)
class Sizes:
    """How many simulated experiments each check draws, and the pass bands that fit that many.

    A rate passes when it is not outside its target by more than `allowance` Monte Carlo standard errors: an
    error rate above `error_ceiling` (a true 4.9 % reads above 5 % in a fifth of runs of 20,000 experiments), a
    coverage outside `coverage_band` (Wilson's exact coverage for 50 binary cases at a rate of 0.5 is 96.7 %,
    and reads above 97 % now and then). Every printed band includes the allowance.
    """

    coverage_experiments: int
    pilots: int
    per_pilot: int
    fwer_experiments: int
    drift_experiments: int
    coverage_band: tuple[float, float]
    power_tolerance: float
    allowance: float
    error_ceiling: float = ALPHA

    def error_band(self, experiments: int) -> float:
        """The highest error rate that passes: the ceiling plus `allowance` Monte Carlo standard errors at it."""
        return self.error_ceiling + self.allowance * monte_carlo_error(self.error_ceiling, experiments)

    def coverage_limits(self, experiments: int) -> tuple[float, float]:
        """The coverage band widened by `allowance` Monte Carlo standard errors at the nominal level."""
        slack = self.allowance * monte_carlo_error(NOMINAL, experiments)
        return self.coverage_band[0] - slack, self.coverage_band[1] + slack


FULL = Sizes(
    coverage_experiments=6000,
    pilots=50,
    per_pilot=100,
    fwer_experiments=4000,
    drift_experiments=40000,
    coverage_band=(0.93, 0.97),
    power_tolerance=0.05,
    allowance=2.0,
)
# The tests' sizes: a few seconds in all; bands about 4 Monte Carlo standard errors wide, so that chance
# does not fail them while a method that ignores the clustering or the number of pairs still does.
SMALL = Sizes(
    coverage_experiments=1000,
    pilots=20,
    per_pilot=60,
    fwer_experiments=400,
    drift_experiments=5000,
    coverage_band=(0.93, 0.97),
    power_tolerance=0.10,
    allowance=3.5,
)


def coverage_designs() -> list[Design]:
    """Binary and bounded, low and high intra-case correlation, three effect sizes, two designs."""
    out = []
    for kind in ("binary", "bounded"):
        for spread in (0.3, 1.0):
            for base, effect in ((0.5, 0.0), (0.3, 0.05), (0.15, 0.15)):
                for cases, repeats in ((50, 1), (200, 3)):
                    truth = Truth(kind, (base + effect, base), spread=spread, shared=0.5)
                    out.append(Design(truth, cases, repeats))
    return out


@dataclass(frozen=True)
class PowerScenario:
    """A pilot design, a difference to detect and the truth it is drawn from (model 0 better by `effect`)."""

    kind: str
    base: float
    effect: float
    spread: float
    cases: int
    repeats: int

    def truth(self, effect: float | None = None) -> Truth:
        gap = self.effect if effect is None else effect
        return Truth(self.kind, (self.base + gap, self.base), spread=self.spread, shared=0.5)

    def describe(self) -> str:
        icc = self.truth().icc()
        return f"{self.kind} {self.base:g}+{self.effect:g} icc {icc:.2f} pilot {self.cases}x{self.repeats}"


POWER_SCENARIOS = (
    PowerScenario("binary", 0.3, 0.05, 0.5, 100, 3),
    PowerScenario("binary", 0.2, 0.10, 1.0, 50, 5),
    PowerScenario("binary", 0.3, 0.08, 0.5, 150, 1),
    PowerScenario("bounded", 0.5, 0.05, 0.5, 100, 2),
    PowerScenario("bounded", 0.3, 0.10, 1.0, 60, 4),
)


def fwer_designs() -> list[tuple[Design, int]]:
    """(design, number of truly equal models first): complete nulls at 3, 10 and 36 models, a partial null."""
    out = []
    for models in (3, 10, 36):
        out.append((Design(Truth("binary", (0.3,) * models, spread=0.5, shared=0.5), 100, 1), models))
        out.append((Design(Truth("bounded", (0.4,) * models, spread=0.8, shared=0.5), 50, 3), models))
    out.append((Design(Truth("binary", (0.3,) * 5 + (0.45,) * 5, spread=0.5, shared=0.5), 100, 2), 5))
    out.append((Design(Truth("binary", (0.05,) * 10, spread=0.5, shared=0.5), 200, 1), 10))
    return out


def drift_designs() -> list[tuple[Design, Design]]:
    """Two metrics per slug (a binary and a bounded one), each run twice by an unchanged model."""
    out = []
    for spread in (0.3, 1.0):
        for cases, repeats in ((50, 1), (200, 3)):
            out.append(
                (
                    Design(Truth("binary", (0.3, 0.3), spread=spread, shared=1.0), cases, repeats),
                    Design(Truth("bounded", (0.6, 0.6), spread=spread, shared=1.0), cases, repeats),
                )
            )
    return out


def coverage(sizes: Sizes, rng: np.random.Generator) -> Iterator[Row]:
    """Coverage of the rate interval, the paired difference interval and the drift change interval."""
    low, high = sizes.coverage_limits(sizes.coverage_experiments)
    for design in coverage_designs():
        truth = design.truth
        sample = _draw(design, sizes.coverage_experiments, rng)
        rate = rate_arrays(sample.counts, sample.sums, sample.squares, confidence=NOMINAL)
        means = np.asarray(truth.means)[None, :]
        inside = float(np.mean((rate.low <= means) & (means <= rate.high)))
        yield _band("coverage: rate", design.describe(), inside, NOMINAL, low, high, 2 * sizes.coverage_experiments)
        pair = _pair(sample, 0, 1)
        gap = truth.means[0] - truth.means[1]
        inside = float(np.mean((pair.low <= gap) & (gap <= pair.high)))
        n = sizes.coverage_experiments
        yield _band("coverage: paired difference", design.describe(), inside, NOMINAL, low, high, n)
        rerun = Design(replace(truth, shared=1.0), design.cases, design.repeats)
        sample = _draw(rerun, n, rng)
        pair = _pair(sample, 0, 1)
        inside = float(np.mean((pair.low <= gap) & (gap <= pair.high)))
        yield _band("coverage: drift change", rerun.describe(), inside, NOMINAL, low, high, n)


def planned_power(sizes: Sizes, rng: np.random.Generator) -> Iterator[Row]:
    """The planner's predicted power against simulated power, averaged over pilots."""
    tolerance = sizes.power_tolerance
    for scenario in POWER_SCENARIOS:
        results: dict[str, tuple[list[float], list[float]]] = {"cases needed": ([], []), "mdd": ([], [])}
        results["given difference"] = ([], [])
        for _ in range(sizes.pilots):
            pilot = draw(scenario.truth(), cases=scenario.cases, repeats=scenario.repeats, experiments=1, rng=rng)
            table = CaseTable(
                ("a", "b"),
                tuple(f"c{k}" for k in range(scenario.cases)),
                pilot.counts[0],
                pilot.sums[0],
                pilot.squares[0],
            )
            plan = plan_pair(table, "a", "b", detect=scenario.effect, alpha=ALPHA, target=0.8, repeat_choices=())
            if plan.mdd is None or not plan.options or plan.options[0].cases is None:
                raise AssertionError(f"no plan from a pilot of {scenario.describe()}: {plan.notes}")
            option = plan.options[0]
            pilot_design = (scenario.cases, scenario.repeats)
            checks: list[tuple[str, float, float, tuple[int, int]]] = [
                ("cases needed", float(option.power or 0.0), scenario.effect, (option.cases or 0, option.repeats)),
                ("mdd", 0.8, plan.mdd, pilot_design),
                ("given difference", float(plan.power_at_detect or 0.0), scenario.effect, pilot_design),
            ]
            for name, predicted, effect, (cases, repeats) in checks:
                if scenario.base + effect >= 1.0:
                    raise AssertionError(f"the minimum detectable difference {effect:.3f} leaves the scale")
                design = Design(scenario.truth(effect), cases, repeats)
                rejected = _pair(_draw(design, sizes.per_pilot, rng), 0, 1).p <= ALPHA
                results[name][0].append(predicted)
                results[name][1].append(float(np.mean(rejected)))
        for name, (predicted_list, simulated_list) in results.items():
            predicted, simulated = float(np.mean(predicted_list)), float(np.mean(simulated_list))
            spread = np.quantile(simulated_list, [0.1, 0.9])
            yield Row(
                check=f"power: {name}",
                scenario=scenario.describe(),
                observed=simulated,
                expected=predicted,
                low=predicted - tolerance,
                high=predicted + tolerance,
                experiments=sizes.pilots * sizes.per_pilot,
                passed=abs(simulated - predicted) <= tolerance,
                note=f"pilots' 10-90 % range of simulated power {spread[0]:.0%}-{spread[1]:.0%}",
            )


def family_wise_error(sizes: Sizes, rng: np.random.Generator) -> Iterator[Row]:
    """How often any pair among the truly equal models is called separable, with Holm's adjustment."""
    for design, equal in fwer_designs():
        models = len(design.truth.means)
        first, second = pair_indices(models)
        null = (first < equal) & (second < equal)
        errors = 0
        for sample in _chunks(design, sizes.fwer_experiments, rng, models):
            tests = pairwise_arrays(sample.counts, sample.sums, confidence=NOMINAL)
            separable = adjust(tests.p, "holm") <= ALPHA
            errors += int(np.sum(np.any(separable[..., null], axis=-1)))
        n = sizes.fwer_experiments
        scenario = f"{design.describe()}, {equal} of {models} equal"
        yield _band("family-wise error (Holm)", scenario, errors / n, ALPHA, 0.0, sizes.error_band(n), n)


def drift_false_alarms(sizes: Sizes, rng: np.random.Generator) -> Iterator[Row]:
    """How often an unchanged slug is flagged over two metrics (Holm across them), and copies of one run."""
    for binary, bounded in drift_designs():
        p_values = []
        copies = []
        for design in (binary, bounded):
            sample = _draw(design, sizes.drift_experiments, rng)
            p_values.append(_pair(sample, 1, 0).p)
            copies.append(_pair(Draw(sample.counts, sample.sums, sample.squares), 0, 0).p)
        flagged = np.any(adjust(np.stack(p_values, axis=-1), "holm") <= ALPHA, axis=-1)
        copied = np.any(adjust(np.stack(copies, axis=-1), "holm") <= ALPHA, axis=-1)
        scenario = f"{binary.describe()} + {bounded.truth.kind} {bounded.truth.means[0]:g}"
        n = sizes.drift_experiments
        row = _band("drift false alarms", scenario, float(np.mean(flagged)), ALPHA, 0.0, sizes.error_band(n), n)
        copies_flagged = int(np.sum(copied))
        note = f"copies of one run flagged: {copies_flagged}"
        yield replace(row, passed=row.passed and copies_flagged == 0, note=note)


def limits(sizes: Sizes, rng: np.random.Generator) -> Iterator[Row]:
    """Coverage where the targets are not claimed: few cases (14-30), low rates and strong clustering.

    Measured and printed so that a report can warn; not part of the targets. The rate interval leans on the
    spread between cases, which a few skewed cases understate (about 89-90 % at 14-17 cases, rate 8 %,
    intra-case correlation 0.4-0.9); the paired difference holds up better.
    """
    for kind in ("binary", "bounded"):
        for cases, repeats in ((14, 36), (17, 10), (30, 5)):
            design = Design(Truth(kind, (0.13, 0.08), spread=1.5, shared=0.5), cases, repeats)
            sample = _draw(design, sizes.coverage_experiments, rng)
            rate = rate_arrays(sample.counts, sample.sums, sample.squares, confidence=NOMINAL)
            means = np.asarray(design.truth.means)[None, :]
            inside = float(np.mean((rate.low <= means) & (means <= rate.high)))
            yield Row("limit: rate", design.describe(), inside, NOMINAL, 0.93, 0.97, 2 * sizes.coverage_experiments,
                      0.93 <= inside <= 0.97, "not a target")  # fmt: skip
            pair = _pair(sample, 0, 1)
            gap = design.truth.means[0] - design.truth.means[1]
            inside = float(np.mean((pair.low <= gap) & (gap <= pair.high)))
            yield Row("limit: paired difference", design.describe(), inside, NOMINAL, 0.93, 0.97,
                      sizes.coverage_experiments, 0.93 <= inside <= 0.97, "not a target")  # fmt: skip


CHECKS: dict[str, Callable[[Sizes, np.random.Generator], Iterator[Row]]] = {
    "coverage": coverage,
    "power": planned_power,
    "family-wise error": family_wise_error,
    "drift": drift_false_alarms,
}


def run(sizes: Sizes = FULL, *, seed: int = 0, checks: tuple[str, ...] = tuple(CHECKS)) -> list[Row]:
    """Every row of the chosen checks; each check draws from its own stream of `seed`."""
    rows: list[Row] = []
    for k, name in enumerate(CHECKS):
        if name in checks:
            rows += CHECKS[name](sizes, np.random.default_rng([seed, k]))
    return rows


def _draw(design: Design, experiments: int, rng: np.random.Generator) -> Draw:
    return draw(design.truth, cases=design.cases, repeats=design.repeats, experiments=experiments, rng=rng)


def _chunks(design: Design, experiments: int, rng: np.random.Generator, models: int) -> Iterator[Draw]:
    """Experiments in pieces small enough that every pair's cases fit in memory."""
    pairs = max(1, models * (models - 1) // 2)
    step = max(1, 2_000_000 // (pairs * design.cases))
    for start in range(0, experiments, step):
        yield _draw(design, min(step, experiments - start), rng)


def _pair(sample: Draw, i: int, j: int) -> PairedArrays:
    return paired_arrays(
        sample.counts[:, i], sample.sums[:, i], sample.counts[:, j], sample.sums[:, j], confidence=NOMINAL
    )


def _band(check: str, scenario: str, observed: float, expected: float, low: float, high: float, n: int) -> Row:
    return Row(check, scenario, observed, expected, low, high, n, bool(low <= observed <= high))


def monte_carlo_error(rate: float, experiments: int) -> float:
    """The standard error of a simulated share `rate` from `experiments` experiments."""
    return math.sqrt(rate * (1.0 - rate) / experiments)
