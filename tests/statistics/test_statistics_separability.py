"""Pairwise separability: the paired test against scipy, Holm against worked values, letters that mean one thing."""

from __future__ import annotations

import itertools
import json
from typing import Any

import numpy as np
import pytest
from scipy import stats

from hallubench.tooling.statistics import CaseTable, adjust, paired_difference, separability
from hallubench.tooling.statistics.multiplicity import groups
from hallubench.tooling.statistics.separability import pair_indices, pairwise_arrays


def _tiers(means: dict[str, float], cases: int, seed: int, repeats: int = 1) -> dict[str, dict[str, list[float]]]:
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 0.1, size=cases)
    out = {}
    for name, mean in means.items():
        centre = np.clip(mean + difficulty, 0.0, 1.0)
        scores = np.clip(centre[:, None] + rng.normal(0.0, 0.1, size=(cases, repeats)), 0.0, 1.0)
        out[name] = {f"c{i}": [float(v) for v in scores[i]] for i in range(cases)}
    return out


@pytest.mark.parametrize("name", ["four tests", "a missing test"])
def test_holm_and_bonferroni_match_worked_values(golden: dict[str, Any], name: str) -> None:
    case = next(c for c in golden["holm"] if c["name"].startswith(name))
    p = [np.nan if v is None else v for v in case["p"]]
    for method in ("holm", "bonferroni"):
        expected = [np.nan if v is None else v for v in case[method]]
        np.testing.assert_allclose(adjust(p, method), expected, rtol=1e-12)
    np.testing.assert_allclose(adjust(p, "none"), p)


def test_holm_is_never_stricter_than_bonferroni_and_never_looser_than_no_adjustment() -> None:
    p = np.random.default_rng(1).uniform(0, 0.2, size=(200, 12)) ** 2
    holm, bonferroni = adjust(p, "holm"), adjust(p, "bonferroni")
    assert np.all(holm <= bonferroni + 1e-15) and np.all(holm >= p - 1e-15)
    assert np.any(holm < bonferroni)  # step-down gains somewhere


def test_the_paired_test_with_one_repeat_is_scipys_paired_t_test() -> None:
    rng = np.random.default_rng(2)
    a, b = rng.uniform(0, 1, 40), rng.uniform(0, 1, 40) * 0.8
    found = paired_difference({f"c{i}": [v] for i, v in enumerate(a)}, {f"c{i}": [v] for i, v in enumerate(b)})
    reference = stats.ttest_rel(a, b)
    interval = reference.confidence_interval(0.95)
    assert found.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    assert (found.low, found.high) == (pytest.approx(interval.low), pytest.approx(interval.high))
    assert found.cases == 40 and found.diff == pytest.approx(float(np.mean(a - b)))


def test_repeats_are_averaged_within_a_case_not_counted_as_cases() -> None:
    """Each case's repeats copied ten times: the same means, the same p-value (a score-level test would shrink it)."""
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0, 1, 30), rng.uniform(0, 1, 30)
    once = paired_difference({f"c{i}": [v] for i, v in enumerate(a)}, {f"c{i}": [v] for i, v in enumerate(b)})
    copied = paired_difference(
        {f"c{i}": [v] * 10 for i, v in enumerate(a)}, {f"c{i}": [v] * 10 for i, v in enumerate(b)}
    )
    assert copied.p_value == pytest.approx(once.p_value, rel=1e-9)
    assert copied.cases == once.cases == 30


def test_a_constant_gap_on_few_cases_gets_the_exact_sign_flip_p_value() -> None:
    base = [0.2, 0.5, 0.7, 0.4, 0.9]
    better = paired_difference(
        {f"c{i}": [v + 0.1] for i, v in enumerate(base)}, {f"c{i}": [v] for i, v in enumerate(base)}
    )
    assert better.diff == pytest.approx(0.1)
    assert better.p_value == pytest.approx(2 / 2**5)  # all 5 cases moved the same way: not significant at 5 %
    same = paired_difference({"c": [0.3, 0.4], "d": [1.0]}, {"c": [0.3, 0.4], "d": [1.0]})
    assert same.diff == 0.0 and same.p_value == 1.0


def test_the_vectorised_pairs_equal_one_pair_at_a_time_with_missing_cases() -> None:
    outcomes = _tiers({"a": 0.6, "b": 0.5, "c": 0.55, "d": 0.3}, 25, seed=4, repeats=2)
    del outcomes["b"]["c3"], outcomes["d"]["c7"], outcomes["d"]["c8"]
    table = CaseTable.from_outcomes(outcomes)
    together = pairwise_arrays(table.counts, table.sums)
    first, second = pair_indices(len(table.models))
    for k, (i, j) in enumerate(zip(first, second, strict=True)):
        one = paired_difference(outcomes[table.models[i]], outcomes[table.models[j]])
        assert one.p_value == pytest.approx(float(together.p[k]), rel=1e-9)
        assert one.diff == pytest.approx(float(together.diff[k]), rel=1e-12)
        complete = {table.models[i], table.models[j]} == {"a", "c"}
        assert one.cases == int(together.cases[k]) == (25 if complete else one.cases) and (complete or one.cases < 25)


def test_three_clear_tiers_get_three_letters_and_every_call_is_named() -> None:
    outcomes = _tiers({"top": 0.8, "top2": 0.8, "mid": 0.5, "low": 0.2, "low2": 0.2}, 60, seed=5)
    found = separability(outcomes)
    letters = {s.model: s.letters for s in found.models}
    assert letters["top"] == letters["top2"] != letters["mid"] != letters["low"] == letters["low2"]
    assert len(found.groups) == 3 and found.any_separable
    assert "Holm" in found.method and found.adjustment == "holm"
    assert [s.rank for s in found.models][:1] == [1]
    json.dumps(found.to_dict(), allow_nan=False)


def test_models_share_a_letter_exactly_when_they_are_not_separable() -> None:
    """At 3 models and at 36, on data with overlapping tiers: the letters say what the pairs say, both ways."""
    rng = np.random.default_rng(6)
    for count in (3, 8, 36):
        means = {f"m{k:02d}": float(rng.uniform(0.3, 0.7)) for k in range(count)}
        found = separability(_tiers(means, 80, seed=count))
        letters = {s.model: set(s.letters) for s in found.models}
        apart = {frozenset((p.first, p.second)) for p in found.pairs if p.separable}
        assert 0 < len(apart) < len(found.pairs)  # both kinds of pair occur
        for a, b in itertools.combinations(means, 2):
            assert bool(letters[a] & letters[b]) == (frozenset((a, b)) not in apart), (count, a, b)


def test_letters_hold_when_neighbours_are_separable_but_a_wider_pair_is_not() -> None:
    """B ranks between A and C; A-B separable, A-C and B-C not: runs of ranks would put A and C apart."""
    found = groups(["A", "B", "C"], {frozenset(("A", "B"))})
    assert found == [["A", "C"], ["B", "C"]]


def test_no_adjustment_is_named_as_such_and_calls_more_pairs() -> None:
    outcomes = _tiers({f"m{k}": 0.5 + 0.02 * k for k in range(8)}, 60, seed=7)
    holm = separability(outcomes)
    raw = separability(outcomes, adjustment="none")
    assert "no adjustment" in raw.method and "chance" in raw.method
    assert sum(p.separable for p in raw.pairs) >= sum(p.separable for p in holm.pairs)
    assert {(p.first, p.second) for p in holm.pairs if p.separable} <= {
        (p.first, p.second) for p in raw.pairs if p.separable
    }


def test_lower_is_better_ranks_the_smallest_first_and_pairs_read_first_minus_second() -> None:
    outcomes = _tiers({"bad": 0.6, "good": 0.1}, 40, seed=8)
    found = separability(outcomes, higher_is_better=False)
    assert [s.model for s in found.models] == ["good", "bad"]
    (pair,) = found.pairs
    assert (pair.first, pair.second) == ("good", "bad") and pair.diff is not None and pair.diff < 0


def test_models_without_scores_are_listed_without_rank_or_letters() -> None:
    outcomes = {"a": {"c1": [1.0], "c2": [0.0]}, "b": {"c1": [0.0], "c2": [0.0]}, "none": {"c1": []}}
    found = separability(outcomes)
    last = found.models[-1]
    assert (last.model, last.mean, last.rank, last.letters) == ("none", None, None, "")
    assert len(found.pairs) == 1


def test_unknown_adjustment_is_refused() -> None:
    with pytest.raises(ValueError, match="adjustment"):
        separability({"a": {"c": [1.0]}}, adjustment="fdr")
