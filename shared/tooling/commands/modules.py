"""`hallubench modules [BENCHMARK...] [--superseded]`: which versions embed each module of a benchmark's folder.

Lists, for every module under `shared/<package>/`, the frozen versions whose task file embeds it
(`*`: its bytes have changed since that freeze; the frozen file keeps its own copy) and the versions
that use it today (every unfrozen version and each benchmark's newest), and flags the modules only
superseded versions use, and those only frozen task files still hold (`hallubench.tooling.module_use`).
Exit codes: 0 listed; 2 not a checkout, or an unknown benchmark.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..exit_codes import EXIT_USAGE

if TYPE_CHECKING:
    from ..module_use import ModuleUse, PackageUse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "modules",
        help="list, per module of each benchmark's folder, the frozen versions that embed it and flag superseded code",
        description="For every module under shared/<package>/: the frozen versions whose task file embeds it (* its "
        "bytes have changed since that freeze; the frozen file keeps its own copy) and the versions that use it today "
        "(every unfrozen version and each benchmark's newest, through its entry module and cases factory). A module "
        "only older frozen versions embed is superseded: changing it changes no hosted run and no next version, and "
        "tests of those versions load their frozen task file. Exit codes: 0 listed; 2 not a checkout or an unknown "
        "benchmark.",
    )
    parser.add_argument(
        "benchmarks", nargs="*", metavar="BENCHMARK", help="benchmark names or aliases (default: every benchmark)"
    )
    parser.add_argument(
        "--superseded", action="store_true", help="list only superseded modules and those only frozen files hold"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..module_use import module_use
    from ..repo import repo_root_or_report
    from ..specs import load_registry

    root = repo_root_or_report()
    if root is None:
        return EXIT_USAGE
    registry = load_registry(root)
    chosen = [registry.benchmark(name) for name in args.benchmarks]
    unknown = [name for name, found in zip(args.benchmarks, chosen, strict=True) if found is None]
    if unknown:
        known = ", ".join(b.name for b in registry.benchmarks)
        print(f"error: unknown benchmark(s): {', '.join(unknown)}; known: {known}", file=sys.stderr)
        return EXIT_USAGE
    packages = sorted({b.package for b in chosen if b is not None}) if args.benchmarks else None
    for index, package in enumerate(module_use(root, registry, packages)):
        if index:
            print()
        for line in _package_lines(package, only_superseded=args.superseded):
            print(line)
    print("\n* its bytes in shared/ have changed since that version froze (the frozen task file keeps its own copy)")
    return 0


def _label(protocol_id: str, owners: tuple[str, ...]) -> str:
    """`hallumaze/v2` -> `v2`, `misled-tests-thinking/v1` -> `thinking/v1` in misled_tests' listing."""
    name, _, version = protocol_id.rpartition("/")
    owner = min(owners, key=len) if owners else ""
    if name == owner:
        return version
    return f"{name.removeprefix(owner + '-')}/{version}" if name.startswith(owner + "-") else protocol_id


def _package_lines(package: PackageUse, *, only_superseded: bool) -> list[str]:
    superseded = [m for m in package.modules if m.superseded]
    unembedded = [m for m in package.modules if m.unembedded]
    gone = [m for m in package.modules if not m.in_shared]
    in_shared = len(package.modules) - len(gone)
    lines = [
        f"{package.package} (shared/{package.package}/; {', '.join(package.benchmarks)}): {in_shared} modules, "
        f"{len(superseded)} superseded, {len(unembedded)} embedded by no version, {len(gone)} only in frozen "
        "task files"
    ]
    shown = [m for m in package.modules if not only_superseded or m.superseded or not m.in_shared]
    rows = [("module", "embedded by frozen versions", "used today by"), *(_row(m, package) for m in shown)]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    for module, frozen, today in rows:
        lines.append(f"  {module.ljust(widths[0])}  {frozen.ljust(widths[1])}  {today}".rstrip())
    return lines


def _row(module: ModuleUse, package: PackageUse) -> tuple[str, str, str]:
    name = module.path.removeprefix(f"{package.package}/")
    frozen = ", ".join(
        _label(e.protocol_id, package.benchmarks) + ("*" if e.changed_since else "") for e in module.frozen
    )
    if not module.in_shared:
        today = "gone from shared/: only the frozen task files hold it"
    elif module.superseded:
        today = "- (superseded: only older frozen versions embed it)"
    elif module.unembedded:
        today = "- (embedded by no version: the tooling reads it, or a next version will embed it)"
    else:
        today = ", ".join(_label(protocol_id, package.benchmarks) for protocol_id in module.current)
    return name, frozen or "-", today
