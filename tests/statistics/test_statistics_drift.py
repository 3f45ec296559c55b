"""Drift: one slug run twice, compared metric by metric; copies are never flagged, a real change is."""

from __future__ import annotations

import json

import numpy as np

from hallubench.tooling.statistics import drift
from hallubench.tooling.statistics.synthetic import Truth, draw


def _run(truth: Truth, cases: int, repeats: int, seed: int) -> dict[str, dict[str, dict[str, list[float]]]]:
    """Two runs (rows 0 and 1 of the draw) of a binary metric, as metric -> case -> repeat scores."""
    sample = draw(truth, cases=cases, repeats=repeats, experiments=1, rng=np.random.default_rng(seed))
    runs = []
    for row in (0, 1):
        hits = sample.sums[0, row].astype(int)
        runs.append({"hallucination rate": {f"c{i}": [1.0] * h + [0.0] * (repeats - h) for i, h in enumerate(hits)}})
    return {"earlier": runs[0], "later": runs[1]}


def test_two_copies_of_one_run_are_never_flagged() -> None:
    runs = _run(Truth("binary", (0.3, 0.3), spread=0.5, shared=1.0), 100, 3, seed=1)
    found = drift(runs["earlier"], runs["earlier"], model="vendor/model")
    (metric,) = found.metrics
    assert not found.flagged and not metric.flagged
    assert (metric.change, metric.low, metric.high, metric.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert found.text.startswith("no significant change for vendor/model")


def test_a_real_change_is_flagged_with_the_dates_and_the_numbers() -> None:
    runs = _run(Truth("binary", (0.2, 0.4), spread=0.5, shared=1.0), 150, 2, seed=2)
    found = drift(
        runs["earlier"], runs["later"], model="vendor/model", earlier_run="2026-01-10", later_run="2026-03-02"
    )
    (metric,) = found.metrics
    assert found.flagged and metric.flagged
    assert metric.change is not None and metric.low is not None and metric.high is not None
    assert 0.0 < metric.low < metric.change < metric.high
    assert metric.earlier is not None and metric.later is not None
    assert metric.change == metric.later - metric.earlier
    assert found.text.startswith("same slug, different behaviour: vendor/model, 2026-01-10 -> 2026-03-02")
    json.dumps(found.to_dict(), allow_nan=False)


def test_only_shared_cases_and_shared_metrics_are_compared() -> None:
    earlier = {"rate": {"a": [1.0], "b": [0.0], "c": [1.0]}, "only-earlier": {"a": [1.0]}}
    later = {"rate": {"a": [1.0], "b": [1.0], "d": [0.0]}, "only-later": {"a": [0.0]}}
    found = drift(earlier, later, model="m")
    assert [m.metric for m in found.metrics] == ["rate"]
    (metric,) = found.metrics
    assert metric.cases == 2 and metric.earlier == 0.5 and metric.later == 1.0


def test_the_flag_accounts_for_the_number_of_metrics() -> None:
    """4 of 60 cases turn from 0 to 1 on one of four metrics: p about 0.045 alone, not a flag among four (Holm)."""
    cases = [f"c{i}" for i in range(60)]
    earlier = {f"metric-{k}": {c: [0.0] for c in cases} for k in range(4)}
    later = {f"metric-{k}": {c: [0.0] for c in cases} for k in range(4)}
    later["metric-0"] = {c: [1.0 if i < 4 else 0.0] for i, c in enumerate(cases)}
    holm = drift(earlier, later, model="m")
    raw = drift(earlier, later, model="m", adjustment="none")
    moved = holm.metrics[0]
    assert moved.p_value is not None and 0.0125 < moved.p_value < 0.05
    assert raw.flagged and raw.metrics[0].flagged
    assert not holm.flagged and moved.p_adjusted == min(1.0, 4 * moved.p_value)
    assert "Holm" in holm.method and "no adjustment" in raw.method


def test_runs_without_a_shared_metric_say_so() -> None:
    found = drift({"a": {"c": [1.0]}}, {"b": {"c": [1.0]}}, model="m")
    assert found.metrics == () and not found.flagged and "share no metric" in found.text
