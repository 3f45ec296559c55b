"""`hallubench build`: write the task file, cases and golden prompt hashes of every unfrozen protocol.

Everything is read from the checkout at `root` (specs, sources, cases factories), loaded in
isolation from the installed package, so building a scratch copy builds that copy. Frozen
protocols are never rebuilt: their bytes are locked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import Any

from ..embedding import EmbeddedModules
from ..hashing import canonical_json, sha256_text
from .contract_check import resolve_hooks
from .lockfile import read_lock
from .specs import ProtocolSpec, load_registry
from .taskfile.closure import module_closure
from .taskfile.reader import FrozenProtocol, parse_task_file_text, read_task_file
from .taskfile.writer import render_task_file

CORE_ALWAYS = (PurePosixPath("rows.py"), PurePosixPath("embedding.py"))


@dataclass(frozen=True)
class BuiltProtocol:
    """The three files a protocol version's build produces, as text."""

    spec: ProtocolSpec
    files: dict[PurePosixPath, str]
    payload_sha256: str


def load_specs(root: Path) -> tuple[ProtocolSpec, ...]:
    """Every protocol version declared in the checkout at `root` (not in the installed package)."""
    return load_registry(root).protocols


def _read_sources(root: Path, paths: list[PurePosixPath]) -> dict[str, str]:
    shared = root / "shared"
    return {str(path): (shared / path).read_text(encoding="utf-8") for path in paths}


def factory_path(reference: str) -> tuple[PurePosixPath, str]:
    """The module under `shared/` and the function a `cases_factory` reference names."""
    module_path, _, function = reference.partition(":")
    if not module_path.startswith("hallubench.") or not function:
        raise ValueError(f"cases_factory {reference!r} must look like 'hallubench.pkg.module:function'")
    return PurePosixPath(*module_path.split(".")[1:]).with_suffix(".py"), function


def _call_factory(root: Path, reference: str) -> list[dict[str, Any]]:
    relative, function = factory_path(reference)
    shared = root / "shared"
    sources = _read_sources(root, module_closure(shared, relative))
    finder = EmbeddedModules(f"_hallubench_factory_{abs(hash(reference))}", sources)
    try:
        module: ModuleType = finder.load(".".join(relative.with_suffix("").parts))
        cases = getattr(module, function)()
    finally:
        finder.uninstall()
    return [dict(case) for case in cases]


def _cases_text(cases: list[dict[str, Any]]) -> str:
    return "[\n" + ",\n".join(canonical_json(case) for case in cases) + "\n]\n"


def check_cases(cases: list[dict[str, Any]]) -> None:
    """Case ids must be unique and file-name safe (kbench puts them into run-file names)."""
    seen: set[str] = set()
    for case in cases:
        case_id = case.get("id")
        if not isinstance(case_id, str) or not case_id:
            raise ValueError(f"case without a string id: {canonical_json(case)[:200]}")
        if not all(ch.isalnum() or ch in "_.-" for ch in case_id) or not case_id.isascii():
            raise ValueError(f"case id {case_id!r} has characters outside [A-Za-z0-9_.-]")
        if case_id in seen:
            raise ValueError(f"duplicate case id {case_id!r}")
        seen.add(case_id)


def embedded_sources(root: Path, spec: ProtocolSpec) -> dict[str, str]:
    """The `shared/` modules a build of `spec` embeds today, by path relative to `shared/`."""
    shared = root / "shared"
    paths = set(module_closure(shared, PurePosixPath(spec.entry)))
    for core in CORE_ALWAYS:
        paths.update(module_closure(shared, core))
    return _read_sources(root, sorted(paths, key=str))


def drifted_modules(root: Path, spec: ProtocolSpec) -> list[str]:
    """Embedded modules of a frozen task file that `shared/` has changed, added or removed since.

    The frozen file keeps its code; these changes reach hosted runs only in a new version. Paths
    are today's: a version frozen before its package folder was renamed is compared module by
    module with the renamed folder (`ProtocolSpec.path_today`).
    """
    frozen = {spec.path_today(path): text for path, text in read_task_file(root / spec.task_path).modules.items()}
    current = embedded_sources(root, spec)
    return sorted(path for path in frozen.keys() | current.keys() if frozen.get(path) != current.get(path))


def build_protocol(root: Path, spec: ProtocolSpec) -> BuiltProtocol:
    """Render every file of one protocol version in memory."""
    if spec.frozen_entry is not None:
        raise ValueError(f"{spec.protocol_id}: frozen_entry describes a frozen task file; a version to build has none")
    sources = embedded_sources(root, spec)
    if spec.cases_factory:
        cases = _call_factory(root, spec.cases_factory)
    else:
        cases_file = root / spec.cases_path
        if not cases_file.exists():
            raise FileNotFoundError(f"{spec.protocol_id}: no cases_factory and no {spec.cases_path}")
        cases = json.loads(cases_file.read_text(encoding="utf-8"))
    check_cases(cases)
    rendered = render_task_file(spec, sources, cases)
    task = parse_task_file_text(rendered.text, root / spec.task_path)
    with FrozenProtocol(task) as frozen:  # the entry as the task file will load it, checked against its spec
        hooks = resolve_hooks(frozen.entry, task.cases, spec)
        goldens = {str(case["id"]): sha256_text(frozen.entry.render(case)) for case in hooks.cases}
    golden_text = json.dumps(goldens, indent=1, sort_keys=True) + "\n"
    files = {
        PurePosixPath(spec.task_path): rendered.text,
        PurePosixPath(spec.cases_path): _cases_text(cases),
        PurePosixPath(spec.golden_path): golden_text,
    }
    return BuiltProtocol(spec=spec, files=files, payload_sha256=rendered.payload_sha256)


def unfrozen(root: Path, specs: tuple[ProtocolSpec, ...]) -> list[ProtocolSpec]:
    """Specs whose protocol id is not in the lock."""
    locked = read_lock(root).protocols
    return [spec for spec in specs if spec.protocol_id not in locked]


def stale_files(root: Path, built: BuiltProtocol) -> list[PurePosixPath]:
    """Files whose bytes on disk differ from a fresh build."""
    stale = []
    for path, text in built.files.items():
        target = root / path
        if not target.exists() or target.read_bytes() != text.encode("utf-8"):
            stale.append(path)
    return stale


def write_built(root: Path, built: BuiltProtocol) -> list[PurePosixPath]:
    """Write the files that changed; return them."""
    changed = stale_files(root, built)
    for path in changed:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(built.files[path].encode("utf-8"))
    return changed
