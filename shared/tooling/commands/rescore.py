"""`hallubench rescore PATH... [--task FILE]`: verify hosted prompts byte for byte and re-score replies."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

EXIT_USAGE = 2  # also in rescore.exit_codes, with the other codes and their precedence


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    parser.add_argument("paths", nargs="+", metavar="PATH", help="run files or directories")
    parser.add_argument(
        "--task",
        metavar="TASK",
        help="the task file the runs came from, as a path or a protocol (hallumaze/v2); default: found by task name",
    )
    parser.add_argument(
        "--scorer",
        metavar="TASK",
        help="also score every verified row with a newer version of the same benchmark (a path or a protocol), "
        "where that version sends the same prompts; the benchmark report then uses its rows",
    )
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
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="replay every row with this run option instead of the value the row recorded (repeatable)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="rescore rows in N processes (default: the number of cores); the report is the one --jobs 1 gives",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="print only the problems, every one, one line each (on stderr)"
    )
    add_jail_option(parser)
    parser.set_defaults(handler=run)


def add_jail_option(parser: argparse.ArgumentParser) -> None:
    """`--jail-without LAYER`: run model-written code in a jail lacking LAYER (refused by default)."""
    from ..jail.policy import LAYERS

    parser.add_argument(
        "--jail-without",
        action="append",
        default=[],
        metavar="LAYER",
        help="accept a jail without LAYER (" + ", ".join(LAYERS) + ") where this machine lacks it; model-written "
        "code (misled-tests) otherwise never runs without every layer; repeatable or comma-separated",
    )


def run(args: argparse.Namespace) -> int:
    from ..board_text import board_lines, drift_lines
    from ..headline import headline_hook
    from ..jail.policy import JailRefused, parse_accepted
    from ..report_html.view import view_hook
    from ..rescore.drift_check import drifts
    from ..rescore.engine import rescore_runs
    from ..rescore.exit_codes import EXIT_JAIL, exit_code
    from ..rescore.feed import RunFileFeed
    from ..rescore.newer import IncompatibleScorer
    from ..rescore.options import OptionError, check_overrides, parse_options
    from ..rescore.parallel import default_jobs, rescore_runs_parallel
    from ..rescore.render import dumps_strict, problem_lines, to_csv, to_json, to_markdown, to_text
    from ..rescore.reporters import benchmark_report, pictures_option, report_hook
    from ..rescore.scorer_changes import explanation
    from ..specs import HookError
    from ..statistics import Drift
    from ..task_lookup import TaskNotFound, current_registry, find_task, task_files_by_run_name
    from ..taskfile.reader import TaskFileError, read_task_file

    if args.jobs is not None and args.jobs < 1:
        print("error: --jobs must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    try:
        jail_accept = parse_accepted(args.jail_without)
    except ValueError as exc:
        print(f"error: --jail-without: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not any(Path(path).exists() or Path(path).is_symlink() for path in args.paths):
        for path in args.paths:
            print(f"error: {path}: no such file or directory", file=sys.stderr)
        return EXIT_USAGE  # a path that does not exist among others is a problem of the report, not the end of it
    feed = RunFileFeed([Path(p) for p in args.paths], sys.stderr, show_progress=not args.quiet)
    try:
        if args.task is not None:
            task_path: Path | None = find_task(args.task).require_built()
        else:
            task_path = feed.find_task(task_files_by_run_name())
            if task_path is None and feed.loaded:
                names = ", ".join(sorted(feed.task_names))
                print(f"error: no task file known for task(s) {names}; pass --task TASK", file=sys.stderr)
                _print_file_errors(feed.file_errors)
                return EXIT_USAGE
        if task_path is None:
            return _nothing_read(feed.file_errors)
        task = read_task_file(task_path)
        newer = read_task_file(find_task(args.scorer).require_built()) if args.scorer else None
        # The hooks the versions declare, resolved before anything is scored: a broken one is an error, not a gap.
        registry = current_registry()
        spec = registry.spec(task.protocol_id)
        newer_spec = registry.spec(newer.protocol_id) if newer is not None else None
        report_function = report_hook(registry, (newer or task).protocol_id)
        headline_function = headline_hook(registry, (newer or task).protocol_id)
        # why the newer scorer moves rows: the explanation the benchmark declares for this version pair
        explain = explanation(registry, task.protocol_id, newer.protocol_id) if newer is not None else None
        if args.html:
            view_hook(task.protocol_id)  # the benchmark's page view, imported now: a broken one is said before scoring
        overrides = parse_options(args.option)
        declared = spec.run_options if spec is not None else ()
        newer_declared = newer_spec.run_options if newer_spec is not None else ()
        check_overrides(declared + newer_declared, overrides, task.protocol_id)
        keep_messages = bool(args.json or args.html)  # only a saved result or a page shows the conversations
        jobs = args.jobs if args.jobs is not None else default_jobs()
        rescore = partial(rescore_runs_parallel, jobs=jobs) if jobs > 1 else rescore_runs
        report = rescore(
            task,
            feed.runs(),
            feed.file_errors,
            newer=newer,
            keep_messages=keep_messages,
            spec=spec,
            newer_spec=newer_spec,
            option_overrides=overrides,
            jail_accept=jail_accept,
        )
    except JailRefused as refused:
        print(f"error: {refused}", file=sys.stderr)
        return EXIT_JAIL
    except (TaskNotFound, TaskFileError, IncompatibleScorer, HookError, OptionError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        feed.close()
    if not feed.loaded:
        return _nothing_read(report.file_errors)
    # The benchmark's own report is computed from the verified rows, or, with --scorer, from the rows the
    # newer scorer could score, as it scored them. Conflicting copies of a row are never counted.
    verified = {
        model: [row for row in summary.rows if row.prompt_verified and row.counted]
        for model, summary in report.models.items()
    }
    rows_by_model = {model: [row.local_row for row in rows] for model, rows in verified.items()}
    if newer is not None:
        verified = {m: [row for row in rows if row.newer and row.newer.row] for m, rows in verified.items()}
        rows_by_model = {
            model: [row.newer.row for row in rows if row.newer and row.newer.row] for model, rows in verified.items()
        }
    extra = None
    if any(rows_by_model.values()):
        extra = benchmark_report(
            report_function,
            rows_by_model,
            task=newer or task,  # the task file whose scorer made `rows_by_model`
            hosted_by_model={model: [row.hosted_row for row in rows] for model, rows in verified.items()},
            pictures_dir=pictures_option(args.pictures),
            humans=tuple(args.human),
            explain=explain,
        )
    # What the board can show (saturation, rank intervals, adjusted pairs) and whether a slug drifted between runs.
    found_drifts: list[Drift] = []
    drift_notes: list[str] = []
    if headline_function is not None and any(rows_by_model.values()):
        dated: dict[str, list[tuple[datetime | None, dict[str, Any]]]] = {}
        for model, rows in verified.items():
            for row in rows:
                scored_row = row.newer.row if newer is not None and row.newer is not None else row.local_row
                if scored_row is not None:
                    dated.setdefault(model, []).append((row.run_started, scored_row))
        found_drifts, drift_notes = drifts(dated, headline_function)
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


def _print_file_errors(file_errors: list[str]) -> None:
    from ..rescore.render import one_line

    for error in file_errors:
        print(f"error: {one_line(error)}", file=sys.stderr)


def _nothing_read(file_errors: list[str]) -> int:
    from ..rescore.exit_codes import EXIT_UNREADABLE

    _print_file_errors(file_errors)
    print("error: no run file could be read", file=sys.stderr)
    return EXIT_UNREADABLE if file_errors else EXIT_USAGE
