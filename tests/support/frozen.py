"""A frozen version as its task file has it: tests of a superseded version play its frozen code, never today's.

Today's `shared/` module of a superseded entry (`hallumaze/task_v2.py`) imports today's scorer, so
importing it tests code no hosted run of that version ever ran; `hallubench modules --superseded`
lists those modules. `frozen(protocol_id)` loads the version's task file in isolation instead.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from hallubench.tooling.specs import load_registry
from hallubench.tooling.taskfile.reader import FrozenProtocol, read_task_file

ROOT = Path(__file__).resolve().parents[2]


def task_path(protocol_id: str) -> Path:
    spec = load_registry(ROOT).spec(protocol_id)
    if spec is None:
        raise LookupError(f"{protocol_id} is not declared")
    return ROOT / spec.task_path


def embedded_module(loaded: FrozenProtocol, name: str) -> ModuleType:
    """A module of the version's benchmark folder as its task file embeds it (`classify` of misled-tests v1),
    under whatever name the folder had when the version froze."""
    folder = loaded.task.entry.split("/", 1)[0]
    return loaded.load(f"{folder}.{name}")


@functools.cache
def frozen_for_session(protocol_id: str) -> FrozenProtocol:
    """The version loaded once and kept for the test session: for modules whose functions import lazily."""
    return FrozenProtocol(read_task_file(task_path(protocol_id)))


@contextmanager
def frozen(protocol_id: str) -> Iterator[FrozenProtocol]:
    """The version's entry (`.entry`) and row helpers (`.rows`) from its frozen task file, for the block."""
    with FrozenProtocol(read_task_file(task_path(protocol_id))) as loaded:
        yield loaded
