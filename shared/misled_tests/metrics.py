"""Rates per condition and the four primary paired comparisons of misled-tests v1.

Two denominators, always printed beside the rates:
* per test (the paper's): misled (or effective) tests / all collected tests of the condition;
  unusable replies contribute zero tests, harness-error rows are left out and counted;
* per problem: the share of problems with at least one effective (or misled) test, over the
  problems whose row is not a harness error.

Primary comparisons, fixed before any data (Bonferroni over four, so 98.75% intervals):
buggy vs fixed code, and model spec vs buggy code, each for the misled and the effective rate
per test. The statistic is the ratio of sums, recomputed on each of 10,000 resamples of
*problems* (the same resampled problems for both conditions: paired), seed 0. A difference is
called only when its interval excludes 0. The other conditions are reference rows, without
verdicts. Per-problem shares get paired intervals from `stats.paired_bootstrap_diff` as a
secondary view. Embedded into task files: standard library and numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..stats import paired_bootstrap_diff
from .conditions import BUGGY_CODE, CONDITIONS, FIXED_CODE, MODEL_SPEC

RESAMPLES = 10_000
CONFIDENCE = 0.9875
SEED = 0
PRIMARY = (
    ("misled", BUGGY_CODE, FIXED_CODE),
    ("effective", BUGGY_CODE, FIXED_CODE),
    ("misled", MODEL_SPEC, BUGGY_CODE),
    ("effective", MODEL_SPEC, BUGGY_CODE),
)
REFERENCE_CONDITIONS = tuple(c for c in CONDITIONS if c not in (BUGGY_CODE, FIXED_CODE, MODEL_SPEC))


def _scored(rows: list[dict[str, Any]], condition: str) -> dict[str, dict[str, Any]]:
    """Rows of one condition that are not harness errors, by problem (the last row wins)."""
    return {
        str(row["problem"]): row
        for row in rows
        if row.get("condition") == condition and row.get("verdict") in ("pass", "fail") and "scores" in row
    }


def _count(row: dict[str, Any], name: str) -> int:
    return int(row.get("scores", {}).get(name, 0) or 0)


def condition_summary(rows: list[dict[str, Any]], condition: str) -> dict[str, Any]:
    """One line of the condition table."""
    scored = _scored(rows, condition)
    n_tests = sum(_count(row, "n_tests") for row in scored.values())
    misled = sum(_count(row, "misled") for row in scored.values())
    effective = sum(_count(row, "effective") for row in scored.values())
    unusable: dict[str, int] = {}
    for row in scored.values():
        reason = row["scores"].get("unusable_reason")
        if reason:
            unusable[reason] = unusable.get(reason, 0) + 1
    errors = sum(1 for row in rows if row.get("condition") == condition and row.get("verdict") == "error")
    problems = len(scored)
    with_effective = sum(1 for row in scored.values() if _count(row, "effective") > 0)
    with_misled = sum(1 for row in scored.values() if _count(row, "misled") > 0)
    return {
        "condition": condition,
        "problems": problems,
        "harness_errors": errors,
        "unusable": unusable,
        "n_tests": n_tests,
        "misled": misled,
        "effective": effective,
        "misled_rate": misled / n_tests if n_tests else float("nan"),
        "effective_rate": effective / n_tests if n_tests else float("nan"),
        "problems_with_effective": with_effective,
        "problems_with_misled": with_misled,
        "problem_effective_share": with_effective / problems if problems else float("nan"),
        "problem_misled_share": with_misled / problems if problems else float("nan"),
    }


def paired_ratio_diff(
    numerator_a: npt.ArrayLike,
    denominator_a: npt.ArrayLike,
    numerator_b: npt.ArrayLike,
    denominator_b: npt.ArrayLike,
    *,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int = SEED,
) -> dict[str, Any]:
    """sum(num_a)/sum(den_a) - sum(num_b)/sum(den_b), with a paired problem-level percentile bootstrap.

    Resamples whose denominators are zero in either condition are undefined and dropped;
    their number is returned as `undefined_resamples`.
    """
    arrays = [
        np.asarray(values, dtype=np.float64) for values in (numerator_a, denominator_a, numerator_b, denominator_b)
    ]
    size = arrays[0].size
    if any(array.shape != (size,) for array in arrays):
        raise ValueError("all four arrays must be one-dimensional and of the same length")
    if size == 0 or arrays[1].sum() == 0 or arrays[3].sum() == 0:
        nan = float("nan")
        return {
            "diff": nan,
            "low": nan,
            "high": nan,
            "excludes_zero": False,
            "n_problems": size,
            "undefined_resamples": resamples,
        }
    point = arrays[0].sum() / arrays[1].sum() - arrays[2].sum() / arrays[3].sum()
    index = np.random.default_rng(seed).integers(0, size, size=(resamples, size))
    sums = [array[index].sum(axis=1) for array in arrays]
    defined = (sums[1] > 0) & (sums[3] > 0)
    diffs = sums[0][defined] / sums[1][defined] - sums[2][defined] / sums[3][defined]
    tail = (1.0 - confidence) / 2.0
    low, high = (float(value) for value in np.quantile(diffs, [tail, 1.0 - tail]))
    return {
        "diff": float(point),
        "low": low,
        "high": high,
        "excludes_zero": bool(low > 0.0 or high < 0.0),
        "n_problems": size,
        "undefined_resamples": int(resamples - defined.sum()),
    }


def compare(rows: list[dict[str, Any]], measure: str, condition_a: str, condition_b: str) -> dict[str, Any]:
    """Condition a minus condition b on `measure` (misled/effective), over problems scored in both."""
    a, b = _scored(rows, condition_a), _scored(rows, condition_b)
    problems = sorted(set(a) & set(b))
    per_test = paired_ratio_diff(
        [_count(a[p], measure) for p in problems],
        [_count(a[p], "n_tests") for p in problems],
        [_count(b[p], measure) for p in problems],
        [_count(b[p], "n_tests") for p in problems],
    )
    per_problem: dict[str, Any] = {"mean_diff": float("nan"), "low": float("nan"), "high": float("nan")}
    if problems:
        per_problem = paired_bootstrap_diff(
            [float(_count(a[p], measure) > 0) for p in problems],
            [float(_count(b[p], measure) > 0) for p in problems],
            resamples=RESAMPLES,
            confidence=CONFIDENCE,
            seed=SEED,
        )
    if per_test["excludes_zero"]:
        verdict = f"{condition_a} {'higher' if per_test['diff'] > 0 else 'lower'}"
    else:
        verdict = "no difference called"
    return {
        "measure": measure,
        "a": condition_a,
        "b": condition_b,
        "per_test": per_test,
        "per_problem": {key: per_problem[key] for key in ("mean_diff", "low", "high") if key in per_problem},
        "verdict": verdict,
        "resamples": RESAMPLES,
        "confidence": CONFIDENCE,
        "seed": SEED,
    }


def aggregate_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The aggregate of one model's rows: headline = misled share of tests written for buggy code."""
    table = [condition_summary(rows, condition) for condition in CONDITIONS]
    comparisons = [compare(rows, measure, a, b) for measure, a, b in PRIMARY]
    headline = table[CONDITIONS.index(BUGGY_CODE)]["misled_rate"]
    return {
        "headline": float(headline),
        "headline_name": "misled tests / all tests, buggy code shown",
        "metrics": {
            "conditions": table,
            "comparisons": comparisons,
            "reference_conditions": list(REFERENCE_CONDITIONS),
            "rows": len(rows),
            "harness_errors": sum(1 for row in rows if row.get("verdict") == "error"),
        },
    }
