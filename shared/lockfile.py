"""`frozen_cases/protocols.lock`: the hashes of every frozen protocol version.

A JSON object, keys sorted, one entry per protocol id, so diffs stay readable and a frozen
entry is never rewritten (freeze refuses to touch an existing entry).
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict

LOCK_PATH = Path("frozen_cases") / "protocols.lock"


class LockEntry(BaseModel):
    """The hashes that pin one protocol version."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    protocol: str
    tag: str
    task_file: str
    task_sha256: str
    payload_sha256: str
    cases_sha256: str
    golden_sha256: str
    cases: int


class Lock(BaseModel):
    """All frozen protocol versions."""

    model_config = ConfigDict(extra="forbid")

    format: int = 1
    protocols: dict[str, LockEntry] = {}


def read_lock(root: Path) -> Lock:
    """The lock of the checkout at `root` (empty when there is none yet)."""
    path = root / LOCK_PATH
    if not path.exists():
        return Lock()
    return Lock.model_validate_json(path.read_text(encoding="utf-8"))


def write_lock(root: Path, lock: Lock) -> None:
    """Write the lock with sorted keys and a trailing newline."""
    data = lock.model_dump()
    path = root / LOCK_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
