"""Find the repository a command works on (task files, frozen cases, the lock).

`HALLUBENCH_ROOT` wins (tests point it at scratch copies); otherwise the nearest ancestor
of the working directory holding `frozen_cases/` and `shared/tooling/specs.py`; otherwise the
checkout this package was installed from in editable mode.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import HallubenchError


class RepositoryNotFound(HallubenchError):
    """No hallubench checkout around: build, freeze and verify need one."""


def _is_repo(path: Path) -> bool:
    return (path / "frozen_cases").is_dir() and (path / "shared" / "tooling" / "specs.py").is_file()


def repo_root(start: Path | None = None) -> Path:
    """The hallubench checkout to work on."""
    env = os.environ.get("HALLUBENCH_ROOT")
    if env:
        root = Path(env).resolve()
        if not _is_repo(root):
            raise RepositoryNotFound(f"HALLUBENCH_ROOT={env} is not a hallubench checkout")
        return root
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if _is_repo(candidate):
            return candidate
    installed = Path(__file__).resolve().parents[2]  # shared/tooling/repo.py: the checkout
    if _is_repo(installed):
        return installed
    raise RepositoryNotFound(
        "no hallubench checkout found (looked for frozen_cases/ and shared/tooling/specs.py above the working "
        "directory); run from the repository or set HALLUBENCH_ROOT"
    )


def repo_root_or_report() -> Path | None:
    """`repo_root()` for a command handler: None after printing why, so the handler can exit 2."""
    try:
        return repo_root()
    except RepositoryNotFound as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None
