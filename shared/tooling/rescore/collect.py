"""From run files to verified rows: the part `rescore` and `plan` share.

Both read the same paths with the same options (`--task`, `--scorer`, `--option`, `--jobs`, `--jail-without`),
verify every prompt against the frozen task file, re-score every reply and keep, per model, the rows that
verified and are counted (with `--scorer`, as the newer scorer scored them). `plan` then plans from exactly the
rows whose scores `rescore` would report, so a plan never rests on a row that failed verification.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from ..exit_codes import EXIT_USAGE
from ..headline import HeadlineFunction
from ..specs import Registry
from ..taskfile.reader import TaskFile
from .engine import RescoreReport, RowOutcome
from .reporters import ReportFunction
from .scorer_changes import Explain


@dataclass
class Collected:
    """What was read and re-scored, and the hooks of the version whose scorer made `rows_by_model`."""

    report: RescoreReport
    task: TaskFile
    newer: TaskFile | None
    registry: Registry
    report_function: ReportFunction | None
    headline_function: HeadlineFunction | None
    explain: Explain | None
    verified: dict[str, list[RowOutcome]]
    rows_by_model: dict[str, list[dict[str, Any]]]

    def dated_rows(self) -> dict[str, list[tuple[datetime | None, dict[str, Any]]]]:
        """Per model, each scored row with the start of the run that holds it (what the drift check reads)."""
        dated: dict[str, list[tuple[datetime | None, dict[str, Any]]]] = {}
        for model, rows in self.verified.items():
            for row in rows:
                scored = row.newer.row if self.newer is not None and row.newer is not None else row.local_row
                if scored is not None:
                    dated.setdefault(model, []).append((row.run_started, scored))
        return dated


def add_source_options(parser: argparse.ArgumentParser) -> None:
    """The options that say which runs, which task and scorer, and how to replay them."""
    parser.add_argument("paths", nargs="+", metavar="PATH", help="run files or directories")
    parser.add_argument(
        "--task",
        metavar="TASK",
        help="the task file the runs came from, as a path or a protocol (BENCHMARK/vN); default: found by task name",
    )
    parser.add_argument(
        "--scorer",
        metavar="TASK",
        help="also score every verified row with a newer version of the same benchmark (a path or a protocol), "
        "where that version sends the same prompts; the benchmark report then uses its rows",
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
    add_jail_option(parser)


def add_jail_option(parser: argparse.ArgumentParser) -> None:
    """`--jail-without LAYER`: run model-written code in a jail lacking LAYER (refused by default)."""
    from ..jail.policy import LAYERS

    parser.add_argument(
        "--jail-without",
        action="append",
        default=[],
        metavar="LAYER",
        help="accept a jail without LAYER (" + ", ".join(LAYERS) + ") where this machine lacks it; model-written "
        "code (a version that declares it executes model code) otherwise never runs without every layer; "
        "repeatable or comma-separated",
    )


def collect(
    args: argparse.Namespace, *, keep_messages: bool, show_progress: bool, check_view: bool = False
) -> Collected | int:
    """Read, verify and re-score the runs `args` names; an exit code (after printing why) when nothing can be."""
    from ..headline import headline_hook
    from ..jail.policy import JailRefused, parse_accepted
    from ..report_html.view import view_hook
    from ..specs import HookError
    from ..task_lookup import TaskNotFound, current_registry, find_task, task_files_by_run_name
    from ..taskfile.reader import TaskFileError, read_task_file
    from .engine import rescore_runs
    from .exit_codes import EXIT_JAIL
    from .feed import RunFileFeed
    from .newer import IncompatibleScorer
    from .options import OptionError, check_overrides, parse_options
    from .parallel import default_jobs, rescore_runs_parallel
    from .reporters import report_hook
    from .scorer_changes import explanation

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
    feed = RunFileFeed([Path(p) for p in args.paths], sys.stderr, show_progress=show_progress)
    try:
        if args.task is not None:
            task_path: Path | None = find_task(args.task).require_built()
        else:
            task_path = feed.find_task(task_files_by_run_name())
            if task_path is None and feed.loaded:
                names = ", ".join(sorted(feed.task_names))
                print(f"error: no task file known for task(s) {names}; pass --task TASK", file=sys.stderr)
                print_file_errors(feed.file_errors)
                return EXIT_USAGE
        if task_path is None:
            return nothing_read(feed.file_errors)
        task = read_task_file(task_path)
        newer = read_task_file(find_task(args.scorer).require_built()) if args.scorer else None
        # The hooks the versions declare, resolved before anything is scored: a broken one is an error, not a gap.
        registry = current_registry()
        spec = registry.spec(task.protocol_id)
        newer_spec = registry.spec(newer.protocol_id) if newer is not None else None
        scoring = (newer or task).protocol_id
        report_function = report_hook(registry, scoring)
        headline_function = headline_hook(registry, scoring)
        # why the newer scorer moves rows: the explanation the benchmark declares for this version pair
        explain = explanation(registry, task.protocol_id, newer.protocol_id) if newer is not None else None
        if check_view:
            view_hook(task.protocol_id)  # the benchmark's page view, imported now: a broken one is said before scoring
        overrides = parse_options(args.option)
        declared = spec.run_options if spec is not None else ()
        newer_declared = newer_spec.run_options if newer_spec is not None else ()
        check_overrides(declared + newer_declared, overrides, task.protocol_id)
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
        return nothing_read(report.file_errors)
    # The benchmark's own report is computed from the verified rows, or, with --scorer, from the rows the
    # newer scorer could score, as it scored them. Conflicting copies of a row are never counted.
    verified = {
        model: [row for row in summary.rows if row.prompt_verified and row.counted]
        for model, summary in report.models.items()
    }
    rows_by_model = {model: [row.local_row for row in rows if row.local_row is not None] for model, rows in
                     verified.items()}  # fmt: skip
    if newer is not None:
        verified = {m: [row for row in rows if row.newer and row.newer.row] for m, rows in verified.items()}
        rows_by_model = {
            model: [row.newer.row for row in rows if row.newer and row.newer.row] for model, rows in verified.items()
        }
    return Collected(
        report, task, newer, registry, report_function, headline_function, explain, verified, rows_by_model
    )


def print_file_errors(file_errors: list[str]) -> None:
    from .render import one_line

    for error in file_errors:
        print(f"error: {one_line(error)}", file=sys.stderr)


def nothing_read(file_errors: list[str]) -> int:
    from .exit_codes import EXIT_UNREADABLE

    print_file_errors(file_errors)
    print("error: no run file could be read", file=sys.stderr)
    return EXIT_UNREADABLE if file_errors else EXIT_USAGE
