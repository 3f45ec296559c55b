"""The input every analysis here reads: per model, per case, the scores of its repeats.

`Outcomes` maps a model name to its cases, and each case id to the scores of that case's repeats (one score
when a case ran once). A score is a binary outcome (0 or 1) or a bounded continuous one in [0, 1]. A case
with no scores is treated as not run. The analyses see this as a `CaseTable`: per model and case the
number of scores, their sum and the sum of their squares, which is all they need (a rate per repeat, the
spread between cases and within a case), so counts such as "3 of 10 tests misled" go in without being
expanded into ten scores (`CaseTable.from_counts`).

The estimate of a model is the mean over all its scores (a ratio of sums over cases: a case run more often
weighs more, as in `hallubench.tooling.leaderboard`); with the same repeats everywhere it is the mean of the
case means. Cases, not scores, are the independent units: scores of one case share its difficulty.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]
ModelOutcomes = Mapping[str, Sequence[float]]
Outcomes = Mapping[str, ModelOutcomes]


@dataclass(frozen=True)
class CaseTable:
    """Per model (rows) and case (columns): the number of scores, their sum and their sum of squares.

    A case a model did not run has count 0. Case ids are sorted, so two tables of the same data agree.
    """

    models: tuple[str, ...]
    cases: tuple[str, ...]
    counts: Array
    sums: Array
    squares: Array

    @classmethod
    def from_outcomes(cls, outcomes: Outcomes) -> CaseTable:
        """The table of `outcomes`, after checking every score is a finite number in [0, 1]."""
        models = tuple(str(m) for m in outcomes)
        if len(set(models)) != len(models):
            raise ValueError("model names must be distinct")
        cases = tuple(sorted({str(c) for per_case in outcomes.values() for c in per_case}))
        column = {case: j for j, case in enumerate(cases)}
        shape = (len(models), len(cases))
        counts, sums, squares = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        for i, model in enumerate(outcomes.values()):
            for case, scores in model.items():
                values = _scores(scores, f"case {case!r}")
                j = column[str(case)]
                counts[i, j] += values.size
                sums[i, j] += values.sum()
                squares[i, j] += (values * values).sum()
        return cls(models, cases, counts, sums, squares)

    @classmethod
    def from_counts(cls, counts: Mapping[str, Mapping[str, tuple[int, int]]]) -> CaseTable:
        """The table of binary outcomes given as (successes, trials) per model and case."""
        models = tuple(str(m) for m in counts)
        cases = tuple(sorted({str(c) for per_case in counts.values() for c in per_case}))
        column = {case: j for j, case in enumerate(cases)}
        shape = (len(models), len(cases))
        trials, successes = np.zeros(shape), np.zeros(shape)
        for i, model in enumerate(counts.values()):
            for case, (hits, total) in model.items():
                if isinstance(hits, bool) or isinstance(total, bool) or int(hits) != hits or int(total) != total:
                    raise ValueError(f"case {case!r}: successes and trials must be integers")
                if not 0 <= hits <= total:
                    raise ValueError(f"case {case!r}: need 0 <= successes <= trials, got {hits} of {total}")
                j = column[str(case)]
                trials[i, j] += total
                successes[i, j] += hits
        return cls(models, cases, trials, successes, successes.copy())

    def row(self, model: str) -> int:
        """The row of `model`."""
        return self.models.index(model)

    def estimates(self) -> Array:
        """Each model's mean score (nan for a model without scores)."""
        total: Array = self.counts.sum(axis=1)
        means: Array = np.where(total > 0, self.sums.sum(axis=1) / np.where(total > 0, total, 1.0), np.nan)
        return means


def _scores(scores: Sequence[float], where: str) -> Array:
    if isinstance(scores, str | bytes):
        raise ValueError(f"{where}: the scores must be a sequence of numbers")
    try:
        values = np.asarray([float(s) for s in scores], dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: the scores must be numbers: {exc}") from exc
    if not bool(np.all(np.isfinite(values))):
        raise ValueError(f"{where}: a score is NaN or infinite; leave unscored repeats out")
    if bool(np.any((values < 0.0) | (values > 1.0))):
        raise ValueError(f"{where}: scores must lie in [0, 1]")
    return values


def finite_or_none(value: float) -> float | None:
    """`value`, or None where it is not a number (JSON has no NaN)."""
    return float(value) if math.isfinite(value) else None
