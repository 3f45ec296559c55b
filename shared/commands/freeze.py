"""`hallubench freeze BENCHMARK` and `hallubench verify`."""

from __future__ import annotations

import argparse
import sys

from .verify_hosted import HOSTED_HELP, MODEL_HELP, run_verify_hosted


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "freeze",
        help="lock a protocol version: record its hashes and create the tag <benchmark>/v<N>",
        description="Record the task file's hashes in frozen_cases/protocols.lock, commit them and create "
        "the annotated tag <benchmark>/v<N>. A frozen version never changes again.",
    )
    parser.add_argument("benchmark", help="benchmark name (its newest unfrozen version) or protocol id")
    parser.add_argument("--no-commit", action="store_true", help="only write the lock (no commit, no tag)")
    parser.set_defaults(handler=run_freeze)
    verify = subparsers.add_parser(
        "verify",
        help="fail when a frozen task file differs from the lock or from its tag",
        description="Re-hash every locked task file, its cases and golden hashes, and the file under its tag.",
    )
    verify.add_argument("--hosted", metavar="TASK", help=HOSTED_HELP)
    verify.add_argument("-m", "--model", dest="models", action="append", default=[], metavar="MODEL", help=MODEL_HELP)
    verify.set_defaults(handler=run_verify)


def run_freeze(args: argparse.Namespace) -> int:
    from ..build import load_specs, unfrozen
    from ..freeze import FreezeError, freeze
    from ..repo import repo_root_or_report
    from ..specs import matching

    root = repo_root_or_report()
    if root is None:
        return 2
    specs = matching(load_specs(root), args.benchmark)
    if not specs:
        print(f"error: unknown benchmark {args.benchmark!r}", file=sys.stderr)
        return 2
    candidates = unfrozen(root, tuple(specs))
    if not candidates:
        print(f"error: every version of {args.benchmark} is already frozen", file=sys.stderr)
        return 2
    if len(candidates) > 1:
        ids = ", ".join(s.protocol_id for s in candidates)
        print(f"error: several unfrozen versions ({ids}); name one by its protocol id", file=sys.stderr)
        return 2
    spec = candidates[0]
    try:
        entry = freeze(root, spec, commit=not args.no_commit)
    except FreezeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(
        f"{entry.protocol}: frozen; {entry.task_file} sha256 {entry.task_sha256}"
        + ("" if args.no_commit else f"; tag {entry.tag}")
    )
    return 0


def run_verify(args: argparse.Namespace) -> int:
    if args.hosted is not None or args.models:
        return run_verify_hosted(args)
    from ..freeze import verify
    from ..repo import repo_root_or_report

    root = repo_root_or_report()
    if root is None:
        return 2
    ok, problems = verify(root)
    for protocol in ok:
        print(f"{protocol}: verified")
    for problem in problems:
        print(f"{problem.protocol}: {problem.message}", file=sys.stderr)
    if not ok and not problems:
        print("no frozen protocols yet")
    return 1 if problems else 0
