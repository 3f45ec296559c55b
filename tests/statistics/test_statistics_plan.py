"""Power planning: variance components recovered from pilots, power against independent formulas, plans that agree."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from hallubench.tooling.statistics import (
    CaseTable,
    Components,
    cases_needed,
    minimum_detectable,
    plan,
    plan_pair,
    plan_single,
    power,
    repeats_needed,
)
from hallubench.tooling.statistics.plan import model_components, pair_components
from hallubench.tooling.statistics.synthetic import Truth, draw


def _table(truth: Truth, cases: int, repeats: int, seed: int) -> CaseTable:
    sample = draw(truth, cases=cases, repeats=repeats, experiments=1, rng=np.random.default_rng(seed))
    names = tuple(f"m{k}" for k in range(len(truth.means)))
    return CaseTable(names, tuple(f"c{i}" for i in range(cases)), sample.counts[0], sample.sums[0], sample.squares[0])


def _outcomes(table: CaseTable, repeats: int) -> dict[str, dict[str, list[float]]]:
    """Binary outcomes as score lists (hits first), so the dict interface sees the same data as the table."""
    return {
        model: {
            case: [1.0] * int(table.sums[m, c]) + [0.0] * (repeats - int(table.sums[m, c]))
            for c, case in enumerate(table.cases)
        }
        for m, model in enumerate(table.models)
    }


@pytest.mark.parametrize("kind", ["binary", "bounded"])
def test_variance_components_recover_the_true_intra_case_correlation(kind: str) -> None:
    truth = Truth(kind, (0.3,), spread=0.8)
    table = _table(truth, 3000, 4, seed=1)
    icc = model_components(table, 0).icc()
    assert icc is not None and icc == pytest.approx(truth.icc(), abs=0.03)


def test_power_matches_the_normal_approximation_for_many_cases() -> None:
    """With thousands of cases the t test is the z test: power = Phi(d/se - z) + Phi(-d/se - z)."""
    components = Components(between=0.02, within=0.3, within_known=True, cases=50, repeats=3)
    for cases, repeats, diff in ((5000, 3, 0.01), (20000, 1, 0.006), (3000, 10, 0.012)):
        se = math.sqrt((0.02 + 0.3 / repeats) / cases)
        z = stats.norm.ppf(0.975)
        expected = stats.norm.cdf(diff / se - z) + stats.norm.cdf(-diff / se - z)
        assert power(components, diff=diff, cases=cases, repeats=repeats) == pytest.approx(expected, abs=2e-3)


def test_power_is_the_level_with_no_difference_and_grows_with_cases_and_repeats() -> None:
    components = Components(between=0.01, within=0.2, within_known=True, cases=40, repeats=2)
    assert power(components, diff=0.0, cases=100, repeats=2) == pytest.approx(0.05, abs=1e-9)
    assert power(components, diff=0.0, cases=100, repeats=2, comparisons=10) == pytest.approx(0.005, abs=1e-9)
    ladder = [power(components, diff=0.05, cases=n, repeats=r) for n, r in ((50, 1), (100, 1), (100, 4), (400, 4))]
    assert ladder == sorted(ladder) and ladder[0] < 0.5 < ladder[-1]


def test_cases_needed_and_the_minimum_detectable_difference_are_one_curve_read_two_ways() -> None:
    components = Components(between=0.015, within=0.25, within_known=True, cases=60, repeats=3)
    for diff in (0.03, 0.05, 0.1):
        needed = cases_needed(components, diff=diff, repeats=3)
        assert needed is not None and needed > 2
        assert minimum_detectable(components, cases=needed, repeats=3) <= diff
        assert minimum_detectable(components, cases=needed - 1, repeats=3) > diff


def test_repeats_help_only_until_the_between_case_part_dominates() -> None:
    components = Components(between=0.04, within=0.2, within_known=True, cases=30, repeats=2)
    reachable = repeats_needed(components, diff=0.15, cases=30)
    assert reachable is not None and power(components, diff=0.15, cases=30, repeats=reachable) >= 0.8
    assert power(components, diff=0.15, cases=30, repeats=reachable - 1) < 0.8 or reachable == 1
    # 30 cases with infinitely many repeats still have variance 0.04 / 30: a 0.05 difference is out of reach
    assert repeats_needed(components, diff=0.05, cases=30) is None


def test_a_two_model_pilot_plan_is_complete_and_json_ready() -> None:
    truth = Truth("binary", (0.35, 0.3), spread=0.6, shared=0.5)
    table = _table(truth, 60, 3, seed=4)
    found = plan(_outcomes(table, 3), detect=0.05)
    assert len(found) == 1
    (pair,) = found
    assert (pair.first, pair.second, pair.cases, pair.repeats) == ("m0", "m1", 60, 3.0)
    assert pair.mdd is not None and pair.mdd > 0.05  # 60 cases cannot see 5 points
    assert pair.power_at_detect is not None and pair.power_at_detect < 0.8
    assert [o.repeats for o in pair.options] == [1, 2, 3, 5, 10]
    cases = [o.cases for o in pair.options]
    assert all(c is not None for c in cases) and cases == sorted(cases, reverse=True)  # type: ignore[type-var]
    assert all(o.power is not None and o.power >= 0.8 for o in pair.options)
    assert pair.power_at(pair.mdd) == pytest.approx(0.8, abs=1e-6)
    json.dumps(pair.to_dict(), allow_nan=False)
    assert pair.to_dict()["components"]["within_known"] is True


def test_the_dict_interface_and_the_table_agree() -> None:
    truth = Truth("binary", (0.4, 0.3), spread=0.5)
    table = _table(truth, 40, 2, seed=5)
    from_dicts = plan(_outcomes(table, 2), detect=0.1)[0]
    from_table = plan_pair(table, "m0", "m1", detect=0.1)
    assert from_dicts.components == from_table.components
    assert from_dicts.mdd == pytest.approx(from_table.mdd)


def test_one_repeat_per_case_says_repeats_cannot_be_planned() -> None:
    truth = Truth("binary", (0.5, 0.4), spread=0.5)
    table = _table(truth, 200, 1, seed=6)
    found = plan_pair(table, "m0", "m1", detect=0.1)
    assert not found.components.within_known and found.icc is None
    assert [o.repeats for o in found.options] == [1]
    assert found.repeats_at_current_cases is None
    assert any("one repeat per case" in note for note in found.notes)


def test_a_pilot_without_variation_gives_no_plan_and_says_why() -> None:
    zeros = {m: {f"c{i}": [0.0, 0.0] for i in range(30)} for m in ("a", "b")}
    (found,) = plan(zeros, detect=0.05)
    assert found.mdd is None and found.options == () and found.power_at_detect is None
    assert any("saturation" in note for note in found.notes)
    assert found.power_at(0.1) is None


def test_one_model_plans_against_a_like_model_and_correlation_only_helps() -> None:
    rng = np.random.default_rng(7)
    centres = rng.beta(2.0, 2.0, size=80)
    scores = {f"c{i}": [float(v) for v in rng.beta(10 * m, 10 * (1 - m), size=3)] for i, m in enumerate(centres)}
    (alone,) = plan({"m0": scores}, detect=0.05)
    assert alone.second is None and alone.assumption is not None and "correlated 0" in alone.assumption
    one = model_components(CaseTable.from_outcomes({"m0": scores}), 0)
    assert one.within_known and one.between > 0 and one.within > 0
    assert alone.components.between == pytest.approx(2 * one.between)
    assert alone.components.within == pytest.approx(2 * one.within)
    related = plan_single(CaseTable.from_outcomes({"m0": scores}), "m0", detect=0.05, correlation=0.6)
    assert related.components.between == pytest.approx(0.8 * one.between)
    assert related.mdd is not None and alone.mdd is not None and related.mdd < alone.mdd


def test_more_comparisons_need_more_cases() -> None:
    components = Components(between=0.01, within=0.2, within_known=True, cases=50, repeats=2)
    one = cases_needed(components, diff=0.05, repeats=2)
    many = cases_needed(components, diff=0.05, repeats=2, comparisons=630)
    assert one is not None and many is not None and many > 1.5 * one


def test_pair_components_use_only_shared_cases() -> None:
    a = {"c1": [1.0, 0.0], "c2": [1.0, 1.0], "c3": [0.0, 0.0], "only-a": [1.0, 1.0]}
    b = {"c1": [0.0, 0.0], "c2": [1.0, 0.0], "c3": [0.0, 1.0], "only-b": [0.0]}
    table = CaseTable.from_outcomes({"a": a, "b": b})
    components = pair_components(table, 0, 1)
    assert components.cases == 3
    # within: each side's pooled repeat variance over the shared cases: a (0.5 + 0 + 0) / 3, b (0 + 0.5 + 0.5) / 3
    assert components.within == pytest.approx(0.5 / 3 + 1.0 / 3)
    found = plan_pair(table, "a", "b")
    assert found.observed_diff == pytest.approx((3 / 6) - (2 / 6))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"detect": 0.0}, "difference to detect"),
        ({"detect": 1.5}, "difference to detect"),
        ({"alpha": 0.0}, "confidence"),
        ({"target": 0.01}, "target power"),
        ({"comparisons": 0}, "comparisons"),
    ],
)
def test_bad_settings_are_refused(options: dict[str, float], message: str) -> None:
    table = CaseTable.from_outcomes({"a": {"c1": [1.0], "c2": [0.0]}, "b": {"c1": [0.0], "c2": [0.0]}})
    with pytest.raises(ValueError, match=message):
        plan_pair(table, "a", "b", **options)  # type: ignore[arg-type]


def test_power_far_in_the_tail_is_one_not_nan() -> None:
    """scipy's noncentral t underflows to nan for large shifts; a power curve must still read 1 there."""
    components = Components(between=0.01, within=0.0, within_known=False, cases=20, repeats=1.0)
    for cases in (10, 20, 40, 400):
        found = power(components, diff=0.9, cases=cases, repeats=1.0)
        assert found == 1.0
    assert 0.05 < power(components, diff=0.02, cases=10, repeats=1.0) < 1.0
