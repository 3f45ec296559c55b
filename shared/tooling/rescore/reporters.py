"""Benchmark-specific report sections for `hallubench rescore`: the `report` hook a benchmark declares.

The verified, re-scored rows are passed to the benchmark's own tooling (its `Benchmark.report`,
in its own tooling folder, `shared/tooling/<package>/`): its tables with intervals, baselines,
paired comparisons, whatever it measures. These are installed tooling, not the frozen scorer: the rows
they receive were re-scored by the frozen one. A declared report that does not import is an
error (`HookError`), raised before anything is rescored.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..specs import Registry, load_hook

ReportFunction = Callable[..., dict[str, Any]]


def report_hook(registry: Registry, protocol_id: str) -> ReportFunction | None:
    """The benchmark's report function, None when it declares none (or the protocol is not registered).

    Raises HookError when the declared one is missing or fails to import.
    """
    benchmark = registry.benchmark_of(protocol_id)
    if benchmark is None or benchmark.report is None:
        return None
    function: ReportFunction = load_hook(benchmark.report, f"the report of {benchmark.name}")
    return function


def benchmark_report(
    function: ReportFunction | None,
    rows_by_model: Mapping[str, Sequence[dict[str, Any]]],
    **options: Any,
) -> dict[str, Any] | None:
    """The benchmark's report sections (`text`, `markdown`, `json`, `csv`), or None when it has none.

    Options the report function does not accept (e.g. `humans` for a benchmark without human
    baselines) are dropped, so one command line serves every benchmark.
    """
    if function is None:
        return None
    accepted = inspect.signature(function).parameters
    kwargs = {key: value for key, value in options.items() if key in accepted and value not in (None, (), [])}
    return function(rows_by_model, **kwargs)


def pictures_option(path: Path | None) -> Path | None:
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
    return path
