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

    @property
    def frozen_folder(self) -> str:
        """`frozen_cases/<benchmark>/v<N>`: where the cases and golden hashes of this version live."""
        benchmark, _, version = self.protocol.partition("/")
        return f"frozen_cases/{benchmark}/{version}"

    def locked_files(self) -> dict[str, str]:
        """Every file this entry pins, as repository path -> its locked sha256."""
        return {
            self.task_file: self.task_sha256,
            f"{self.frozen_folder}/cases.json": self.cases_sha256,
            f"{self.frozen_folder}/prompts.sha256.json": self.golden_sha256,
        }


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
    return parse_lock(path.read_bytes())


def parse_lock(data: bytes) -> Lock:
    """A lock from its bytes (as on disk or as committed); raises pydantic's ValidationError when malformed."""
    return Lock.model_validate_json(data)


def write_lock(root: Path, lock: Lock) -> None:
    """Write the lock with sorted keys and a trailing newline."""
    data = lock.model_dump()
    path = root / LOCK_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
