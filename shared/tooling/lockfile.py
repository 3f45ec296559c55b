"""`frozen_cases/protocols.lock`: the hashes of every frozen protocol version.

A JSON object, keys sorted, one entry per protocol id, so diffs stay readable and a frozen
entry is never rewritten (freeze refuses to touch an existing entry).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..errors import HallubenchError

LOCK_PATH = Path("frozen_cases") / "protocols.lock"
PROTOCOL_ID = re.compile(r"[a-z0-9][a-z0-9-]*/v[1-9][0-9]*")


class LockError(HallubenchError, ValueError):
    """The lock is not one entry per protocol, each named as its protocol and pinning its own task file."""


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


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise LockError(f"the key {key!r} appears twice (a JSON reader would keep only the last)")
        found[key] = value
    return found


def expected_task_file(protocol: str) -> str:
    """`tasks/<benchmark with underscores>_v<N>.py`: the only task file a protocol's entry may pin."""
    benchmark, _, version = protocol.partition("/")
    return f"tasks/{benchmark.replace('-', '_')}_{version}.py"


def entry_problems(key: str, entry: LockEntry) -> list[str]:
    """Why an entry does not name exactly one protocol and that protocol's own task file and tag."""
    problems = []
    if not PROTOCOL_ID.fullmatch(key):
        problems.append(f"the key {key!r} is not a protocol id (benchmark/vN)")
    if entry.protocol != key:
        problems.append(f"the key {key!r} holds the entry of {entry.protocol!r}")
    if entry.task_file != expected_task_file(key):
        problems.append(f"the entry {key!r} pins {entry.task_file!r}, not its own {expected_task_file(key)!r}")
    if entry.tag != key:
        problems.append(f"the entry {key!r} names the tag {entry.tag!r}, not {key!r}")
    return problems


def parse_lock(data: bytes) -> Lock:
    """A lock from its bytes (as on disk or as committed).

    Raises LockError for a key that appears twice or an entry that is not its key's own, and pydantic's
    ValidationError (a ValueError) when the JSON is malformed.
    """
    try:
        raw = json.loads(data, object_pairs_hook=_no_duplicates)
    except LockError:
        raise
    except ValueError as exc:
        raise LockError(f"not JSON: {exc}") from exc
    lock = Lock.model_validate(raw)
    problems = [problem for key, entry in lock.protocols.items() for problem in entry_problems(key, entry)]
    if problems:
        raise LockError("; ".join(problems))
    return lock


def write_lock(root: Path, lock: Lock) -> None:
    """Write the lock with sorted keys and a trailing newline."""
    data = lock.model_dump()
    path = root / LOCK_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
