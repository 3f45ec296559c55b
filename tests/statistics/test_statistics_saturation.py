"""Saturation: the verdict, the exact clean-sheet bound and the cases needed, on golden cases and clustered data."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from hallubench.tooling.statistics import cases_to_bound, rates, saturation
from hallubench.tooling.statistics.bounds import rate_arrays
from hallubench.tooling.statistics.outcomes import CaseTable
from hallubench.tooling.statistics.synthetic import Truth, draw


def _uniform(models: int, cases: int, repeats: int, score: float) -> dict[str, dict[str, list[float]]]:
    return {f"model-{m:02d}": {f"case-{c:03d}": [score] * repeats for c in range(cases)} for m in range(models)}


@pytest.mark.parametrize("index", range(5))
def test_golden_saturation_cases(golden: dict[str, Any], index: int) -> None:
    case = golden["saturation"][index]
    found = saturation(_uniform(case["models"], case["cases"], case["repeats"], case["score"]), margin=case["margin"])
    assert found.verdict == case["verdict"], found.text
    assert found.end == case["end"]
    assert found.share_at_floor == case["share_at_floor"]
    assert found.share_at_ceiling == case["share_at_ceiling"]
    assert found.any_separable is case["any_separable"]
    assert found.cases_needed == case["cases_needed"]
    assert found.models == case["models"]
    assert found.far_bound == pytest.approx(case["bound"], rel=1e-9)
    edge = "high" if case["end"] == "floor" else "low"
    assert all(getattr(rate, edge) == pytest.approx(case["bound"], rel=1e-9) for rate in found.rates)
    json.dumps(found.to_dict(), allow_nan=False)


def test_the_v6_verdict_says_saturated_with_the_bound_and_the_cases_a_one_percent_rate_needs() -> None:
    found = saturation(_uniform(36, 504, 1, 0.0), margin=0.01)
    assert found.text.startswith("saturated for these models")
    for number in ("0.729 %", "368 cases", "1 %", "36 models"):
        assert number in found.text, found.text


def test_cases_to_bound_is_the_smallest_number_that_rules_the_margin_out() -> None:
    for margin in (0.001, 0.01, 0.02, 0.05, 0.1, 0.3):
        n = cases_to_bound(margin)
        at = rates(CaseTable.from_outcomes(_uniform(1, n, 1, 0.0)))[0]
        before = rates(CaseTable.from_outcomes(_uniform(1, n - 1, 1, 0.0)))[0] if n > 1 else None
        assert at.high is not None and at.high < margin
        assert before is None or (before.high is not None and before.high >= margin)


def test_repeats_of_a_clean_sheet_do_not_count_as_cases() -> None:
    """14 cases x 36 repeats all at 0 is not 504 independent zeros: the bound counts the 14 cases."""
    many_repeats = rates(CaseTable.from_outcomes(_uniform(1, 14, 36, 0.0)))[0]
    many_cases = rates(CaseTable.from_outcomes(_uniform(1, 504, 1, 0.0)))[0]
    assert many_repeats.high is not None and many_cases.high is not None
    assert many_repeats.high > 0.2 > 0.01 > many_cases.high


def _clean_sheet_misses(mean: float, rng: np.random.Generator, experiments: int) -> tuple[float, float]:
    """Share of clean sheets, and of clean sheets whose upper bound excludes the truth: 14 cases x 36 near-copies."""
    truth = Truth("binary", (mean,), spread=6.0)  # repeats of a case almost always agree (intra-case correlation ~1)
    sample = draw(truth, cases=14, repeats=36, experiments=experiments, rng=rng)
    found = rate_arrays(sample.counts[:, 0], sample.sums[:, 0], sample.squares[:, 0])
    clean = found.mean == 0.0
    return float(np.mean(clean)), float(np.mean(clean & (found.high < mean)))


def test_a_clean_sheet_of_near_copies_is_bounded_by_its_cases_not_its_scores(rng: np.random.Generator) -> None:
    """At a true rate of 5 %, 14 cases of 36 near-identical repeats are all zero about a quarter of the time.

    Counting 504 scores would put the bound at 0.73 % and exclude the truth every time; counting cases never.
    """
    clean, misses = _clean_sheet_misses(0.05, rng, 4000)
    assert clean > 0.2  # the hard case is common
    assert misses <= 0.025, misses


def test_the_clean_sheet_bound_is_two_sided_exact_under_clustering(rng: np.random.Generator) -> None:
    """At a true rate of 21 % a clean sheet of 14 cases has probability up to 0.79^14 = 3.7 %.

    The two-sided 95 % bound (23.2 %) keeps it; a one-sided bound (19.3 %) or a bound over scores would exclude
    the truth on every clean sheet, more often than the 2.5 % a 95 % interval allows on that side.
    """
    experiments = 20000
    _, misses = _clean_sheet_misses(0.21, rng, experiments)
    assert misses <= 0.025 + 3 * np.sqrt(0.025 * 0.975 / experiments), misses


def test_models_with_headroom_are_not_saturated_and_the_verdict_counts_them() -> None:
    outcomes = _uniform(3, 504, 1, 0.0)
    outcomes["model-00"] = {f"case-{c:03d}": [1.0 if c % 2 else 0.0] for c in range(504)}
    found = saturation(outcomes, margin=0.01)
    assert found.verdict == "not saturated"
    assert found.end is None
    assert found.any_separable and found.separable_pairs == 2
    assert found.share_at_floor == pytest.approx(2 / 3)
    assert found.text.startswith("not saturated: 1 of 3 models may score 1 % or more above the floor and 3 as far")


def test_a_single_event_can_break_saturation_at_the_margin() -> None:
    """One hallucination among 504 cases: the upper bound passes 1 %, so no verdict of saturation."""
    outcomes = _uniform(36, 504, 1, 0.0)
    outcomes["model-07"] = {**outcomes["model-07"], "case-000": [1.0]}
    found = saturation(outcomes, margin=0.01)
    assert found.verdict == "not saturated", found.text
    assert found.share_at_floor == pytest.approx(35 / 36)
    assert not found.any_separable


def test_saturation_refuses_outcomes_without_scores() -> None:
    with pytest.raises(ValueError, match="no model has any score"):
        saturation({"a": {"c": []}})
