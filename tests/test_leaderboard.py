"""`hallubench.leaderboard`: which entries a paired bootstrap can tell apart, and the groups it cannot split."""

from __future__ import annotations

import random

import pytest

from hallubench.tooling.csv_cells import cell
from hallubench.tooling.leaderboard import Entry, leaderboard, units_from


def _entry(name: str, values: list[float], kind: str = "model") -> Entry:
    return Entry(name, kind, {f"c{i}": (v, 1.0) for i, v in enumerate(values)}, {"cases": len(values)})


def _noisy(mean: float, n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [min(1.0, max(0.0, mean + rng.uniform(-0.2, 0.2))) for _ in range(n)]


def test_far_apart_entries_are_separable_and_in_different_groups() -> None:
    board = leaderboard("score", [_entry("low", _noisy(0.2, 40, 1)), _entry("high", _noisy(0.8, 40, 2))],
                        higher_is_better=True)  # fmt: skip
    assert [e["name"] for e in board["entries"]] == ["high", "low"]
    (pair,) = board["pairs"]
    assert pair["separable"] and pair["low"] > 0.4
    assert [g["members"] for g in board["groups"]] == [["high"], ["low"]]
    assert board["entries"][0]["groups"] == ["a"] and board["entries"][1]["groups"] == ["b"]


def test_entries_whose_paired_differences_straddle_zero_share_a_group() -> None:
    a = [0.5, 0.6, 0.4, 0.5, 0.7, 0.3]
    b = [0.6, 0.5, 0.5, 0.4, 0.6, 0.4]  # better on some cases, worse on others
    board = leaderboard("score", [_entry("a", a), _entry("b", b)], higher_is_better=True)
    (pair,) = board["pairs"]
    assert not pair["separable"] and pair["low"] < 0 < pair["high"]
    assert board["groups"] == [{"label": "a", "members": ["a", "b"]}]


def test_a_constant_gap_on_the_same_cases_is_separable_however_small() -> None:
    """Paired: the cases' shared difficulty cancels, so a consistent 0.01 gap is real."""
    base = _noisy(0.5, 30, 3)
    board = leaderboard("score", [_entry("a", base), _entry("b", [v + 0.01 for v in base])], higher_is_better=True)
    assert board["pairs"][0]["separable"]


def test_a_chain_of_inseparable_neighbours_gives_overlapping_groups() -> None:
    """a ~ b and b ~ c, but a and c apart: b belongs to both groups (a compact letter display)."""
    base = _noisy(0.5, 20, 5)
    swing = [0.5 if i % 2 else -0.5 for i in range(20)]  # b is far better or far worse, case by case
    a = [v + 0.1 for v in base]
    b = [v + 0.05 + w for v, w in zip(base, swing, strict=True)]
    c = base
    board = leaderboard("score", [_entry("a", a), _entry("b", b), _entry("c", c)], higher_is_better=True)
    apart = {frozenset((p["a"], p["b"])) for p in board["pairs"] if p["separable"]}
    assert apart == {frozenset(("a", "c"))}, board["pairs"]
    assert [g["members"] for g in board["groups"]] == [["a", "b"], ["b", "c"]]
    assert next(e for e in board["entries"] if e["name"] == "b")["groups"] == ["a", "b"]


def test_lower_is_better_ranks_the_smallest_rate_first() -> None:
    board = leaderboard("rate", [_entry("bad", [1, 1, 0, 1]), _entry("good", [0, 0, 1, 0])], higher_is_better=False)
    assert [e["name"] for e in board["entries"]] == ["good", "bad"]


def test_ratios_of_sums_weigh_each_unit_by_its_denominator() -> None:
    """A rate per reference: 1 of 10 and 3 of 10 and 0 of 0 is 4/20, not the mean of per-sample rates."""
    entry = Entry("m", "model", {"s1": (1.0, 10.0), "s2": (3.0, 10.0), "s3": (0.0, 0.0)})
    board = leaderboard("rate", [entry], higher_is_better=False)
    line = board["entries"][0]
    assert line["value"] == pytest.approx(0.2)
    assert line["low"] is not None and line["low"] <= 0.2 <= line["high"]


def test_undefined_entries_and_too_few_shared_units_are_said_not_guessed() -> None:
    empty = Entry("no-refs", "model", {"s1": (0.0, 0.0)})
    one = _entry("one-case", [0.4])
    other = _entry("other", [0.9, 0.8])
    board = leaderboard("rate", [empty, one, other], higher_is_better=True)
    undefined = next(e for e in board["entries"] if e["name"] == "no-refs")
    assert undefined["value"] is None and undefined["groups"] == [] and board["entries"][-1] is undefined
    pair = next(p for p in board["pairs"] if {p["a"], p["b"]} == {"one-case", "other"})
    assert not pair["separable"] and pair["low"] is None and "fewer than 2" in pair["why"]
    assert pair["diff"] == pytest.approx(-0.5) or pair["diff"] == pytest.approx(0.5)


def test_a_unit_seen_twice_is_summed_into_one() -> None:
    assert units_from([("c1", 0.5, 1), ("c1", 0.7, 1), ("c2", 0.0, 1)]) == {"c1": (1.2, 2.0), "c2": (0.0, 1.0)}


def test_csv_cells_round_floats_and_empty_undefined_numbers() -> None:
    assert cell(0.9499999999999998) == 0.95
    assert str(cell(0.1 + 0.2)) == "0.3"
    assert cell(float("nan")) == "" and cell(None) == ""
    assert cell(3) == 3 and cell("x") == "x"
