"""`hallubench build [BENCHMARK...] [--check]`: generate task files for every unfrozen protocol."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..exit_codes import EXIT_FAILED, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from ..specs import ProtocolSpec


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "build",
        help="write tasks/<benchmark>_v<N>.py, cases and golden prompt hashes for unfrozen protocols",
        description="Render every unfrozen protocol version into its self-contained task file. "
        "Frozen versions are never rebuilt. Building twice gives identical bytes.",
    )
    parser.add_argument(
        "benchmarks", nargs="*", metavar="BENCHMARK", help="benchmark names or protocol ids (default: all)"
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file is stale")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..build import build_protocol, load_specs, stale_files, unfrozen, write_built
    from ..contract_check import ContractError
    from ..repo import repo_root_or_report
    from ..specs import matching
    from ..taskfile.closure import EmbeddingError

    root = repo_root_or_report()
    if root is None:
        return EXIT_USAGE
    specs = load_specs(root)
    if args.benchmarks:
        unknown = sorted(name for name in args.benchmarks if not matching(specs, name))
        if unknown:
            known = sorted({name for spec in specs for name in (spec.benchmark, spec.protocol_id)})
            print(f"error: unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr)
            return EXIT_USAGE
        chosen = {spec for name in args.benchmarks for spec in matching(specs, name)}
        specs = tuple(spec for spec in specs if spec in chosen)
    todo = unfrozen(root, specs)
    for spec in specs:
        if spec not in todo:
            print(f"{spec.protocol_id}: frozen, not rebuilt{_drift_note(root, spec)}")
    failed = False
    stale_total = 0
    for spec in todo:
        try:
            built = build_protocol(root, spec)
        except (EmbeddingError, ContractError, ValueError, FileNotFoundError) as exc:
            print(f"{spec.protocol_id}: build failed: {exc}", file=sys.stderr)
            failed = True
            continue
        except Exception as exc:  # a cases factory or render that fails: name the protocol, keep going
            print(f"{spec.protocol_id}: build failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            failed = True
            continue
        if args.check:
            stale = stale_files(root, built)
            stale_total += len(stale)
            for path in stale:
                print(f"{spec.protocol_id}: stale {path} (run `hallubench build {spec.benchmark}`)")
            if not stale:
                print(f"{spec.protocol_id}: up to date ({len(built.files)} files)")
        else:
            changed = write_built(root, built)
            cases = built.files[spec.cases_path].count("\n") - 2
            print(
                f"{spec.protocol_id}: {spec.task_path} payload {built.payload_sha256[:12]} "
                f"{cases} cases, {len(changed)} file(s) written"
            )
    if failed:
        return EXIT_USAGE
    return EXIT_FAILED if stale_total else EXIT_OK


def _drift_note(root: Path, spec: ProtocolSpec) -> str:
    """Says which embedded modules `shared/` has changed since the freeze (they ship only in a new version)."""
    from ..build import drifted_modules
    from ..taskfile.reader import TaskFileError

    try:
        drifted = drifted_modules(root, spec)
    except (TaskFileError, OSError) as exc:
        return f" (cannot compare with shared/: {exc})"
    if not drifted:
        return ""
    shown = ", ".join(drifted[:4]) + (f" and {len(drifted) - 4} more" if len(drifted) > 4 else "")
    return (
        f"; shared/ has changed {len(drifted)} of its embedded modules since ({shown}): "
        f"the frozen file keeps its code; only a new version ships the change"
    )
