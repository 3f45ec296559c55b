"""`hallubench report RESULT.json --html OUT`: the HTML page of a rescore, from its saved `--json` result.

The page `rescore --html` writes is made from that same JSON structure, so a result saved once can
be turned into a page later, on another machine, without the run files or the task file.
Exit codes: 0 written; 2 the file is missing or not a rescore result, or the benchmark's declared page
view does not import.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..exit_codes import EXIT_USAGE


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write the HTML page of a rescore from its saved --json result",
        description="Write the self-contained HTML page of a rescore (the one `rescore --html` writes) from a result "
        "saved with `hallubench rescore ... --json RESULT.json`. Exit codes: 0 written; 2 unreadable input.",
    )
    parser.add_argument("result", type=Path, metavar="RESULT.json", help="a result written by `rescore --json`")
    parser.add_argument("--html", type=Path, metavar="OUT", required=True, help="the HTML file to write")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..report_html import ReportInputError, read_result, write_page
    from ..specs import HookError

    try:
        data = read_result(args.result)
        write_page(data, args.html)
    except (ReportInputError, HookError) as error:  # HookError: the benchmark's page view does not import
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote HTML report: {args.html.resolve()}")
    return 0
