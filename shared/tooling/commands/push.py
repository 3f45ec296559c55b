"""`hallubench push` and `hallubench download`: publish a task file, fetch its hosted runs.

Both talk to Kaggle through the real kaggle 2.2.5 client (see `hallubench.kaggle_access`).
Exit codes: 0 done, 1 Kaggle reported an error (or no run file arrived), 2 the task file or
the arguments are wrong (nothing was sent), 3 no usable Kaggle credentials.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from ..exit_codes import EXIT_CREDENTIALS
from ..exit_codes import EXIT_PUSH_KAGGLE_ERROR as EXIT_KAGGLE_ERROR
from ..exit_codes import EXIT_USAGE as EXIT_INVALID
from ..task_lookup import TaskNotFound

PUSH_DESCRIPTION = """\
Validate a task file, then push it to Kaggle Benchmarks as `kaggle b t push` would.

TASK is a protocol (a benchmark name such as `hallumaze`, an id such as `hallumaze/v2`, or a
task-file stem) or the path of a task .py file. Checked before anything is sent: the file
parses; it has exactly one stored task (`@kbench.task` without store_task=False); that task's
slug is the slug pushed under; `<task>.run(...)` is called at top level, not under a
`__main__` guard; no uncommented IPython magics; jupytext converts it to a notebook; and a
frozen protocol file still has the sha256 recorded in frozen_cases/protocols.lock.
Problems are listed with line numbers and exit code 2.
"""

DOWNLOAD_DESCRIPTION = """\
Download the outputs of a task's finished hosted runs, as `kaggle b t download` would, into
DIR/<task-slug>/<version>/<model>/<run id>/, then list how many *.run.json files each model
has. TASK is a protocol, a task .py file, or a Kaggle task slug (`slug` or `owner/slug`).
"""

CREDENTIALS_EPILOG = """\
credentials: KAGGLE_API_TOKEN, ~/.kaggle/access_token, ~/.kaggle/kaggle.json
  (or KAGGLE_USERNAME and KAGGLE_KEY), or `kaggle auth login`
exit codes: 0 done, 1 Kaggle reported an error, 2 invalid task or arguments
  (nothing sent), 3 no usable Kaggle credentials
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    push = subparsers.add_parser(
        "push",
        help="validate a task file and push it to Kaggle Benchmarks",
        description=PUSH_DESCRIPTION,
        epilog=CREDENTIALS_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    push.add_argument("task", metavar="TASK", help="protocol name or id, or path of a task .py file")
    push.add_argument(
        "--slug",
        help="Kaggle task slug to push under; it must be the slug of the stored task's name "
        "(default: the protocol's task name, or the stored task's name for a file)",
    )
    push.add_argument("--dry-run", action="store_true", help="validate and show what would be sent; no network")
    push.add_argument(
        "--wait",
        type=int,
        nargs="?",
        const=0,
        default=None,
        metavar="SECONDS",
        help="wait until Kaggle has created the task (optional limit in seconds; 0 or none: no limit)",
    )
    push.add_argument(
        "--poll-interval",
        type=int,
        default=60,
        metavar="SECONDS",
        help="longest pause between status polls while waiting (default 60)",
    )
    push.add_argument(
        "-d",
        "--kaggle-dataset",
        dest="datasets",
        action="append",
        default=[],
        metavar="OWNER/DATASET",
        help="Kaggle dataset to attach (repeatable); re-pushing without -d detaches earlier ones",
    )
    push.set_defaults(handler=run_push)

    download = subparsers.add_parser(
        "download",
        help="download the run files of a task's hosted runs from Kaggle",
        description=DOWNLOAD_DESCRIPTION,
        epilog=CREDENTIALS_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    download.add_argument("task", metavar="TASK", help="protocol name or id, task .py file, or Kaggle task slug")
    download.add_argument("-o", "--output", required=True, type=Path, metavar="DIR", help="download root")
    download.add_argument(
        "-m",
        "--model",
        dest="models",
        action="append",
        default=[],
        metavar="MODEL",
        help="only this model's runs (repeatable; `vendor/name@x` is accepted as Kaggle does)",
    )
    download.add_argument("--force", action="store_true", help="download again runs that are already on disk")
    download.set_defaults(handler=run_download)


@dataclass(frozen=True)
class TaskTarget:
    """What TASK named: a task file (maybe not built yet) and the slug a protocol implies."""

    path: Path | None
    protocol_id: str | None = None
    protocol_slug_source: str | None = None


def resolve_task(task: str, *, allow_slug: bool) -> TaskTarget:
    """A task file or one protocol (`hallubench.task_lookup`), else (if allowed) a Kaggle slug."""
    from ..task_lookup import find_task

    try:
        found = find_task(task, newest_of_several=False)
    except TaskNotFound as error:
        if allow_slug and type(error) is TaskNotFound:  # no file and no protocol by that name: a Kaggle slug
            return TaskTarget(None)
        raise
    if found.spec is None:
        return TaskTarget(found.path)
    return TaskTarget(found.path, found.spec.protocol_id, found.spec.task_name)


def _error(message: str) -> None:
    print(f"hallubench: {message}", file=sys.stderr)


def run_push(args: argparse.Namespace) -> int:
    from ..publish import check_frozen, dataset_problems, validate_task_file

    try:
        target = resolve_task(args.task, allow_slug=False)
    except TaskNotFound as error:
        _error(str(error))
        return EXIT_INVALID
    assert target.path is not None
    if not target.path.is_file():
        _error(f"{target.protocol_id} has no task file at {target.path}; run `hallubench build` first")
        return EXIT_INVALID
    validation = validate_task_file(target.path, expected_slug=args.slug or target.protocol_slug_source)
    frozen = check_frozen(target.path)
    problems = [*validation.problems, *dataset_problems(args.datasets)]
    if frozen.problem is not None:
        problems.append(frozen.problem)
    for note in validation.notes:
        print(f"{validation.path}: note: {note}", file=sys.stderr)
    if problems:
        for problem in problems:
            print(problem.render(validation.path), file=sys.stderr)
        _error(f"{len(problems)} problem(s) in {validation.path}; nothing was pushed")
        return EXIT_INVALID
    assert validation.stored_task is not None and validation.slug is not None
    assert validation.notebook is not None
    cells = len(json.loads(validation.notebook)["cells"])
    print(f"task file:    {validation.path}")
    print(
        f"Kaggle slug:  {validation.slug}  (stored task `{validation.stored_task.name}`, "
        f"def {validation.stored_task.function}, line {validation.stored_task.line})"
    )
    print(f"notebook:     {cells} cells, {len(validation.notebook.encode('utf-8'))} bytes of ipynb JSON")
    print(f"datasets:     {', '.join(args.datasets) if args.datasets else 'none'}")
    print(f"frozen:       {frozen.summary}")
    if args.dry_run:
        print("dry run: nothing was sent to Kaggle")
        return 0
    return _push(args, target.path, validation.slug)


def _push(args: argparse.Namespace, path: Path, slug: str) -> int:
    from requests import RequestException

    from ..kaggle_access import KaggleAccessError, connect
    from ..publish import push_task

    try:
        api = connect()
    except KaggleAccessError as error:
        _error(f"cannot push: {error}")
        return EXIT_CREDENTIALS
    try:
        push_task(api, path, slug, datasets=args.datasets, wait=args.wait, poll_interval=args.poll_interval)
    except (ValueError, RequestException, OSError) as error:
        _error(f"push of {slug} failed: {error}")
        return EXIT_KAGGLE_ERROR
    print(f"\nOnce runs have finished: hallubench download {slug} -o <DIR>")
    return 0


def _download_slug(task: str, target: TaskTarget) -> str:
    """The Kaggle slug to download, normalized the way the kaggle client normalizes it."""
    from ..publish import slugify_task_name, validate_task_file

    if target.protocol_slug_source is not None:
        return slugify_task_name(target.protocol_slug_source)
    if target.path is not None:
        validation = validate_task_file(target.path, convert=False)
        if validation.slug is None:
            problems = "\n".join(p.render(validation.path) for p in validation.problems)
            raise TaskNotFound(f"cannot tell the stored task of {target.path}:\n{problems}")
        return validation.slug
    parts = [slugify_task_name(part) for part in task.split("/", 1)]
    if not all(parts):
        raise TaskNotFound(f"`{task}` is not a task slug (use `slug` or `owner/slug`)")
    return "/".join(parts)


def run_download(args: argparse.Namespace) -> int:
    from requests import RequestException

    from ..download import download_runs, format_summary, summarize_downloads, task_download_dir
    from ..kaggle_access import KaggleAccessError, connect

    try:
        target = resolve_task(args.task, allow_slug=True)
        slug = _download_slug(args.task, target)
    except TaskNotFound as error:
        _error(str(error))
        return EXIT_INVALID
    try:
        api = connect()
    except KaggleAccessError as error:
        _error(f"cannot download: {error}")
        return EXIT_CREDENTIALS
    try:
        download_runs(api, slug, args.output, models=args.models, force=args.force)
    except (ValueError, RequestException, OSError) as error:
        _error(f"download of {slug} failed: {error}")
        return EXIT_KAGGLE_ERROR
    task_dir = task_download_dir(args.output, slug)
    summary = summarize_downloads(task_dir)
    print(f"\nOn disk under {task_dir}:")
    for line in format_summary(summary):
        print(f"  {line}")
    if not any(item.run_files for item in summary):
        _error(f"no *.run.json under {task_dir}: nothing to rescore")
        return EXIT_KAGGLE_ERROR
    task_option = f" --task {target.path}" if target.path is not None else ""
    print(f"\nNext: hallubench rescore {task_dir}{task_option}")
    return 0
