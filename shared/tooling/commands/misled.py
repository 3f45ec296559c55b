"""`hallubench misled`: classify a test file against a HumanEvalPack problem; report runs."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], name: str, aliases: Sequence[str]
) -> None:
    """Add `hallubench <name>` (the benchmark's name; `aliases` are the older command names that still work)."""
    parser = subparsers.add_parser(name, aliases=list(aliases), help="misled-tests: classify test files, report runs")
    commands = parser.add_subparsers(dest="misled_command", metavar="SUBCOMMAND")

    def usage(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(handler=usage)

    classify = commands.add_parser(
        "classify", help="run a pytest file on the buggy and fixed version of a problem and classify each test"
    )
    classify.add_argument("--problem", required=True, help="HumanEvalPack task id, e.g. Python/30")
    classify.add_argument("--tests", required=True, help="the pytest file to classify")
    classify.add_argument("--data", help="local humanevalpack.jsonl (default: $HALLUBENCH_HUMANEVALPACK or download)")
    classify.add_argument("--timeout", type=float, default=10.0, help="seconds per test item and version")
    classify.add_argument("--json", action="store_true", help="print JSON")
    classify.set_defaults(handler=_classify)

    report = commands.add_parser("report", help="condition table and the four primary comparisons")
    report.add_argument("runs", nargs="+", help="row files (JSON/JSONL) or kbench *.run.json files")
    report.add_argument("--json", action="store_true", help="print JSON")
    report.set_defaults(handler=_report)


def _classify(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ...misled.classify import classify_file
    from ...misled.data import DataError, load_problems
    from ...misled.sandbox import Limits, SandboxError

    try:
        problems = load_problems(args.data)
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    problem = problems.get(args.problem)
    if problem is None:
        print(f"error: no problem {args.problem!r} in the data (ids look like Python/30)", file=sys.stderr)
        return 2
    try:
        source = Path(args.tests).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {args.tests}: {exc}", file=sys.stderr)
        return 2
    try:
        found = classify_file(problem, source, limits=Limits(item_timeout_s=args.timeout))
    except SandboxError as exc:
        print(f"error: sandbox: {exc}", file=sys.stderr)
        return 3
    result = found.as_dict()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{result['problem']}: {result['status']} {result['detail']}".rstrip())
        for test in result["tests"]:
            print(f"  {test['outcome']:<10} buggy={test['buggy']:<8} fixed={test['fixed']:<8} {test['id']}")
        print("  " + ", ".join(f"{count} {name}" for name, count in result["counts"].items()))
    return 0 if found.status == "ok" else 1


def _report(args: argparse.Namespace) -> int:
    from ..misled.report import ReportInputError, build_report, format_report, rows_from_paths

    try:
        rows = rows_from_paths(args.runs)
    except ReportInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = build_report(rows)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0
