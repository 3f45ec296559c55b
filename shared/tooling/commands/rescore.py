"""`hallubench rescore PATH... [--task FILE]`: verify hosted prompts byte for byte and re-score replies."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ..rescore.collect import add_source_options

    parser = subparsers.add_parser(
        "rescore",
        help="verify every prompt of hosted runs byte for byte and re-score every reply",
        description=(
            "Read run files (loose *.run.json files, or the tree `kaggle benchmarks tasks download` writes), "
            "re-render each prompt from the frozen task file, compare, re-score each reply and recompute the "
            "metrics. Exit codes: 0 all verified and agreeing; 5 a run file (or a row of one) could not be read; "
            "6 two different copies of one row (neither counted); 3 a prompt differs, or a stored run cannot be "
            "verified whole (no rows, rows of another task); 8 rows re-scored while the registries gave no "
            "answer here (registries unreachable: not judged); 4 a score differs; "
            "2 bad usage or nothing of this task found; 7 the task runs model-written code and this machine's "
            "jail lacks a layer (nothing was executed). With several problems the first code in the order "
            "5, 6, 3, 8, 4 wins; every problem is printed."
        ),
    )
    add_source_options(parser)
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the full report as JSON")
    parser.add_argument("--markdown", type=Path, metavar="OUT", help="write the report as Markdown")
    parser.add_argument("--csv", type=Path, metavar="OUT", help="write the benchmark's per-model table as CSV")
    parser.add_argument("--rows-csv", type=Path, metavar="OUT", help="write one line per row (verification) as CSV")
    parser.add_argument(
        "--html", type=Path, metavar="OUT", help="write the report as one self-contained HTML page (rows drill down)"
    )
    parser.add_argument("--pictures", type=Path, metavar="DIR", help="write pictures (e.g. best and worst maze trial)")
    parser.add_argument(
        "--human", type=Path, action="append", default=[], metavar="FILE", help="human baseline results (hallumaze)"
    )
    parser.add_argument(
        "--quiet", action="store_true", help="print only the problems, every one, one line each (on stderr)"
    )
    parser.set_defaults(handler=run)


def add_jail_option(parser: argparse.ArgumentParser) -> None:
    """`--jail-without LAYER`, for the other commands that run model-written code (`run`, `classify`)."""
    from ..rescore.collect import add_jail_option as add

    add(parser)


def run(args: argparse.Namespace) -> int:
    from ..board_text import board_lines, drift_lines
    from ..rescore.collect import Collected, collect
    from ..rescore.drift_check import drifts
    from ..rescore.exit_codes import exit_code
    from ..rescore.render import dumps_strict, problem_lines, to_csv, to_json, to_markdown, to_text
    from ..rescore.reporters import benchmark_report, pictures_option
    from ..statistics import Drift

    collected = collect(
        args, keep_messages=bool(args.json or args.html), show_progress=not args.quiet, check_view=bool(args.html)
    )
    if not isinstance(collected, Collected):
        return collected
    report, newer, task = collected.report, collected.newer, collected.task
    verified, rows_by_model = collected.verified, collected.rows_by_model
    headline_function = collected.headline_function
    extra = None
    if any(rows_by_model.values()):
        extra = benchmark_report(
            collected.report_function,
            rows_by_model,
            task=newer or task,  # the task file whose scorer made `rows_by_model`
            hosted_by_model={model: [row.hosted_row for row in rows] for model, rows in verified.items()},
            pictures_dir=pictures_option(args.pictures),
            humans=tuple(args.human),
            explain=collected.explain,
        )
    # What the board can show (saturation, rank intervals, adjusted pairs) and whether a slug drifted between runs.
    found_drifts: list[Drift] = []
    drift_notes: list[str] = []
    if headline_function is not None and any(rows_by_model.values()):
        found_drifts, drift_notes = drifts(collected.dated_rows(), headline_function)
    board = (extra.get("json") or {}).get("leaderboard") if extra is not None else None
    shown = (board_lines(board) if isinstance(board, dict) else []) + drift_lines(
        [d.to_dict() for d in found_drifts], drift_notes
    )
    statistics_text = "".join(line + "\n" for line in shown)
    code = exit_code(report)
    if args.quiet:
        for line in problem_lines(report, limit=None):
            print(line, file=sys.stderr)
    else:
        print(to_text(report, show_metrics=extra is None), end="")
        if extra is not None:
            print("\n" + str(extra.get("text", "")), end="")
        if statistics_text:
            print("\n" + statistics_text, end="")
    written: list[tuple[str, Path]] = []
    if args.json or args.html:
        data = to_json(report)
        if extra is not None:
            data["benchmark"] = extra.get("json")
        data["drift"] = {"runs": [d.to_dict() for d in found_drifts], "notes": drift_notes}
        data["exit_code"] = code
        strict = dumps_strict(data)
    if args.json:
        args.json.write_text(strict, encoding="utf-8")
        written.append(("JSON", args.json))
    if args.markdown:
        markdown = to_markdown(report)
        if extra is not None:
            markdown += "\n" + str(extra.get("markdown", ""))
        if statistics_text:
            markdown += "\n```text\n" + statistics_text + "```\n"
        args.markdown.write_text(markdown, encoding="utf-8")
        written.append(("Markdown", args.markdown))
    if args.csv:
        args.csv.write_text(str(extra.get("csv", "")) if extra is not None else to_csv(report), encoding="utf-8")
        written.append(("CSV", args.csv))
    if args.rows_csv:
        args.rows_csv.write_text(to_csv(report), encoding="utf-8")
        written.append(("rows CSV", args.rows_csv))
    if args.html:
        from ..report_html import write_page

        write_page(json.loads(strict), args.html)  # the page of the --json result, read back as `report` reads it
        written.append(("HTML report", args.html))
    if not args.quiet and written:
        print("")
        for kind, path in written:
            print(f"wrote {kind}: {path.resolve()}")
    if not report.rows and not report.file_errors:
        print("error: none of the run files belongs to this task", file=sys.stderr)
    return code
