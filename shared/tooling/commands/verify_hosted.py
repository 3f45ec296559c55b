"""`hallubench verify --hosted TASK`: does Kaggle hold the frozen task file's code for TASK?

TASK is a frozen protocol (or its task file). Its slug follows the rule `push` uses; the hosted
code is each server version's run source (see `hallubench.hosted_copy` for why, and how the
two are compared). A version without a finished run has no copy to compare, and is reported as
that, never as verified.

Exit codes: 0 every server version has the frozen code; 1 a version's code differs (named with
its run and first differing line); 2 TASK is not a frozen task file, or -m without --hosted
(nothing sent); 3 no usable Kaggle credentials; 4 nothing to compare for some version and no
difference anywhere (task not on Kaggle, no finished run yet, a run output without its
source): not verified; 5 Kaggle's API failed or sent something unreadable.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..exit_codes import EXIT_CREDENTIALS
from ..exit_codes import EXIT_HOSTED_DIFFERS as EXIT_DIFFERS
from ..exit_codes import EXIT_HOSTED_KAGGLE_ERROR as EXIT_KAGGLE_ERROR
from ..exit_codes import EXIT_HOSTED_NOTHING_TO_COMPARE as EXIT_NOTHING_TO_COMPARE
from ..exit_codes import EXIT_OK as EXIT_SAME
from ..exit_codes import EXIT_USAGE as EXIT_INVALID
from ..task_lookup import TaskNotFound

if TYPE_CHECKING:
    from ..hosted_copy import FrozenCode, HostedTask, VersionCheck


HOSTED_HELP = (
    "instead of the lock, check the code Kaggle holds for TASK (a frozen protocol or its task file): "
    "each server version's run source must equal the frozen file (exit 0 same, 1 differs, 2 not a "
    "frozen task, 3 no credentials, 4 nothing to compare yet, 5 Kaggle error)"
)
MODEL_HELP = "with --hosted: take the source from this model's runs only (repeatable; `vendor/name@x` accepted)"


def _error(message: str) -> None:
    print(f"hallubench: {message}", file=sys.stderr)


def _frozen_code(task: str) -> tuple[FrozenCode, str, str]:
    """The frozen file's round-trip code, its Kaggle slug and how it is frozen; raises TaskNotFound."""
    from ..hosted_copy import FrozenCode
    from ..publish import check_frozen, validate_task_file
    from .push import resolve_task

    target = resolve_task(task, allow_slug=False)
    assert target.path is not None
    if not target.path.is_file():
        raise TaskNotFound(f"{target.protocol_id} has no task file at {target.path}; run `hallubench build` first")
    frozen = check_frozen(target.path)
    if frozen.problem is not None:
        raise TaskNotFound(frozen.problem.render(str(target.path)))
    if frozen.protocol is None:
        raise TaskNotFound(
            f"{target.path} is not a frozen protocol ({frozen.summary}); `verify --hosted` compares "
            "Kaggle's copy with a frozen task file"
        )
    validation = validate_task_file(target.path, expected_slug=target.protocol_slug_source)
    if validation.slug is None or validation.notebook is None:
        problems = "\n".join(problem.render(validation.path) for problem in validation.problems)
        raise TaskNotFound(f"cannot tell what {target.path} pushes to Kaggle:\n{problems}")
    return FrozenCode.from_notebook(target.path, validation.notebook), validation.slug, frozen.summary


def run_verify_hosted(args: argparse.Namespace) -> int:
    if args.hosted is None:
        _error("-m/--model selects the runs of `verify --hosted TASK`; give --hosted TASK")
        return EXIT_INVALID
    try:
        frozen, slug, frozen_summary = _frozen_code(args.hosted)
    except TaskNotFound as error:
        _error(str(error))
        return EXIT_INVALID
    from ..hosted_copy import check_versions, describe_kaggle_error, fetch_task
    from ..kaggle_access import KaggleAccessError, connect

    print(f"task file:    {frozen.path} ({frozen_summary})")
    if not frozen.same_as_file:
        print("note:         jupytext's round trip changes this file; line numbers below are the round trip's")
    try:
        api = connect()
    except KaggleAccessError as error:
        _error(f"cannot check the hosted copy: {error}")
        return EXIT_CREDENTIALS
    try:
        with api.build_kaggle_client() as kaggle:
            task = fetch_task(api, kaggle, slug, args.models)
            if task.current_version is None:
                _print_not_pushed(task)
                return EXIT_NOTHING_TO_COMPARE
            checks = check_versions(api, kaggle, task, frozen)
    except (OSError, ValueError) as error:  # requests' errors are OSErrors; kaggle raises ValueError
        _error(f"cannot check the hosted copy of {slug}: {describe_kaggle_error(error)}")
        return EXIT_KAGGLE_ERROR
    _print_task(task, args.models)
    for check in checks:
        _print_check(check, frozen.path)
    return _verdict(task, checks)


def _print_not_pushed(task: HostedTask) -> None:
    print(f"Kaggle task:  {task.slug}: not found for these credentials")
    _error(
        f"not verified: Kaggle has no task {task.slug} (push it with `hallubench push`), so there is no "
        "hosted copy to compare"
    )


def _print_task(task: HostedTask, models: list[str]) -> None:
    creation = f"creation {task.creation_state}" if task.creation_state else "creation state unknown"
    runs = f"{len(task.runs)} run(s)" + (f" of {', '.join(models)}" if models else "")
    print(f"Kaggle task:  {task.slug}, server version {task.current_version} ({creation}); {runs}")


def _print_check(check: VersionCheck, task_file: Path) -> None:
    from ..hosted_copy import Outcome, show_line

    label = f"version {check.version}:"
    if check.outcome is Outcome.DIFFERS:
        print(f"{label:<13} DIFFERS: {check.detail}")
    else:
        print(f"{label:<13} {check.outcome.value}: {check.detail}")
    difference = check.difference
    if difference is not None:
        print(f"{'':<13} first difference at line {difference.line}, column {difference.column} of {task_file}")
        print(f"{'':<13}   frozen: {show_line(difference.frozen, difference.column, difference.hosted)}")
        print(f"{'':<13}   hosted: {show_line(difference.hosted, difference.column, difference.frozen)}")


def _verdict(task: HostedTask, checks: list[VersionCheck]) -> int:
    from ..hosted_copy import Outcome

    def versions(outcome: Outcome) -> str:
        return ", ".join(str(check.version) for check in checks if check.outcome is outcome)

    if any(check.outcome is Outcome.DIFFERS for check in checks):
        _error(f"the hosted code of {task.slug} differs from the frozen file (version {versions(Outcome.DIFFERS)})")
        return EXIT_DIFFERS
    if any(check.outcome is Outcome.ERROR for check in checks):
        _error(f"not verified: Kaggle's copy of {task.slug} version {versions(Outcome.ERROR)} could not be read")
        return EXIT_KAGGLE_ERROR
    if any(check.outcome is Outcome.NOT_COMPARED for check in checks):
        same = versions(Outcome.SAME)
        _error(
            f"not verified: nothing to compare for {task.slug} version {versions(Outcome.NOT_COMPARED)}"
            + (f" (version {same}: same code)" if same else "")
        )
        return EXIT_NOTHING_TO_COMPARE
    print(f"verified:     every server version of {task.slug} ({versions(Outcome.SAME)}) has the frozen file's code")
    return EXIT_SAME
