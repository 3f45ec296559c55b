"""`hallubench check`: run an output check on a file from the shell (CI steps, quick triage).

Exit codes follow the three outcomes of `hallubench.checks`: 0 pass, 1 fail, 2 error. An
unreadable or undecodable file is an error (2), never a fail, so a broken pipeline step is not
mistaken for a model that answered badly.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..exit_codes import EXIT_FAILED, EXIT_OK, EXIT_USAGE

EXIT_CODES = {"pass": EXIT_OK, "fail": EXIT_FAILED, "error": EXIT_USAGE}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "check",
        help="check a model output file (exit 0 pass, 1 fail, 2 error)",
        description="Check a model output file. Exit status: 0 pass, 1 fail, 2 error (could not decide).",
    )
    checks = parser.add_subparsers(dest="check", metavar="CHECK")
    json_parser = checks.add_parser(
        "json",
        help="is the output valid JSON (one markdown fence around the whole reply is tolerated)?",
        description=(
            "Pass when FILE holds valid JSON. Unless --strict, one markdown code fence that encloses "
            "the whole trimmed reply (``` or ~~~, any tag) is removed first; the detail then says so."
        ),
    )
    json_parser.add_argument("file", metavar="FILE", help="the output to check; '-' reads standard input")
    json_parser.add_argument("--json", action="store_true", help="print the result as a JSON object")
    json_parser.add_argument("--strict", action="store_true", help="do not remove a markdown code fence")
    json_parser.set_defaults(handler=_check_json)
    parser.set_defaults(handler=lambda args: _missing_check(parser))


def _missing_check(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _read_text(path: str) -> str:
    """The file's text (UTF-8; a byte-order mark is an encoding artifact and is dropped)."""
    if path == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        data = buffer.read() if buffer is not None else sys.stdin.read().encode("utf-8")
    else:
        with open(path, "rb") as handle:
            data = handle.read()
    return str(data.decode("utf-8-sig"))


def _check_json(args: argparse.Namespace) -> int:
    from ...checks import Check, CheckResult

    source = "<stdin>" if args.file == "-" else args.file
    try:
        text = _read_text(args.file)
    except (OSError, UnicodeDecodeError) as exc:
        result = CheckResult.error(f"cannot read {source}: {type(exc).__name__}: {exc}")
    else:
        result = Check.is_valid_json(strict=args.strict).run(text)
    if args.json:
        record = {"check": "is_valid_json", "source": source, "strict": args.strict, **result.to_dict()}
        print(json.dumps(record, ensure_ascii=False, indent=2))
    if result.is_error:
        print(f"hallubench check json: error: {result.detail}", file=sys.stderr)
    elif not args.json:
        print(f"{result.status}: {result.detail}")
    return EXIT_CODES[result.status]
