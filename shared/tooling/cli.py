"""The `hallubench` command: the generic sub-commands of `hallubench.tooling.commands`, plus one group per benchmark.

Each generic command module exposes `register(subparsers)`; each benchmark's declared `commands`
module (`hallubench.tooling.specs`) exposes `register(subparsers, name, aliases)`. Either adds its parser and sets
`handler` (a function taking the parsed arguments and returning an exit code). Heavy
imports (kaggle-benchmarks, httpx, numpy) happen inside handlers, so `--help` is instant.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence

from .. import __version__
from .exit_codes import EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, EXIT_USAGE
from .specs import HookError, installed_registry, load_hook

# The commands every checkout has; each benchmark adds its own group through its declared `commands` hook.
GENERIC_COMMANDS = ("new", "build", "modules", "freeze", "run", "rescore", "plan", "report", "push", "check")


def make_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every command registered."""
    parser = argparse.ArgumentParser(
        prog="hallubench",
        description="Frozen, re-scorable Kaggle Benchmarks tasks that measure where code models mislead.",
    )
    parser.add_argument("--version", action="version", version=f"hallubench {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in GENERIC_COMMANDS:
        module = importlib.import_module(f"{__package__}.commands.{name}")
        module.register(subparsers)
    for benchmark in installed_registry().benchmarks:
        if benchmark.commands is not None:
            commands = load_hook(benchmark.commands, f"the commands of {benchmark.name}")
            commands.register(subparsers, benchmark.name, benchmark.cli_aliases)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    _unencodable_text_escaped()
    try:
        parser = make_parser()
    except HookError as error:  # a benchmark's declared command group that does not import: named, no traceback
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        code = handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        # Every input problem has its own message and exit code; reaching here is a bug. Say so in one
        # line (the traceback on request), rather than a traceback a user has to read as an answer.
        if os.environ.get("HALLUBENCH_DEBUG"):
            raise
        print(
            f"error: internal error in hallubench {args.command}: {type(exc).__name__}: {exc} "
            "(a bug: please report it; HALLUBENCH_DEBUG=1 shows the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL_ERROR
    return int(code)


def _unencodable_text_escaped() -> None:
    """Print text the terminal cannot encode as escapes (`\\udc80`) instead of failing on it."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, TypeError, OSError):
                reconfigure(errors="backslashreplace")


if __name__ == "__main__":
    sys.exit(main())
