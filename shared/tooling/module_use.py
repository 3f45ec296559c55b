"""Which protocol versions embed each module of a benchmark's folder, and which modules only frozen versions use.

A frozen task file keeps its own copy of every module it embeds, so `shared/` may hold code that
only a superseded version ever ran: that code then changes nothing a hosted run does, and the tests
of such a version must load its frozen task file, not import today's module. This makes it
visible (`hallubench modules`): for every module under `shared/<package>/`, the frozen versions
whose task file embeds it (and whether its bytes have changed since), and the versions that use
it today, which are every unfrozen version and each benchmark's newest version (what a next
version builds on), through their entry modules and cases factories. A module none of those uses
is **superseded** when an older frozen version embeds it, and **not embedded** when none ever did (types the
tooling reads, code a next version will embed). Paths of versions frozen before their folder was
renamed are mapped to today's (`ProtocolSpec.path_today`); modules a frozen file embeds that `shared/`
no longer has are listed apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .build import CORE_ALWAYS, factory_path, unfrozen
from .specs import ProtocolSpec, Registry
from .taskfile.closure import module_closure
from .taskfile.reader import read_task_file


@dataclass(frozen=True)
class Embedding:
    """A frozen version whose task file embeds the module: its protocol id, and whether the bytes still match."""

    protocol_id: str
    changed_since: bool


@dataclass(frozen=True)
class ModuleUse:
    path: str  # under shared/, e.g. hallumaze/score.py
    frozen: tuple[Embedding, ...]  # the frozen versions that embed it, oldest first
    current: tuple[str, ...]  # the versions that use it today (unfrozen, or each benchmark's newest)
    in_shared: bool = True  # False: only frozen task files still hold it

    @property
    def superseded(self) -> bool:
        """Only older frozen versions embed it: changing it changes no hosted run and no next version."""
        return self.in_shared and not self.current and bool(self.frozen)

    @property
    def unembedded(self) -> bool:
        """No version embeds it, frozen or current: code the tooling reads (result types), or a next version's."""
        return self.in_shared and not self.current and not self.frozen


@dataclass(frozen=True)
class PackageUse:
    package: str
    benchmarks: tuple[str, ...]
    modules: tuple[ModuleUse, ...]


def _current_versions(registry: Registry, root: Path) -> list[ProtocolSpec]:
    """Every unfrozen version and each benchmark's newest: what today's `shared/` serves."""
    newest = [max(b.protocols, key=lambda spec: spec.version) for b in registry.benchmarks if b.protocols]
    chosen = {spec.protocol_id: spec for spec in [*unfrozen(root, registry.protocols), *newest]}
    return sorted(chosen.values(), key=lambda spec: spec.protocol_id)


def _uses_today(root: Path, spec: ProtocolSpec) -> set[str]:
    shared = root / "shared"
    paths = set(module_closure(shared, PurePosixPath(spec.entry)))
    for core in CORE_ALWAYS:
        paths.update(module_closure(shared, core))
    if spec.cases_factory:
        paths.update(module_closure(shared, factory_path(spec.cases_factory)[0]))
    return {str(path) for path in paths}


def module_use(root: Path, registry: Registry, packages: Sequence[str] | None = None) -> list[PackageUse]:
    """Per benchmark package (all declared ones, or `packages`), every module with the versions that use it."""
    shared = root / "shared"
    locked = set(registry.protocols) - set(unfrozen(root, registry.protocols))
    frozen: dict[str, list[Embedding]] = {}
    for spec in sorted(locked, key=lambda spec: (spec.benchmark, spec.version)):
        task_path = root / spec.task_path
        if not task_path.is_file():
            continue
        for embedded, text in read_task_file(task_path).modules.items():
            path = spec.path_today(embedded)
            today = shared / path
            changed = not today.is_file() or today.read_text(encoding="utf-8") != text
            frozen.setdefault(path, []).append(Embedding(spec.protocol_id, changed))
    current: dict[str, list[str]] = {}
    for spec in _current_versions(registry, root):
        for path in _uses_today(root, spec):
            current.setdefault(path, []).append(spec.protocol_id)
    out = []
    for package in sorted(packages if packages is not None else {b.package for b in registry.benchmarks}):
        in_shared = {str(p.relative_to(shared).as_posix()) for p in (shared / package).rglob("*.py")}
        only_frozen = {path for path in frozen if path.startswith(f"{package}/") and path not in in_shared}
        modules = tuple(
            ModuleUse(path, tuple(frozen.get(path, ())), tuple(current.get(path, ())), path in in_shared)
            for path in sorted(in_shared | only_frozen)
        )
        owners = tuple(sorted(b.name for b in registry.benchmarks if b.package == package))
        out.append(PackageUse(package, owners, modules))
    return out
