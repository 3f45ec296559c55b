"""The simulated baselines of a frozen task file: played once per case set and scorer, then read from a cache.

`hallubench rescore` ranks every model beside the random walk, DFS agent and BFS oracle played on
the same cases by the same scorer. Playing them is a fixed cost (720 rows for hallumaze's 240
cases, most of a second) that no rescore should pay twice: the rows depend only on the task
file's payload (its cases and scorer, hashed into its payload sha256) and on the agents' own
code, so they are computed for the task's whole case set, written to a cache file named by
the hash of both, and read back by every later rescore. The cache directory is
`$HALLUBENCH_CACHE_DIR`, else `$XDG_CACHE_HOME/hallubench`, else `~/.cache/hallubench`; the test
suite points it at a temporary folder. A cache file that cannot be read or does not fit is
recomputed, never trusted: the rows are a pure function of the key.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from ...hallumaze.result_types import Row
from ...hashing import sha256_text
from ..taskfile.reader import FrozenProtocol, TaskFile
from .baselines import AGENTS, baseline_rows

CACHE_FORMAT = 1
_SHARED = Path(__file__).resolve().parents[2]
# the code that writes the agents' transcripts: their own module, and the maze modules it walks and replays with
_AGENT_SOURCES = ("tooling/hallumaze/baselines.py", *(f"hallumaze/{name}.py" for name in (
    "grid", "solve", "generate", "trial", "verify", "verify_fast", "parse", "parse_lines", "parse_fast", "labels",
    "lures", "cases")))  # fmt: skip


def cache_dir() -> Path:
    """Where cached baseline rows live (see the module docstring)."""
    explicit = os.environ.get("HALLUBENCH_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "hallubench"


def agents_fingerprint() -> str:
    """The sha256 of the code that writes the agents' transcripts (the installed modules), and the agent list."""
    texts = [f"{name}\n{(_SHARED / name).read_text(encoding='utf-8')}" for name in _AGENT_SOURCES]
    return sha256_text(json.dumps([CACHE_FORMAT, list(AGENTS), texts]))


def cache_path(task: TaskFile) -> Path:
    key = sha256_text(f"{task.payload_sha256}\n{agents_fingerprint()}")
    return cache_dir() / f"hallumaze-baselines-{key[:40]}.json"


def _compute(task: TaskFile) -> dict[str, list[Row]]:
    with FrozenProtocol(task) as frozen:
        return baseline_rows(
            task.cases,
            play=frozen.entry.play,
            row_of=frozen.rows.play_row,
            protocol_id=task.protocol_id,
            payload_sha256=task.payload_sha256,
        )


def _read(path: Path, task: TaskFile) -> dict[str, list[Row]] | None:
    """The cached rows, or None when the file is missing, unreadable or not for this task's cases."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("payload_sha256") != task.payload_sha256:
        return None
    rows = data.get("rows")
    wanted = [str(case["id"]) for case in task.cases]
    if not isinstance(rows, dict) or set(rows) != {f"baseline:{a}" for a in AGENTS}:
        return None
    for agent_rows in rows.values():
        if not isinstance(agent_rows, list) or [r.get("case_id") for r in agent_rows if isinstance(r, dict)] != wanted:
            return None
    return rows


def _write(path: Path, task: TaskFile, rows: Mapping[str, list[Row]]) -> None:
    """Write atomically (a temporary file renamed into place), so a reader never sees half a file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump({"format": CACHE_FORMAT, "payload_sha256": task.payload_sha256, "rows": rows}, out)
        os.replace(temporary, path)
    except OSError:
        pass  # a cache that cannot be written costs time on the next rescore, nothing else


def task_baselines(task: TaskFile, case_ids: Iterable[str]) -> dict[str, list[Row]]:
    """The baseline rows of `task`'s own scorer for `case_ids` (in the task's case order), cached."""
    path = cache_path(task)
    rows = _read(path, task)
    if rows is None:
        rows = _compute(task)
        _write(path, task, rows)
    wanted = set(case_ids)
    return {agent: [row for row in agent_rows if row["case_id"] in wanted] for agent, agent_rows in rows.items()}
