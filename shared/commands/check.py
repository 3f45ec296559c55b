"""`hallubench check`: not built yet (placeholder so the command list is fixed)."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("check", help="(not built yet)")
    parser.set_defaults(handler=_not_built)


def _not_built(args: argparse.Namespace) -> int:
    print("hallubench check is not built yet", file=sys.stderr)
    return 2
