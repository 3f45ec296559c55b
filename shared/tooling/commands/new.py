"""`hallubench new NAME`: scaffold a benchmark that builds, runs on the embedded model and rescores as written."""

from __future__ import annotations

import argparse
import sys

from ..exit_codes import EXIT_USAGE


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "new",
        help="scaffold a new benchmark: entry module, cases, declaration, README stub and tests",
        description="Write the benchmark's three folders, named by its package (the name with hyphens turned into "
        "underscores): shared/<package>/ (entry module task_v1.py, cases.py, README.md), shared/tooling/<package>/ "
        "(its declaration, benchmark.py) and tests/<package>/: a trivial but real protocol (sums of two numbers) "
        "that `hallubench build NAME`, `run NAME` and `rescore` take as written. Nothing is overwritten.",
    )
    parser.add_argument("name", help="the benchmark's name: lower-case words joined by hyphens, e.g. demo-bench")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..cli import make_parser
    from ..repo import repo_root_or_report
    from ..scaffold import ScaffoldError, plan, write
    from ..specs import load_registry

    root = repo_root_or_report()
    if root is None:
        return EXIT_USAGE
    commands = next(a for a in make_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    try:
        scaffold = plan(args.name, load_registry(root), set(commands or {}), root)
    except ScaffoldError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    for path in write(scaffold, root):
        print(f"wrote {path}")
    print(f"\nnext (also in shared/{scaffold.package}/README.md):")
    for line in next_steps(scaffold.name, scaffold.package):
        print(f"  {line}")
    return 0


def next_steps(name: str, package: str) -> list[str]:
    """The commands that take a new benchmark from its first build to its freeze (the pytest line selects its tests)."""
    return [
        f"hallubench build {name}",
        f"hallubench run {name} --limit 2",
        "hallubench rescore <the folder it prints>",
        f'pytest tests/{package} tests/test_protocol_contract.py -k "{package} or {name}"',
        f"hallubench freeze {name}",
    ]
