"""`hallubench misled`: classify a test file against a HumanEvalPack problem; report runs."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ..commands.rescore import add_jail_option
from ..exit_codes import EXIT_FAILED, EXIT_HARNESS_ERROR, EXIT_JAIL, EXIT_OK, EXIT_USAGE


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], name: str, aliases: Sequence[str]
) -> None:
    """Add `hallubench <name>` (the benchmark's name; `aliases` are the older command names that still work)."""
    parser = subparsers.add_parser(name, aliases=list(aliases), help="misled-tests: classify test files, report runs")
    commands = parser.add_subparsers(dest="misled_command", metavar="SUBCOMMAND")

    def usage(args: argparse.Namespace) -> int:
        parser.print_help()
        return EXIT_USAGE

    parser.set_defaults(handler=usage)

    classify = commands.add_parser(
        "classify",
        help="run pytest files on the buggy and fixed version of a problem and classify each test",
        description="Runs every collected test item on both versions in the misled-tests executor, inside the "
        "kernel-enforced jail (bubblewrap, Landlock, seccomp; see `hallubench rescore --help`), and classifies it "
        "(effective, misled, both-pass, both-fail, broken). Exit 0: every file gave tests; 1: a file gave none "
        "(syntax or import error, nothing collected); 2: bad usage; 3: the sandbox failed; 7: the jail lacks a "
        "layer (nothing was executed; see --jail-without).",
    )
    classify.add_argument("--problem", required=True, help="HumanEvalPack task id, e.g. Python/30")
    classify.add_argument("--tests", required=True, nargs="+", metavar="FILE", help="the pytest file(s) to classify")
    classify.add_argument("--data", help="local humanevalpack.jsonl (default: $HALLUBENCH_HUMANEVALPACK or download)")
    classify.add_argument("--timeout", type=float, default=10.0, help="seconds per test item and version")
    classify.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="sandbox servers in parallel (default: the number of cores)"
    )
    classify.add_argument(
        "--no-namespaces",
        action="store_true",
        help="no fresh namespaces per program version, as on a machine without user namespaces (hosted runs may "
        "be); the outer jail stays",
    )
    add_jail_option(classify)
    classify.add_argument("--json", action="store_true", help="print JSON (one object, or a list for several files)")
    classify.set_defaults(handler=_classify)

    report = commands.add_parser("report", help="condition table and the four primary comparisons")
    report.add_argument("runs", nargs="+", help="row files (JSON/JSONL) or kbench *.run.json files")
    report.add_argument("--json", action="store_true", help="print JSON")
    report.set_defaults(handler=_report)


def _classify(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ...misled_tests.data import DataError, load_problems
    from ...misled_tests.executor.host import default_workers
    from ..jail.describe import describe_layers
    from ..jail.policy import JailFailed, JailRefused, parse_accepted
    from .jailed import classify

    if args.jobs is not None and args.jobs < 1:
        print("error: --jobs must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    try:
        accepted = parse_accepted(args.jail_without)
    except ValueError as exc:
        print(f"error: --jail-without: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        problems = load_problems(args.data)
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    problem = problems.get(args.problem)
    if problem is None:
        print(f"error: no problem {args.problem!r} in the data (ids look like Python/30)", file=sys.stderr)
        return EXIT_USAGE
    sources = []
    for name in args.tests:
        try:
            sources.append(Path(name).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            print(f"error: cannot read {name}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    workers = args.jobs if args.jobs is not None else default_workers()
    try:
        found, layers = classify(
            [(problem.fields(), source) for source in sources],
            item_timeout_s=args.timeout,
            namespaces=not args.no_namespaces,
            workers=workers,
            accept_missing=accepted,
        )
    except JailRefused as refused:
        print(f"error: {refused}", file=sys.stderr)
        return EXIT_JAIL
    except JailFailed as exc:
        print(f"error: sandbox: {exc}", file=sys.stderr)
        return EXIT_HARNESS_ERROR
    results = [{**item, "file": name, "jail": layers} for name, item in zip(args.tests, found, strict=True)]
    if args.json:
        print(json.dumps(results[0] if len(results) == 1 else results, indent=2))
    else:
        for result in results:
            print(f"{result['file']}: {result['problem']}: {result['status']} {result['detail']}".rstrip())
            for test in result["tests"]:
                print(f"  {test['outcome']:<10} buggy={test['buggy']:<8} fixed={test['fixed']:<8} {test['id']}")
            print("  " + ", ".join(f"{count} {name}" for name, count in result["counts"].items()))
        print(f"model-written code ran in the jail: {describe_layers(layers)}")
    if any(item.get("status") == "harness_error" for item in found):
        return EXIT_HARNESS_ERROR
    return EXIT_OK if all(item.get("status") == "ok" for item in found) else EXIT_FAILED


def _report(args: argparse.Namespace) -> int:
    from .report import MisledReportInputError, build_report, format_report, rows_from_paths

    try:
        rows = rows_from_paths(args.runs)
    except MisledReportInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    report = build_report(rows)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0
