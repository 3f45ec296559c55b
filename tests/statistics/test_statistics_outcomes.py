"""The input: outcomes are checked before any statistic is computed, and counts are the same data as scores."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from hallubench.tooling.statistics import CaseTable, rates, separability
from hallubench.tooling.statistics.records import Record


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ([0.5, math.nan], "NaN or infinite"),
        ([math.inf], "NaN or infinite"),
        ([1.2], r"lie in \[0, 1\]"),
        ([-0.1], r"lie in \[0, 1\]"),
        (["x"], "must be numbers"),
        ("0.5", "sequence of numbers"),
    ],
)
def test_bad_scores_are_refused_with_the_case_named(scores: object, message: str) -> None:
    with pytest.raises(ValueError, match=message) as raised:
        CaseTable.from_outcomes({"m": {"case-7": scores}})  # type: ignore[dict-item]
    assert "case-7" in str(raised.value)


def test_counts_and_expanded_scores_give_the_same_table_and_the_same_statistics() -> None:
    counts = {"a": {"p1": (3, 10), "p2": (0, 4)}, "b": {"p1": (5, 10), "p2": (1, 4)}}
    scores = {m: {c: [1.0] * h + [0.0] * (n - h) for c, (h, n) in per.items()} for m, per in counts.items()}
    one, other = CaseTable.from_counts(counts), CaseTable.from_outcomes(scores)
    for field in ("counts", "sums", "squares"):
        np.testing.assert_array_equal(getattr(one, field), getattr(other, field))
    assert rates(one) == rates(other)
    assert one.estimates()[0] == pytest.approx(3 / 14)  # a rate per score (ratio of sums), not a mean of case rates


@pytest.mark.parametrize("bad", [(5, 3), (-1, 3), (1.5, 3), (True, 3)])
def test_bad_counts_are_refused(bad: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="case 'p'"):
        CaseTable.from_counts({"m": {"p": bad}})


def test_a_case_without_scores_is_not_run_and_nothing_turns_into_nan_in_json() -> None:
    table = CaseTable.from_outcomes({"a": {"c1": [1.0], "c2": []}, "b": {"c1": [0.0], "c2": [0.5]}, "c": {}})
    assert table.counts[0].tolist() == [1.0, 0.0]
    (a, b, c) = rates(table)
    assert a.cases == 1 and b.cases == 2 and c.mean is None and c.low is None
    json.dumps(separability(table).to_dict(), allow_nan=False)


def test_records_turn_nested_values_into_plain_json() -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Inner(Record):
        value: float

    @dataclass(frozen=True)
    class Outer(Record):
        items: tuple[Inner, ...]
        table: dict[str, float]

    data = Outer((Inner(math.nan), Inner(0.5)), {"x": math.inf}).to_dict()
    assert data == {"items": [{"value": None}, {"value": 0.5}], "table": {"x": None}}
