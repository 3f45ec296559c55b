"""`hallubench freeze BENCHMARK` and `hallubench verify`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..exit_codes import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from .verify_hosted import HOSTED_HELP, MODEL_HELP, run_verify_hosted


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "freeze",
        help="lock a protocol version: record its hashes and create the tag <benchmark>/v<N>",
        description="Record the task file's hashes in frozen_cases/protocols.lock, commit them and create "
        "the annotated tag <benchmark>/v<N>. A frozen version never changes again.",
    )
    parser.add_argument(
        "benchmark", nargs="?", help="benchmark name (its newest unfrozen version) or protocol id to freeze"
    )
    parser.add_argument("--no-commit", action="store_true", help="only write the lock (no commit, no tag)")
    parser.add_argument(
        "--restore-tags",
        action="store_true",
        help="freeze nothing; re-create every missing tag <benchmark>/v<N> at the commit that froze it (found "
        "from the history of the lock), with the locked hashes in its message; existing tags are never moved",
    )
    parser.set_defaults(handler=run_freeze)
    verify = subparsers.add_parser(
        "verify",
        help="fail when a frozen protocol changed: on disk, in any commit since it was frozen, or under its tag",
        description="Re-hash every locked task file, its cases and golden hashes; find in the history of HEAD "
        "(read without replace objects; replace refs and grafts are errors) the commit that froze each protocol "
        "(the first to add its lock entry), check its files there and that its message records the locked "
        "sha256; fail naming any later commit that changed a locked file or changed or removed a lock entry; "
        "check that each tag present points at its freezing commit and report the missing ones; then say what "
        "anchors each freeze outside this history. Exit codes: 0 verified (tags may be missing); 1 a frozen "
        "protocol changed, the lock is not one entry per protocol, or a run file contradicts the lock; 2 the "
        "history could not be read (not a git clone, a shallow clone) or no checkout found.",
    )
    verify.add_argument("--hosted", metavar="TASK", help=HOSTED_HELP)
    verify.add_argument(
        "--runs",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="also check hosted run files (or folders of them): every row's protocol and payload sha256 must be the "
        "ones the lock pins, an anchor outside this repository's history",
    )
    verify.add_argument("-m", "--model", dest="models", action="append", default=[], metavar="MODEL", help=MODEL_HELP)
    verify.set_defaults(handler=run_verify)


def run_freeze(args: argparse.Namespace) -> int:
    from ..build import load_specs, unfrozen
    from ..freeze import FreezeError, freeze
    from ..repo import repo_root_or_report
    from ..specs import matching

    root = repo_root_or_report()
    if root is None:
        return EXIT_USAGE
    if args.restore_tags:
        if args.benchmark is not None or args.no_commit:
            print("error: --restore-tags takes no protocol and no --no-commit", file=sys.stderr)
            return EXIT_USAGE
        return _restore_tags(root)
    if args.benchmark is None:
        print("error: name the protocol to freeze (or pass --restore-tags)", file=sys.stderr)
        return EXIT_USAGE
    specs = matching(load_specs(root), args.benchmark)
    if not specs:
        print(f"error: unknown benchmark {args.benchmark!r}", file=sys.stderr)
        return EXIT_USAGE
    try:
        candidates = unfrozen(root, tuple(specs))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if not candidates:
        print(f"error: every version of {args.benchmark} is already frozen", file=sys.stderr)
        return EXIT_USAGE
    if len(candidates) > 1:
        ids = ", ".join(s.protocol_id for s in candidates)
        print(f"error: several unfrozen versions ({ids}); name one by its protocol id", file=sys.stderr)
        return EXIT_USAGE
    spec = candidates[0]
    try:
        entry = freeze(root, spec, commit=not args.no_commit)
    except (FreezeError, ValueError) as exc:  # ValueError: the lock is not one valid entry per protocol
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print(
        f"{entry.protocol}: frozen; {entry.task_file} sha256 {entry.task_sha256}"
        + ("" if args.no_commit else f"; tag {entry.tag}")
    )
    return 0


def _restore_tags(root: Path) -> int:
    from ..freeze import restore_missing_tags
    from ..git_history import HistoryUnavailable

    try:
        restored, problems = restore_missing_tags(root)
    except HistoryUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for tag in restored:
        if tag.created:
            print(f"{tag.protocol}: created tag {tag.tag} at {tag.commit[:10]}")
        else:
            print(f"{tag.protocol}: tag {tag.tag} exists (at {tag.commit[:10]}), left as it is")
    refused = sorted({problem.protocol for problem in problems})
    for problem in problems:
        print(f"{problem.protocol}: {problem.message}", file=sys.stderr)
    if refused:
        print(f"error: no tag restored for {', '.join(refused)}: its history does not verify", file=sys.stderr)
        return EXIT_FAILED
    return 0


def run_verify(args: argparse.Namespace) -> int:
    if args.hosted is not None or args.models:
        return run_verify_hosted(args)
    from ..freeze import verify
    from ..repo import repo_root_or_report

    root = repo_root_or_report()
    if root is None:
        return EXIT_USAGE
    report = verify(root)
    runs = None
    if args.runs:
        from ..lockfile import read_lock
        from ..verify_runs import check_runs

        try:
            runs = check_runs(list(args.runs), read_lock(root))
        except ValueError:
            runs = None  # the lock itself is the problem, already in the report
    if runs is not None:
        from ..freeze import VerifyProblem

        report.problems.extend(VerifyProblem(protocol, message) for protocol, message in runs.problems)
    failing = {problem.protocol for problem in report.problems}
    for check in report.checks:
        if check.anchor is None or check.entry.protocol in failing:
            continue
        commit = check.anchor.commit
        tag = "checked" if check.tag is not None and check.tag.present else "missing"
        outside = "outside anchors: none given (see below)"
        if runs is not None and runs.agreeing.get(check.entry.protocol):
            count, files = runs.agreeing[check.entry.protocol], len(runs.files[check.entry.protocol])
            outside = f"{count} hosted row(s) in {files} run file(s) ran the locked payload"
        print(
            f"{check.entry.protocol}: verified; frozen in commit {commit.short} of {commit.committer_date[:10]} "
            f'("{commit.subject}"), unchanged since; tag {check.entry.tag} {tag}; payload '
            f"{check.entry.payload_sha256}; {outside}"
        )
    for problem in report.problems:
        print(f"{problem.protocol}: {problem.message}", file=sys.stderr)
    if report.history_error is not None:
        print(f"error: cannot verify the freeze: {report.history_error}", file=sys.stderr)
        return EXIT_USAGE
    if report.missing_tags:
        print(
            f"{len(report.missing_tags)} tag(s) missing (tags do not travel with every clone; the freezing commits "
            "above are the anchor): `hallubench freeze --restore-tags` re-creates them"
        )
    if report.checks and not report.problems:
        print(ANCHOR_NOTE)
    if not report.checks and not report.problems:
        print("no frozen protocols yet")
    return EXIT_FAILED if report.problems else EXIT_OK


ANCHOR_NOTE = (
    "What anchors these freezes: the history of this clone and the tags found in it. History alone cannot prove it "
    "was not rewritten (a rewrite from a freeze on that keeps the messages passes in every fresh clone), so check "
    "an anchor outside it: `hallubench verify --hosted TASK` (the task as published on Kaggle), `hallubench verify "
    "--runs PATH...` (hosted run files: every row records the payload it ran), tags restored in an earlier clone, "
    "and the payload sha256 above where you published it (the Kaggle task's description, your paper)."
)
