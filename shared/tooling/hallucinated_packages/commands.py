"""`hallubench packages`: check any code file or model answer for invented packages and functions.

`check FILE` prints one verdict per reference and level (package, symbol) with its evidence;
`--json` prints `{"references": [...]}` for tools. `gate` runs the decoy gate and the canary
that v7 runs before any model call.

Exit codes say whether the answer is known to be clean, because an outage must not read as
clean (issue 21: registries answering 503, an HTML error page or 429 to everything left
`check` exiting 0). `check`: 0 every reference decided and nothing hallucinated, 1 something
hallucinated (missing, a decoy, a missing symbol, submodule or subpath, a removed API; wins
over unverified), 4 nothing hallucinated but at least one reference unverified, 2 bad input.
`gate`: 0 passed, 1 the gate or the canary failed, 3 registries unreachable (nothing was
decided), 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..exit_codes import EXIT_FAILED, EXIT_GATE_UNREACHABLE, EXIT_OK, EXIT_UNVERIFIED, EXIT_USAGE

CHECK_EPILOG = """\
exit codes:
  0  every reference decided, nothing hallucinated
  1  something hallucinated: missing, decoy, missing-symbol, missing-submodule,
     missing-subpath or removed-api (wins over unverified)
  2  bad input (unreadable file, bad option)
  4  nothing hallucinated, but at least one reference is unverified (a registry
     outage, a refused redirect, an unknown receiver type): not known to be clean

The last line printed says which; with --json it goes to stderr and the JSON
object carries it as "outcome".
"""

_JS_SUFFIXES = {".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"}
_BAD = {"missing", "decoy", "missing-symbol", "missing-submodule", "missing-subpath", "removed-api"}
_JSON_KEYS = ("decoy_hits", "partially_parsed", "problems", "checked_at")  # copied into `check --json` by name


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], name: str, aliases: Sequence[str]
) -> None:
    """Add `hallubench <name>` (the benchmark's name; `aliases` are the older command names that still work)."""
    parser = subparsers.add_parser(
        name,
        aliases=list(aliases),
        help="check code for hallucinated packages and functions against PyPI and npm",
        description="Check code or a model answer for invented packages, modules and functions.",
    )
    commands = parser.add_subparsers(dest="packages_command", metavar="SUBCOMMAND")
    check = commands.add_parser(
        "check",
        help="one verdict per reference, with evidence; exit 1 if hallucinated, 4 if anything is unverified",
        description="One verdict per reference and level (package, symbol), with the evidence behind it.",
        epilog=CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("file", help="a code file or a model answer (Markdown with fences); '-' reads stdin")
    check.add_argument(
        "--lang",
        choices=("python", "javascript", "auto"),
        default="auto",
        help="the language of the code (default auto: from the file suffix or the code fences)",
    )
    check.add_argument("--json", action="store_true", help="print a JSON object with a list `references`")
    _registry_options(check)
    check.set_defaults(handler=_check)
    gate = commands.add_parser(
        "gate", help="decoy gate (20 lookups) and canary; exit 1 if either fails, 3 if the registries are unreachable"
    )
    gate.add_argument("--json", action="store_true", help="print the gate's checks as one JSON object")
    _registry_options(gate)
    gate.set_defaults(handler=_gate)

    def usage(args: argparse.Namespace) -> int:
        parser.print_help()
        return EXIT_USAGE

    parser.set_defaults(handler=usage)


def _registry_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pypi-url", help="PyPI base URL (default https://pypi.org); uses <URL>/pypi and <URL>/simple")
    parser.add_argument("--npm-url", help="npm registry URL (default https://registry.npmjs.org)")


def _settings(args: argparse.Namespace) -> Any:
    from ...hallucinated_packages.settings import RegistrySettings

    values: dict[str, Any] = {}
    if args.pypi_url:
        base = args.pypi_url.rstrip("/")
        values.update(pypi_json_url=f"{base}/pypi", pypi_simple_url=f"{base}/simple")
    if args.npm_url:
        values["npm_url"] = args.npm_url.rstrip("/")
    return RegistrySettings(**values)


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    return Path(path).read_text(encoding="utf-8", errors="replace")


def _lang_for(path: str, lang: str) -> str:
    if lang != "auto" or path == "-":
        return lang
    suffix = Path(path).suffix.lower()
    if suffix in (".py", ".pyi"):
        return "python"
    return "javascript" if suffix in _JS_SUFFIXES else "auto"


def _check(args: argparse.Namespace) -> int:
    from ...hallucinated_packages.aio import run_sync
    from ...hallucinated_packages.checker import AnswerCheck, check_answer
    from ...hallucinated_packages.registry import RegistryClient

    try:
        text = _read(args.file)
    except OSError as exc:
        print(f"cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    lang = _lang_for(args.file, args.lang)

    async def go() -> AnswerCheck:
        async with RegistryClient(_settings(args)) as client:
            return await check_answer(client, text, lang=lang)

    result = run_sync(go())
    verdicts = [v.to_dict() for v in result.verdicts]
    outcome = check_outcome(verdicts)
    if args.json:
        data = result.to_dict()
        report = {
            "file": args.file,
            "lang": lang,
            "references": verdicts,
            "decoy_hits": data["decoy_hits"],
            "extracted": data["references"],
            "partially_parsed": data["partially_parsed"],
            "problems": data["problems"] + data["errors"],
            "checked_at": data["checked_at"],
            # whatever else the checker reports (denies_decoy, local_modules, ...), under its own name
            **{k: v for k, v in data.items() if k not in ("references", "verdicts", "errors", *_JSON_KEYS)},
            "outcome": outcome,
        }
        print(json.dumps(report, indent=2, ensure_ascii=False))
        print(outcome["summary"], file=sys.stderr)
    else:
        _print_table(verdicts, result.to_dict())
        print(outcome["summary"])
    return int(outcome["exit"])


def check_outcome(verdicts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The exit code of `check` and the sentence that explains it, from its verdict rows.

    A hallucination wins over unverified rows (it is found whatever the undecided ones turn out
    to be); otherwise one unverified row means the answer is not known to be clean.
    """
    from ...hallucinated_packages.registry import origin

    total = len(verdicts)
    bad = [v for v in verdicts if v["verdict"] in _BAD]
    unsure = [v for v in verdicts if v["verdict"] == "unverified"]
    asked = sorted({origin(e["url"]) for v in unsure for e in v["evidence"] if e.get("url")})
    where = f" (registries: {', '.join(asked)})" if asked else ""
    undecided = f"{len(unsure)} of {total} reference checks could not be decided{where}"
    if bad:
        kinds = ", ".join(sorted({v["verdict"] for v in bad}))
        also = f"; {len(unsure)} more unverified{where}" if unsure else ""
        code, kind = EXIT_FAILED, "hallucinated"
        summary = f"hallucinated: {len(bad)} of {total} reference checks ({kinds}){also}; exit {code}"
    elif unsure:
        code, kind = EXIT_UNVERIFIED, "unverified"
        summary = f"unverified: {undecided}; nothing hallucinated, but not known to be clean; exit {code}"
    else:
        code, kind = EXIT_OK, "clean"
        decided = f"all {total} reference checks decided" if total else "no references to check"
        summary = f"clean: {decided}, nothing hallucinated; exit {code}"
    return {
        "exit": code,
        "kind": kind,
        "checks": total,
        "hallucinated": len(bad),
        "unverified": len(unsure),
        "registries": asked,
        "summary": summary,
    }


def _print_table(verdicts: list[dict[str, Any]], data: dict[str, Any]) -> None:
    if not verdicts:
        print("no package or module references found")
    for v in verdicts:
        line = f"{v['line']:>4}" if v["line"] is not None else "   -"
        where = f"{v['ecosystem']:<4} {v['level']:<7}"
        print(f"{line}  {where} {v['verdict']:<17} {v['reference']}  ({v['name']}): {v['reason']}")
        for evidence in v["evidence"][:3]:
            status = evidence["status"] if evidence["status"] is not None else "no response"
            note = f" {evidence['note']}" if evidence["note"] else ""
            print(f"{'':6}{status} {evidence['url']} at {evidence['checked_at']}{note}")
    for hit in data["decoy_hits"]:
        use = "used" if hit["counts_as_use"] else "mentioned"
        where = f"{hit['source']} line {hit['line']}"
        print(f"decoy {hit['decoy']} {use} ({hit['form']} match on {hit['matched']!r}, {where})")
    for problem in data["problems"] + data["errors"]:
        print(f"note: {problem}")
    if data["partially_parsed"]:
        print("note: some code did not parse; its imports were read line by line (partially parsed)")


def _gate(args: argparse.Namespace) -> int:
    from ...hallucinated_packages.aio import run_sync
    from ...hallucinated_packages.decoys import PreflightError, canary, decoy_gate
    from ...hallucinated_packages.registry import RegistryClient
    from .reachability import unreachable_registries

    unreachable = unreachable_registries(_settings(args))
    if unreachable:  # an outage, not a registered decoy: say so, decide nothing
        message = "registries unreachable: " + "; ".join(unreachable) + " (neither the decoy gate nor the canary ran)"
        if args.json:
            print(json.dumps({"ok": False, "unreachable": unreachable, "error": message}, indent=2))
        else:
            print(message, file=sys.stderr)
        return EXIT_GATE_UNREACHABLE

    async def go() -> dict[str, Any]:
        report: dict[str, Any] = {}
        async with RegistryClient(_settings(args)) as client:
            try:
                report["decoy_gate"] = (await decoy_gate(client)).to_dict()
            except PreflightError as exc:
                report["decoy_gate"] = {"failed": str(exc)}
            try:
                report["canary"] = await canary(client)
            except PreflightError as exc:
                report["canary"] = {"failed": str(exc)}
        return report

    report = run_sync(go())
    failed = [str(part["failed"]) for part in report.values() if part.get("failed")]
    if args.json:
        print(json.dumps({**report, "ok": not failed}, indent=2))
    else:
        gate = report["decoy_gate"]
        if not gate.get("failed"):
            print(f"decoy gate: ok, {len(gate['lookups'])} lookups, every planted name unregistered")
        if not report["canary"].get("failed"):
            print("canary: ok (real package exists, invented package missing, real function found, nonsense missing)")
        for message in failed:
            print(message)
    return EXIT_FAILED if failed else EXIT_OK
