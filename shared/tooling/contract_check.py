"""`build`'s run-time check of an entry module against the contract its spec declares.

mypy checks the types (`hallubench.contract`); this checks what mypy cannot see from a spec:
that the functions exist with the number of arguments the version's declarations imply (read from
the contract's own Protocols, so the two cannot disagree), that every declared hook is there, and
that no hook is there undeclared (a `preflight` nobody declared would silently never run).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, cast

from ..contract import (
    ComparableHook,
    EntryModule,
    EntryModuleWithOptions,
    PreflightHook,
    PreflightHookWithOptions,
    PrepareHook,
)
from .specs import HookError, ProtocolSpec, RunOption

HOOKS = ("preflight", "comparable", "prepare")


class ContractError(HookError):
    """The entry module does not provide what its spec declares."""


def _positional(function: object) -> int | None:
    try:
        parameters = inspect.signature(function).parameters.values()  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
        return None  # *args: any number
    return sum(1 for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def _contract_arities(with_options: bool) -> dict[str, int]:
    """Positional arguments of each function, read from the Protocols of `hallubench.contract` (self excluded)."""
    entry: type = EntryModuleWithOptions if with_options else EntryModule
    preflight: type = PreflightHookWithOptions if with_options else PreflightHook
    owners = {"render": entry, "play": entry, "aggregate": entry, "preflight": preflight}
    owners |= {"comparable": ComparableHook, "prepare": PrepareHook}
    arities = {name: _positional(getattr(owner, name)) for name, owner in owners.items()}
    return {name: found - 1 for name, found in arities.items() if found is not None}


def check_entry(module: ModuleType, spec: ProtocolSpec) -> None:
    """Raise ContractError naming every way `module` (the loaded entry) departs from `spec`."""
    problems = []
    wanted = _contract_arities(bool(spec.run_options))
    declared = {"preflight": spec.preflight, "comparable": spec.comparable, "prepare": spec.prepare}
    for name, arity in wanted.items():
        function = getattr(module, name, None)
        if name in declared and not declared[name]:
            if function is not None:
                problems.append(f"defines {name}() but the spec does not declare it (set {name}=True, or rename it)")
            continue
        if not callable(function):
            problems.append(f"has no {name}() function")
            continue
        found = _positional(function)
        if found is not None and found != arity:
            why = " (the version declares run options)" if name == "play" and spec.run_options else ""
            problems.append(f"{name}() takes {found} positional argument(s), the contract says {arity}{why}")
    if problems:
        raise ContractError(f"{spec.protocol_id}: entry module {spec.entry} " + "; ".join(problems))


@dataclass(frozen=True)
class VersionHooks:
    """What a loaded entry provides as its spec declares it: the cases `render` and `play` get, the hooks."""

    cases: list[dict[str, Any]]  # prepared when the version declares `prepare`
    comparable: Callable[[dict[str, Any]], Any] | None
    run_options: tuple[RunOption, ...]

    def case_by_id(self) -> dict[str, dict[str, Any]]:
        return {str(case["id"]): case for case in self.cases}


def resolve_hooks(entry: ModuleType, cases: list[dict[str, Any]], spec: ProtocolSpec | None) -> VersionHooks:
    """The hooks of a loaded entry; `spec` None (a task file no registry declares) means every default.

    Raises ContractError when the entry does not match its spec, HookError when `prepare` cannot
    load the data its cases refer to.
    """
    if spec is None:
        return VersionHooks(list(cases), None, ())
    check_entry(entry, spec)
    if spec.prepare:
        try:
            prepared = list(cast(PrepareHook, entry).prepare(cases))  # check_entry found it with its arity
        except Exception as exc:
            raise HookError(f"{spec.protocol_id}: prepare() could not prepare the cases: {exc}") from exc
        if [case.get("id") for case in prepared] != [case.get("id") for case in cases]:
            raise ContractError(f"{spec.protocol_id}: prepare() must keep every case, in order, with its id")
        cases = prepared
    comparable = cast(ComparableHook, entry).comparable if spec.comparable else None
    return VersionHooks(list(cases), comparable, spec.run_options)
