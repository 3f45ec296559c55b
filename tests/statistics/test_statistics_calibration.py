"""The calibration bench's four targets at the tests' small fixed-seed sizes, and proof that each check can fail.

`calibration.SMALL` draws fewer experiments than the bench (`scripts/bench/stats_calibration.py`), with bands
about four Monte Carlo standard errors wide. The negative controls feed the same checks a method with a
known flaw (repeats counted as independent, no adjustment for the number of pairs or metrics) and expect a
failure: a check that cannot fail checks nothing.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from hallubench.tooling.statistics import calibration
from hallubench.tooling.statistics.bounds import rate_arrays
from hallubench.tooling.statistics.calibration import SMALL, Design
from hallubench.tooling.statistics.multiplicity import adjust
from hallubench.tooling.statistics.paired import paired_arrays
from hallubench.tooling.statistics.separability import pairwise_arrays
from hallubench.tooling.statistics.synthetic import Truth, draw


@functools.cache
def _rows(check: str) -> tuple[calibration.Row, ...]:
    return tuple(calibration.run(SMALL, seed=0, checks=(check,)))


@pytest.mark.parametrize("check", list(calibration.CHECKS))
def test_each_calibration_target_is_met_at_small_sizes(check: str) -> None:
    rows = _rows(check)
    assert rows
    failed = [row.to_dict() for row in rows if not row.passed]
    assert not failed, failed


def test_the_coverage_grid_spans_both_kinds_several_correlations_and_effects() -> None:
    designs = calibration.coverage_designs()
    assert {d.truth.kind for d in designs} == {"binary", "bounded"}
    assert len({round(d.truth.icc(), 2) for d in designs}) >= 4
    assert len({d.truth.means[0] - d.truth.means[1] for d in designs}) >= 3
    assert {d.repeats for d in designs} >= {1, 3}


def _as_independent(counts: np.ndarray, sums: np.ndarray, repeats: int) -> tuple[np.ndarray, np.ndarray]:
    """Binary outcomes with each repeat made its own case: the mistake of ignoring the clustering."""
    slots = np.arange(repeats)
    hits = (slots < sums[..., None]).astype(np.float64)
    shape = (*sums.shape[:-1], sums.shape[-1] * repeats)
    return np.ones(shape), hits.reshape(shape)


def test_negative_control_an_interval_that_ignores_clustering_fails_coverage() -> None:
    truth = Truth("binary", (0.3,), spread=1.5)  # intra-case correlation 0.47: 5 repeats weigh like 2.9 cases
    sample = draw(truth, cases=100, repeats=5, experiments=SMALL.coverage_experiments, rng=np.random.default_rng(1))
    low, high = SMALL.coverage_limits(SMALL.coverage_experiments)
    right = rate_arrays(sample.counts[:, 0], sample.sums[:, 0], sample.squares[:, 0])
    counts, sums = _as_independent(sample.counts[:, 0], sample.sums[:, 0], 5)
    wrong = rate_arrays(counts, sums, sums)
    covered = [float(np.mean((r.low <= 0.3) & (r.high >= 0.3))) for r in (right, wrong)]
    assert low <= covered[0] <= high
    assert covered[1] < low, covered


def test_negative_control_unadjusted_pairs_fail_the_family_wise_error() -> None:
    design = Design(Truth("binary", (0.3,) * 10, spread=0.5, shared=0.5), 100, 1)
    sample = draw(design.truth, cases=100, repeats=1, experiments=SMALL.fwer_experiments, rng=np.random.default_rng(2))
    tests = pairwise_arrays(sample.counts, sample.sums)
    rates = [float(np.mean(np.any(adjust(tests.p, method) <= 0.05, axis=-1))) for method in ("holm", "none")]
    ceiling = SMALL.error_band(SMALL.fwer_experiments)
    assert rates[0] <= ceiling < rates[1], rates


def test_negative_control_unadjusted_metrics_fail_the_drift_false_alarm_rate() -> None:
    rng = np.random.default_rng(3)
    p_values = []
    for kind in ("binary", "bounded", "binary", "bounded"):
        sample = draw(Truth(kind, (0.4, 0.4), spread=0.5, shared=1.0), cases=80, repeats=2,
                      experiments=SMALL.drift_experiments, rng=rng)  # fmt: skip
        p_values.append(paired_arrays(sample.counts[:, 1], sample.sums[:, 1], sample.counts[:, 0], sample.sums[:, 0]).p)
    stacked = np.stack(p_values, axis=-1)
    alarms = [float(np.mean(np.any(adjust(stacked, method) <= 0.05, axis=-1))) for method in ("holm", "none")]
    assert alarms[0] <= SMALL.error_band(SMALL.drift_experiments) < alarms[1], alarms


def test_rows_are_json_ready_and_name_their_band() -> None:
    row = _rows("drift")[0]
    data = row.to_dict()
    assert data["low"] == 0.0 and data["high"] == pytest.approx(SMALL.error_band(SMALL.drift_experiments))
    assert data["note"] == "copies of one run flagged: 0"
