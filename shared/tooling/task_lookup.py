"""Which task file a name on the command line means: one rule for `run`, `push`, `download` and `rescore`.

A name is a path to a `.py` task file, or a protocol of this checkout's registry
(`shared/specs.py`, read as `build` and `freeze` read it) in any of the spellings
`specs.matching` accepts: `hallumaze`, `hallumaze/v2`, `hallumaze_v2`, `hallumaze-v2`,
`tasks/hallumaze_v2.py`. A benchmark name with several versions means the newest one for
commands that only read (`run`, `rescore`); `push`, which publishes, asks for one version. Without a
name, `rescore` finds the task file from the task names in the run files (`task_files_by_run_name`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import HallubenchError
from .specs import ProtocolSpec, Registry, installed_registry, load_registry


class TaskNotFound(HallubenchError):
    """The name is no task file and no protocol; the message says what is known."""


class MissingTaskFile(TaskNotFound):
    """The name is a path, or a protocol never built, and there is no file."""


class AmbiguousTask(TaskNotFound):
    """The name matches several protocol versions where one is needed."""


@dataclass(frozen=True)
class TaskLookup:
    path: Path  # may not exist yet for a protocol that was never built: see `require_built`
    spec: ProtocolSpec | None = None  # None for a task file named by path

    def require_built(self) -> Path:
        if not self.path.is_file():
            benchmark = self.spec.benchmark if self.spec else ""
            raise MissingTaskFile(f"task file not found: {self.path} (run `hallubench build {benchmark}` first)")
        return self.path


def current_registry() -> Registry:
    """The registry of the checkout commands work on (as `build` reads it), else the installed package's."""
    from .repo import RepositoryNotFound, repo_root

    try:
        return load_registry(repo_root())
    except RepositoryNotFound:
        return installed_registry()


def task_files_by_run_name() -> dict[str, Path]:
    """The task file of each stored-task and row-task name a run file may carry (empty outside a checkout)."""
    from .build import load_specs
    from .repo import RepositoryNotFound, repo_root

    try:
        root = repo_root()
    except RepositoryNotFound:
        return {}
    paths: dict[str, Path] = {}
    for spec in load_specs(root):
        paths[spec.task_name] = paths[f"{spec.stem}_row"] = root / spec.task_path
    return paths


def find_task(name: str, *, newest_of_several: bool = True) -> TaskLookup:
    """The task file `name` means. Raises `TaskNotFound`."""
    as_path = Path(name)
    if name.endswith(".py") or as_path.is_file():
        if not as_path.is_file():
            raise MissingTaskFile(f"task file not found: {name}")
        return TaskLookup(as_path)
    from .build import load_specs
    from .repo import RepositoryNotFound, repo_root
    from .specs import matching

    try:
        root = repo_root()
    except RepositoryNotFound as error:
        raise TaskNotFound(f"{name!r} is not a file, and {error}") from None
    protocols = load_specs(root)
    matches = matching(protocols, name)
    if not matches:
        known = sorted({spec.benchmark for spec in protocols})
        listing = ", ".join(known) if known else "none registered yet"
        raise TaskNotFound(f"unknown task {name!r}: give a path to a .py task file or a protocol ({listing})")
    if len(matches) > 1 and not newest_of_several:
        ids = ", ".join(spec.protocol_id for spec in matches)
        raise AmbiguousTask(f"{name!r} matches several protocols ({ids}); name one, e.g. {matches[-1].protocol_id!r}")
    spec = matches[-1]
    return TaskLookup(root / spec.task_path, spec)
