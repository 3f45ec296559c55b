"""Same slug, different behaviour: the drift check over one model's runs started on different days.

Kaggle records only a model's slug, and the model behind a slug can change. When the verified rows of one
model come from runs started on different days and share cases, the headline of the earliest and of the
latest run are compared on the shared clusters, together with every other metric the headline carries
(`Headline.also`), each with a paired, cluster-robust test, adjusted over the metrics
(`hallubench.tooling.statistics.drift`). Runs started the same day count as one run, so two copies of one
run never drift.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ..headline import HeadlineFunction
from ..statistics import Drift, drift

MIN_SHARED = 2  # clusters two runs must share for a paired comparison


def run_day(started: datetime | None) -> str | None:
    """The UTC day a run started, as the drift check names it."""
    return started.date().isoformat() if started is not None else None


def drifts(
    rows_by_model: Mapping[str, Sequence[tuple[datetime | None, Mapping[str, Any]]]],
    headline: HeadlineFunction,
) -> tuple[list[Drift], list[str]]:
    """Per model with runs on two or more days: the earliest day against the latest. Also the notes for
    models whose runs on different days share too few cases to compare."""
    found: list[Drift] = []
    notes: list[str] = []
    for model, dated in sorted(rows_by_model.items()):
        by_day: dict[str, list[Mapping[str, Any]]] = {}
        for started, row in dated:
            day = run_day(started)
            if day is not None:
                by_day.setdefault(day, []).append(row)
        if len(by_day) < 2:
            continue
        first, last = min(by_day), max(by_day)
        before, after = headline(by_day[first]).metric_scores(), headline(by_day[last]).metric_scores()
        main = next(iter(before))
        shared = set(before[main]) & set(after.get(main, {}))
        if len(shared) < MIN_SHARED:
            notes.append(
                f"{model}: runs on {first} and {last} share {len(shared)} case(s); a drift check needs {MIN_SHARED}"
            )
            continue
        metrics = [name for name in before if name in after]
        found.append(
            drift(
                {name: {case: before[name][case] for case in shared if case in before[name]} for name in metrics},
                {name: {case: after[name][case] for case in shared if case in after[name]} for name in metrics},
                model=model,
                earlier_run=first,
                later_run=last,
            )
        )
    return found, notes
