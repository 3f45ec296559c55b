"""misled-tests on the report page (its `page_view` hook): each model's condition table and paired comparisons.

Under the generic leaderboard, each model's conditions (tests, misled and effective with their
rates, problems with at least one of each) and the primary comparisons with their 98.75%
intervals; a row's drill-down lists each test on the buggy and the fixed program (`page_view.js`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from ..report_html.markup import esc, interval, number, table
from ..report_html.rowset import PageRow
from ..report_html.view import PageView


def _conditions(model: str, aggregate: Mapping[str, Any]) -> list[str]:
    metrics = aggregate.get("metrics") or {}
    rows = [
        [
            esc(line.get("condition")),
            esc(line.get("problems")),
            esc(sum((line.get("unusable") or {}).values())),
            esc(line.get("n_tests")),
            f"{esc(line.get('misled'))} ({number(line.get('misled_rate'))})",
            f"{esc(line.get('effective'))} ({number(line.get('effective_rate'))})",
            esc(line.get("problems_with_misled")),
            esc(line.get("problems_with_effective")),
        ]
        for line in metrics.get("conditions") or []
    ]
    headers = ["condition", "problems", "unusable", "tests", "misled (rate)", "effective (rate)",
               "problems ≥1 misled", "problems ≥1 effective"]  # fmt: skip
    html = [f"<h4>{esc(model)}: conditions</h4>" + table(headers, rows, numeric=frozenset(range(1, 8)))]
    comparisons = [
        [
            esc(c.get("measure")),
            f"{esc(c.get('a'))} − {esc(c.get('b'))}",
            f"{number((c.get('per_test') or {}).get('diff'))} "
            f"{esc(interval((c.get('per_test') or {}).get('low'), (c.get('per_test') or {}).get('high')))}",
            esc(c.get("verdict")),
        ]
        for c in metrics.get("comparisons") or []
    ]
    if comparisons:
        html.append(table(["measure", "comparison", "difference per test (98.75%)", "verdict"], comparisons))
    return html


def page_view(result: Mapping[str, Any], rows: Sequence[PageRow]) -> PageView:
    benchmark = result.get("benchmark")
    models = (benchmark.get("models") if isinstance(benchmark, Mapping) else None) or {}
    html = [
        part
        for model, aggregate in sorted(models.items())
        for part in _conditions(model, aggregate.get("metrics") or {})
    ]
    script = resources.files(__package__).joinpath("page_view.js").read_text(encoding="utf-8")
    return PageView(after_board="\n".join(html), script=script)
