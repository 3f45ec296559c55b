"""Present a RescoreReport: a terminal table, Markdown, JSON and CSV.

Every rate is printed beside its denominator; verification failures are listed with the case,
the model call and the first differing character, because "prompt mismatch" alone helps no one.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any

from ..jail.describe import describe_layers
from .bounded import FIELD_LIMIT, shorten
from .engine import ModelSummary, RescoreReport
from .problems import Kind, checked_rows, problems, row_problem, verdict_line

MAX_LISTED = 20


def _headline(summary: ModelSummary) -> tuple[str, str]:
    metrics = summary.metrics
    value = metrics.get("headline")
    name = str(metrics.get("headline_name", "headline"))
    if value is None or not math.isfinite(float(value)):
        return name, "n/a"  # undefined (e.g. 0 of 0); the stored task result holds 0.0
    return name, f"{float(value):.3f}"


def _hosted(summary: ModelSummary) -> str:
    marks = []
    for parent in summary.parents:
        if parent.hosted_headline is None:
            marks.append("none")
        else:
            ok = {True: "agrees", False: "DIFFERS", None: "partial"}[parent.agrees]
            marks.append(f"{parent.hosted_headline:.3f} ({ok})")
    return ", ".join(marks) or "no stored-task run"


def summary_rows(report: RescoreReport) -> list[dict[str, Any]]:
    """One plain dict per model, the basis of every format."""
    table = []
    for model, summary in sorted(report.models.items()):
        name, value = _headline(summary)
        counted = summary.counted_rows
        errors = sum(1 for row in counted if row.local_row.get("verdict") == "error")
        table.append(
            {
                "model": model,
                "rows": len(counted),
                "conflicting_rows": len(summary.rows) - len(counted),
                "prompts_verified": summary.verified,
                "scores_compared": summary.compared,
                "scores_agree": summary.agreeing,
                "error_rows": errors,
                "headline_name": name,
                "headline": value,
                "hosted_headline": _hosted(summary),
            }
        )
    return table


def newer_rows(report: RescoreReport) -> list[dict[str, Any]]:
    """Per model, what the newer scorer made of the verified rows: counts, changed verdicts, headlines."""
    table = []
    for model, summary in sorted(report.models.items()):
        counted = summary.counted_rows
        scored = [row for row in counted if row.newer is not None and row.newer.row is not None]
        changed = [
            row.case_id
            for row in scored
            if row.newer is not None
            and row.newer.row is not None
            and row.newer.row.get("verdict") != row.local_row.get("verdict")
        ]
        value = summary.newer_metrics.get("headline")
        table.append(
            {
                "model": model,
                "rows": len(counted),
                "scored": len(scored),
                "verdicts_changed": len(changed),
                "changed_cases": changed,
                "headline_name": str(summary.newer_metrics.get("headline_name", "headline")),
                "headline": None if value is None else float(value),
                "frozen_headline": summary.metrics.get("headline"),
                "not_scored": [
                    {"case_id": row.case_id, "source": row.source, "why": row.newer.problem}
                    for row in counted
                    if row.newer is not None and row.newer.row is None
                ],
            }
        )
    return table


def _newer_text(report: RescoreReport) -> list[str]:
    newer = report.newer_task
    if newer is None:
        return []
    lines = [
        "",
        f"scored again with {newer.protocol_id} (payload {newer.payload_sha256[:12]}), "
        "for rows whose prompts it sends identically:",
    ]
    for entry in newer_rows(report):
        frozen = entry["frozen_headline"]
        frozen_text = "n/a" if frozen is None else f"{float(frozen):.3f}"
        now = "n/a" if entry["headline"] is None else f"{entry['headline']:.3f}"
        lines.append(
            f"  {entry['model']}: {entry['scored']}/{entry['rows']} rows scored, "
            f"{entry['verdicts_changed']} verdict(s) changed; {entry['headline_name']} {frozen_text} -> {now}"
        )
        for missing in entry["not_scored"][:MAX_LISTED]:
            lines.append(f"    NOT SCORED case {missing['case_id']} ({missing['source']}): {missing['why']}")
    return lines


def problem_lines(report: RescoreReport, *, limit: int | None = MAX_LISTED) -> list[str]:
    """One line per problem, most serious kind first (see `problems.py`).

    `limit` caps each kind (the rest are counted in a last line); None lists every one, as
    `--quiet` does. Each line is one line of printable text of bounded length, whatever the run file held.
    """
    lines: list[str] = []
    hidden = 0
    shown: dict[str, int] = {}
    for problem in problems(report):
        count = shown.get(problem.kind, 0)
        if limit is not None and count >= limit:
            hidden += 1
            continue
        shown[problem.kind] = count + 1
        lines.append(problem.line())
    if hidden:
        lines.append(f"... and {hidden} more (see --json, or --quiet for every one)")
    return lines


def one_line(text: str) -> str:
    """`text` as one printable line of bounded length (control characters and lone surrogates escaped)."""
    return shorten(text, 2000)


def to_text(report: RescoreReport, *, show_metrics: bool = True) -> str:
    task = report.task
    out = [
        f"hallubench rescore: {task.path} ({task.protocol_id}, payload {task.payload_sha256[:12]})",
        f"rows: {sum(len(summary.counted_rows) for summary in report.models.values())}{_repeats(report)}  "
        f"conflicting rows: {sum(len(c.sources) for c in report.conflicts)}  "
        f"unreadable files: {len(report.file_errors)}  runs of other tasks: {len(report.foreign_runs)}",
        "",
    ]
    table = summary_rows(report)
    headers = ["model", "rows", "prompts verified", "scores agree", "error rows", "headline", "hosted"]
    body = [
        [
            one_line(r["model"]),
            str(r["rows"]),
            f"{r['prompts_verified']}/{r['rows']}",
            f"{r['scores_agree']}/{r['scores_compared']}",
            str(r["error_rows"]),
            f"{r['headline']} ({r['headline_name']})",
            r["hosted_headline"],
        ]
        for r in table
    ]
    widths = [max(len(h), *(len(row[i]) for row in body)) if body else len(h) for i, h in enumerate(headers)]
    out.append("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
    out.extend("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in body)
    out.append("")
    out.extend(problem_lines(report))
    verdict = verdict_line(report)
    if verdict is not None:
        out.append(verdict)
    elif not problems(report):
        out.append("no row of this task was checked: nothing is verified")
    out.extend(f"model-written code ran in the jail: {line}" for line in jail_lines(report))
    if report.foreign_tasks:
        names = ", ".join(sorted(report.foreign_tasks))
        out.append(f"note: runs of other tasks ({names}) were left alone; rescore them with their own --task")
    for model, summary in sorted(report.models.items()):
        metrics = summary.metrics.get("metrics") if show_metrics else None
        if metrics:
            out.append("")
            out.append(f"metrics for {model} (recomputed by the frozen scorer):")
            out.extend(f"  {key}: {_fmt(value)}" for key, value in sorted(metrics.items()))
    out.extend(_newer_text(report))
    return "\n".join(out) + "\n"


def jail_lines(report: RescoreReport) -> list[str]:
    """Each different set of jail layers the rows' model code ran under (one line each, usually one)."""
    seen: dict[str, None] = {}
    for row in report.rows:
        if row.jail is not None:
            seen.setdefault(describe_layers(row.jail), None)
    return list(seen)


def _repeats(report: RescoreReport) -> str:
    """Rows read twice: kbench writes each row both inside the stored run and as its own file (normal)."""
    text = f" (+{report.row_file_copies} row run files repeating them, counted once)" if report.row_file_copies else ""
    others = report.duplicates - report.row_file_copies
    return text + (f"  identical copies skipped: {others}" if others else "")


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, default=str)[:200]
    return str(value)


def to_markdown(report: RescoreReport) -> str:
    task = report.task
    lines = [
        f"# Rescore of `{task.protocol_id}`",
        "",
        f"Task file `{task.path}`, payload sha256 `{task.payload_sha256}`.",
        "",
        "| model | rows | prompts verified | scores agree | error rows | headline | hosted |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in summary_rows(report):
        lines.append(
            f"| {r['model']} | {r['rows']} | {r['prompts_verified']}/{r['rows']} | "
            f"{r['scores_agree']}/{r['scores_compared']} | {r['error_rows']} | "
            f"{r['headline']} ({r['headline_name']}) | {r['hosted_headline']} |"
        )
    found = problem_lines(report)
    lines += ["", "## Problems", ""]
    verdict = verdict_line(report)
    lines += [f"- {p}" for p in found] or [
        f"None: {verdict}." if verdict else "None found, but no row of this task was checked: nothing is verified."
    ]
    newer = _newer_text(report)
    if newer:
        lines += ["", f"## Scored with `{report.newer_task.protocol_id if report.newer_task else ''}`", ""]
        lines += [f"- {line.strip()}" for line in newer[2:]]
    return "\n".join(lines) + "\n"


def to_json(report: RescoreReport) -> dict[str, Any]:
    return {
        "task": {
            "path": str(report.task.path),
            "protocol": report.task.protocol_id,
            "payload_sha256": report.task.payload_sha256,
        },
        "summary": summary_rows(report),
        "duplicates": report.duplicates,
        "row_file_copies": report.row_file_copies,
        "conflicts": [vars(conflict) for conflict in report.conflicts],
        "problems": [problem.as_dict() for problem in problems(report)],
        "rows_checked": checked_rows(report),
        "file_errors": report.file_errors,
        "foreign_runs": report.foreign_runs,
        "newer_scorer": (
            None
            if report.newer_task is None
            else {
                "protocol": report.newer_task.protocol_id,
                "payload_sha256": report.newer_task.payload_sha256,
                "path": str(report.newer_task.path),
                "summary": newer_rows(report),
            }
        ),
        "models": {
            model: {
                "metrics": summary.metrics,
                **({"newer_metrics": summary.newer_metrics} if report.newer_task is not None else {}),
                "parents": [vars(p) for p in summary.parents],
                "rows": [
                    {
                        "source": row.source,
                        "case_id": row.case_id,
                        "state": row.state,
                        "prompt_verified": row.prompt_verified,
                        "problem": row.problem,
                        "problem_kind": None if row.problem_kind is None else row.problem_kind.value,
                        "conflict": row.conflict,
                        "score_agrees": row.score_agrees,
                        "differences": row.differences,
                        "row": row.local_row,
                        "mismatch": None if row.mismatch is None else vars(row.mismatch),
                        "jail": row.jail,
                        **({"messages": [[m.role, m.text] for m in row.messages]} if row.messages is not None else {}),
                        **({"newer_row": row.newer.row, "newer_problem": row.newer.problem} if row.newer else {}),
                    }
                    for row in summary.rows
                ],
            }
            for model, summary in sorted(report.models.items())
        },
    }


def dumps_strict(data: Any) -> str:
    """JSON that every parser accepts: NaN and infinities become null (undefined), never a bare `NaN`."""
    return json.dumps(_strict(data), indent=1, sort_keys=True, allow_nan=False) + "\n"


def _strict(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(key): _strict(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        return [_strict(item) for item in items]
    if value is None or isinstance(value, bool | int | str):
        return value
    return str(value)  # paths, dates, enums: their text


def to_csv(report: RescoreReport) -> str:
    """One line per row: the identity, verification, the re-scored verdict and the row's problems as the one list
    of problems has them (`problem_kind`: space-separated kinds, empty for a row that verified and agrees)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["model", "case_id", "state", "prompt_verified", "score_agrees", "verdict", "problem_kind", "problem"]
    writer.writerow([*header, "source"])
    for row in report.rows:
        found = [(Kind.CONFLICT.value, row.conflict)] if row.conflict is not None else []
        problem = row_problem(row)
        found += [(problem.kind.value, problem.text)] if problem is not None else []
        kind, text = " ".join(kind for kind, _ in found), "; ".join(text for _, text in found)
        writer.writerow(
            [
                row.model,
                row.case_id,
                row.state,
                row.prompt_verified,
                row.score_agrees,
                row.local_row.get("verdict"),
                kind,
                shorten(text, FIELD_LIMIT * 2),
                shorten(row.source),
            ]
        )
    return buffer.getvalue()
