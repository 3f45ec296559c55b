"""Drift: the same model slug run at two times on shared cases, compared metric by metric.

Kaggle records only a model's slug, and the model behind a slug can change. Two runs of one slug are
compared like two models (`paired`: case by case over the cases both ran, each case one unit), later minus
earlier, for every metric both runs have. The metrics' p-values are adjusted together (Holm by default), so
the chance of flagging a slug whose behaviour did not change is at most alpha however many metrics are
compared. Two copies of one run differ by exactly 0 on every case and are never flagged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .multiplicity import DESCRIPTIONS, adjust, check_adjustment
from .outcomes import CaseTable, ModelOutcomes, finite_or_none
from .paired import METHOD as PAIRED_METHOD
from .paired import check_confidence, pair_from_table
from .records import Record, percent


@dataclass(frozen=True)
class MetricDrift(Record):
    """One metric: the two runs' means on the shared cases, the change (later - earlier) and the call."""

    metric: str
    earlier: float | None
    later: float | None
    change: float | None
    low: float | None
    high: float | None
    p_value: float | None
    p_adjusted: float | None
    cases: int
    flagged: bool


@dataclass(frozen=True)
class Drift(Record):
    """The comparison of two runs of `model`; `flagged` when any metric changed significantly."""

    model: str
    earlier_run: str | None
    later_run: str | None
    confidence: float
    adjustment: str
    method: str
    metrics: tuple[MetricDrift, ...]
    flagged: bool
    text: str


def drift(
    earlier: Mapping[str, ModelOutcomes],
    later: Mapping[str, ModelOutcomes],
    *,
    model: str,
    earlier_run: str | None = None,
    later_run: str | None = None,
    confidence: float = 0.95,
    adjustment: str = "holm",
) -> Drift:
    """Compare two runs of `model`, each given as metric -> case -> repeat scores (runs named by date, say)."""
    check_confidence(confidence)
    check_adjustment(adjustment)
    alpha = 1.0 - confidence
    names = [m for m in earlier if m in later]
    tests = []
    for metric in names:
        table = CaseTable.from_outcomes({"later": later[metric], "earlier": earlier[metric]})
        tests.append(pair_from_table(table, 0, 1, confidence=confidence))
    adjusted = adjust([t.p_value if t.p_value is not None else float("nan") for t in tests], adjustment)
    metrics = tuple(
        MetricDrift(
            metric=metric,
            earlier=test.second_mean,
            later=test.first_mean,
            change=test.diff,
            low=test.low,
            high=test.high,
            p_value=test.p_value,
            p_adjusted=finite_or_none(float(p)),
            cases=test.cases,
            flagged=bool(p <= alpha),
        )
        for metric, test, p in zip(names, tests, adjusted.tolist(), strict=True)
    )
    flagged = any(m.flagged for m in metrics)
    runs = f"{earlier_run or 'the earlier run'} -> {later_run or 'the later run'}"
    if flagged:
        moved = "; ".join(
            f"{m.metric} {m.earlier:.3g} -> {m.later:.3g} (change {m.change:+.3g}, {percent(confidence)} interval "
            f"[{m.low:+.3g}, {m.high:+.3g}], adjusted p {m.p_adjusted:.2g})"
            for m in metrics
            if m.flagged
        )
        text = f"same slug, different behaviour: {model}, {runs}: {moved}."
    elif metrics:
        cases = max(m.cases for m in metrics)
        text = f"no significant change for {model}, {runs}: {len(metrics)} metric(s) over up to {cases} shared cases."
    else:
        text = f"nothing to compare for {model}: the two runs share no metric."
    method = f"{PAIRED_METHOD}; later minus earlier; {len(metrics)} metric(s), {DESCRIPTIONS[adjustment]}"
    return Drift(
        model=model,
        earlier_run=earlier_run,
        later_run=later_run,
        confidence=confidence,
        adjustment=adjustment,
        method=method,
        metrics=metrics,
        flagged=flagged,
        text=text,
    )
