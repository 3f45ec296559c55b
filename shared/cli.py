"""The `hallubench` command: one sub-command per module in `hallubench.commands`.

Each command module exposes `register(subparsers)`, which adds its parser and sets
`handler` (a function taking the parsed arguments and returning an exit code). Heavy
imports (kaggle-benchmarks, httpx, numpy) happen inside handlers, so `--help` is instant.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from . import __version__

COMMAND_MODULES = (
    "build",
    "freeze",
    "run",
    "rescore",
    "report",
    "push",
    "check",
    "maze",
    "packages",
    "misled",
)


def make_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every command registered."""
    parser = argparse.ArgumentParser(
        prog="hallubench",
        description="Frozen, re-scorable Kaggle Benchmarks tasks that measure where code models mislead.",
    )
    parser.add_argument("--version", action="version", version=f"hallubench {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"{__package__}.commands.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    parser = make_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        code = handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
