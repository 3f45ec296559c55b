"""A benchmark's headline, row by row: what the leaderboard, `plan` and the drift check all measure.

Each benchmark declares one function (`Benchmark.headline`) that turns the verified rows of one model
into a `Headline`: the metric's name and direction, and per unit (a row's case) its (numerator,
denominator) with the cluster it repeats (the prompt its k samples share, the maze its repeats share).
The leaderboard reads the units; power planning and drift read the same units as per-cluster repeat
scores (`cluster_scores`), so the three never disagree on what a model scored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .specs import Registry, load_hook


@dataclass(frozen=True)
class Headline:
    """One model's headline: `units` unit -> (numerator, denominator); `clusters` unit -> its case."""

    metric: str
    higher_is_better: bool
    unit_name: str
    units: Mapping[str, tuple[float, float]]
    clusters: Mapping[str, str] = field(default_factory=dict)
    counts: Mapping[str, int] = field(default_factory=dict)  # the denominators printed beside the value
    # other metrics of the same units, by name (each unit -> (numerator, denominator)): the drift check compares
    # a slug's runs on every one of them, not only the headline
    also: Mapping[str, Mapping[str, tuple[float, float]]] = field(default_factory=dict)

    def cluster_scores(self) -> dict[str, list[float]]:
        """Per cluster, the scores of its repeats in [0, 1]: a unit of whole counts (3 of 10 tests misled)
        as that many binary outcomes, any other unit as its ratio once."""
        return self._cluster_scores(self.units)

    def metric_scores(self) -> dict[str, dict[str, list[float]]]:
        """The headline's cluster scores and every other metric's, by metric name (headline first)."""
        return {self.metric: self.cluster_scores(), **{name: self._cluster_scores(u) for name, u in self.also.items()}}

    def _cluster_scores(self, units: Mapping[str, tuple[float, float]]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        for unit, (numerator, denominator) in units.items():
            if denominator <= 0:
                continue
            scores = found.setdefault(self.clusters.get(unit, unit), [])
            whole = float(numerator).is_integer() and float(denominator).is_integer() and denominator > 1
            if whole:
                hits = int(numerator)
                scores.extend([1.0] * hits + [0.0] * (int(denominator) - hits))
            else:
                scores.append(min(max(numerator / denominator, 0.0), 1.0))
        return found


HeadlineFunction = Callable[[Sequence[Mapping[str, Any]]], Headline]


def headline_hook(registry: Registry, protocol_id: str) -> HeadlineFunction | None:
    """The benchmark's declared headline function, None when it declares none (HookError when it is broken)."""
    benchmark = registry.benchmark_of(protocol_id)
    if benchmark is None or benchmark.headline is None:
        return None
    function: HeadlineFunction = load_hook(benchmark.headline, f"the headline of {benchmark.name}")
    return function
