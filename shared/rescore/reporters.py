"""Benchmark-specific report sections for `hallubench rescore`, looked up by benchmark name.

The verified, re-scored rows are passed to the benchmark's own tooling (`rescore_report` in
its `report` module): the per-model table with intervals and baselines for hallumaze, the
condition table and paired comparisons for misled-tests, the three rates for
hallucinated-packages. These modules are installed tooling, not the frozen scorer: the rows
they receive were re-scored by the frozen one.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

REPORT_MODULES = {
    "hallumaze": "hallubench.maze.report",
    "misled-tests": "hallubench.misled.report",
    "misled-tests-thinking": "hallubench.misled.report",
    "hallucinated-packages": "hallubench.packages.report",
}


def benchmark_report(
    protocol_id: str,
    rows_by_model: Mapping[str, Sequence[dict[str, Any]]],
    **options: Any,
) -> dict[str, Any] | None:
    """The benchmark's report sections (`text`, `markdown`, `json`, `csv`), or None when it has none.

    Options the benchmark's `rescore_report` does not accept (e.g. `humans` for a benchmark
    without human baselines) are dropped, so one command line serves every benchmark.
    """
    module_name = REPORT_MODULES.get(protocol_id.split("/")[0])
    if module_name is None:
        return None
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    function = getattr(module, "rescore_report", None)
    if function is None:
        return None
    accepted = inspect.signature(function).parameters
    kwargs = {key: value for key, value in options.items() if key in accepted and value not in (None, (), [])}
    report: dict[str, Any] = function(rows_by_model, **kwargs)
    return report


def pictures_option(path: Path | None) -> Path | None:
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
    return path
