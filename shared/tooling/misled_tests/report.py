"""Reading misled-tests rows and printing the condition table and the primary comparisons.

`hallubench misled report` and the lead's `hallubench rescore` share these functions:
`rows_from_paths` (row JSON/JSONL files, or kbench `*.run.json` files whose results carry
the row dicts), `group_by_model`, `build_report(rows)` (a JSON-able dict: the aggregate of
`task_v1.aggregate` plus counts) and `format_report(report)` (terminal text).
Tooling: never embedded.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Required, TypedDict, TypeGuard, cast

from ...errors import HallubenchError
from ...misled_tests.conditions import CONDITIONS, DESCRIPTIONS
from ...misled_tests.metrics import PRIMARY, aggregate_rows
from ...misled_tests.result_types import SCORED_VERDICTS, Aggregate, Row
from ..csv_cells import cells
from ..headline import Headline
from ..leaderboard import board_of, units_from


class MisledReportInputError(HallubenchError):
    """A file given to the report is not rows or a run file."""


class ReportRow(Row, total=False):
    """A row as the report reads it: the model it came from is added when the file names it."""

    model: str


class Report(TypedDict, total=False):
    """`build_report`'s result; `rescore_report` adds the leaderboard."""

    models: Required[dict[str, Aggregate]]
    primary_comparisons: Required[list[str]]
    leaderboard: dict[str, Any]


def _is_row(value: Any) -> TypeGuard[ReportRow]:
    return isinstance(value, dict) and "condition" in value and "verdict" in value and "problem" in value


def _rows_in_run_file(path: Path) -> list[ReportRow]:
    from ..kaggle_runs import DictResult, iter_runs, load_run

    loaded = load_run(path)
    rows: list[ReportRow] = []
    for run in iter_runs(loaded.run):
        for result in run.results:
            if isinstance(result, DictResult) and _is_row(result.value):
                row = ReportRow(**result.value)
                row.setdefault("model", run.model_slug or loaded.run.model_slug or "unknown")
                rows.append(row)
    return rows


def rows_from_paths(paths: Iterable[str | Path]) -> list[ReportRow]:
    """All misled rows in the files (JSON list, {"rows": [...]}, JSONL, or *.run.json)."""
    rows: list[ReportRow] = []
    for raw in paths:
        path = Path(raw)
        if path.name.endswith(".run.json"):
            rows.extend(_rows_in_run_file(path))
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise MisledReportInputError(f"cannot read {path}: {exc}") from exc
        try:
            value: Any = json.loads(text)
            candidates = value.get("rows", []) if isinstance(value, dict) else value
        except json.JSONDecodeError:
            try:
                candidates = [json.loads(line) for line in text.splitlines() if line.strip()]
            except json.JSONDecodeError as exc:
                raise MisledReportInputError(f"{path}: neither JSON nor JSON lines: {exc}") from exc
        found = [row for row in candidates if _is_row(row)] if isinstance(candidates, list) else []
        if not found:
            raise MisledReportInputError(f"{path}: no misled-tests rows in it")
        rows.extend(found)
    return rows


def group_by_model(rows: Sequence[ReportRow]) -> dict[str, list[ReportRow]]:
    """Rows per model (field `model`, else one group) and thinking variant, since each is its own run."""
    groups: dict[str, list[ReportRow]] = {}
    for row in rows:
        key = f"{row.get('model', 'model')} (thinking {row.get('thinking', '?')})"
        groups.setdefault(key, []).append(row)
    return groups


def _aggregate(rows: list[ReportRow]) -> Aggregate:
    """`metrics.aggregate_rows`, typed: the embedded module (and every frozen copy of it) keeps plain dicts."""
    return cast(Aggregate, aggregate_rows(cast(list[dict[str, Any]], rows)))


def build_report(rows: Sequence[ReportRow]) -> Report:
    """The report for every model in `rows`: the aggregate (table + comparisons) per group."""
    return {
        "models": {name: _aggregate(group) for name, group in sorted(group_by_model(rows).items())},
        "primary_comparisons": [f"{measure}: {a} vs {b}" for measure, a, b in PRIMARY],
    }


def _pct(value: float) -> str:
    return "   n/a" if math.isnan(value) else f"{100 * value:5.1f}%"


def format_report(report: Report) -> str:
    """Terminal text: one condition table and the four comparisons per model."""
    out: list[str] = []
    for name, aggregate in report["models"].items():
        metrics = aggregate["metrics"]
        out.append(f"== {name}: {metrics['rows']} rows, {metrics['harness_errors']} harness errors")
        out.append(
            f"{'condition':<22}{'problems':>9}{'unusable':>9}{'tests':>7}{'misled':>13}{'effective':>14}"
            f"{'>=1 eff.':>10}{'>=1 misl.':>10}"
        )
        for line in metrics["conditions"]:
            unusable = sum(line["unusable"].values())
            out.append(
                f"{line['condition']:<22}{line['problems']:>9}{unusable:>9}{line['n_tests']:>7}"
                f"{line['misled']:>6} {_pct(line['misled_rate'])}{line['effective']:>7} {_pct(line['effective_rate'])}"
                f"{line['problems_with_effective']:>10}{line['problems_with_misled']:>10}"
            )
        out.append("rates: per test (Σ class / Σ tests); >=1: problems with at least one such test")
        out.append("primary comparisons (paired problem bootstrap, 10,000 resamples, 98.75%, seed 0):")
        for comparison in metrics["comparisons"]:
            per_test = comparison["per_test"]
            out.append(
                f"  {comparison['measure']:<9} {comparison['a']} - {comparison['b']}: "
                f"{_pct(per_test['diff'])} [{_pct(per_test['low'])}, {_pct(per_test['high'])}] "
                f"over {per_test['n_problems']} problems -> {comparison['verdict']}"
            )
        out.append(f"reference conditions (no verdicts): {', '.join(metrics['reference_conditions'])}")
        out.append("")
    out.append("conditions: " + "; ".join(f"{c}: {DESCRIPTIONS[c]}" for c in CONDITIONS))
    return "\n".join(out)


def headline(rows: Sequence[Mapping[str, Any]]) -> Headline:
    """One model's misled share of tests with the buggy code shown: per problem (misled, all) tests."""
    from ...misled_tests.conditions import BUGGY_CODE

    buggy = [r for r in rows if r.get("condition") == BUGGY_CODE]
    scored = [r for r in buggy if r.get("verdict") in SCORED_VERDICTS and isinstance(r.get("scores"), dict)]
    units = units_from(
        (str(r["problem"]), r["scores"].get("misled", 0) or 0, r["scores"].get("n_tests", 0) or 0) for r in scored
    )
    counts = {"tests": int(sum(d for _, d in units.values())), "problems": len(units)}
    counts["harness errors"] = len(buggy) - len(scored)
    return Headline("misled tests / all tests, buggy code shown", False, "problem", units, {}, counts)


def separability(report: Report, rows: Sequence[ReportRow]) -> dict[str, Any]:
    """The headline (misled share of tests, buggy code shown) per model, paired over shared problems, and groups."""
    return board_of({name: headline(group) for name, group in group_by_model(rows).items() if name in report["models"]})


def rescore_report(rows_by_model: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
    """`hallubench rescore`'s misled-tests section: the condition table and comparisons per model."""
    rows = [cast(ReportRow, {**row, "model": model}) for model, group in rows_by_model.items() for row in group]
    report = build_report(rows)
    report["leaderboard"] = separability(report, rows)
    text = format_report(report)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
            "model",
            "condition",
            "problems",
            "tests",
            "misled",
            "misled_rate",
            "effective",
            "effective_rate",
            "problems_with_effective",
            "problems_with_misled",
            "unusable",
        ]
    )
    for name, aggregate in report["models"].items():
        for line in aggregate["metrics"]["conditions"]:
            writer.writerow(
                cells(
                    [
                        name,
                        line["condition"],
                        line["problems"],
                        line["n_tests"],
                        line["misled"],
                        line["misled_rate"],
                        line["effective"],
                        line["effective_rate"],
                        line["problems_with_effective"],
                        line["problems_with_misled"],
                        sum(line["unusable"].values()),
                    ]
                )
            )
    markdown = "## misled-tests\n\n```\n" + text + "\n```\n"
    return {"text": text + "\n", "markdown": markdown, "json": report, "csv": buffer.getvalue()}
