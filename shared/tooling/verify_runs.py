"""`hallubench verify --runs PATH...`: hosted run files as an anchor outside this repository's history.

Every row a task file writes names its protocol and the sha256 of the payload it ran (`rows.py`).
Run files downloaded from Kaggle were written by the hosted copy of the task, so where their rows
carry the payload sha256 the lock pins, the lock and the hosted task agree; a history rewritten to
pin another file would not. This checks each row of each run file against the lock and says, per
protocol, how many rows anchor it, and names every row that contradicts it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .kaggle_runs.files import LoadedRun, collect_run_files, iter_loaded
from .kaggle_runs.model import DictResult, Run
from .lockfile import Lock


@dataclass
class RunsAnchor:
    """What hosted run files say about each locked protocol."""

    agreeing: dict[str, int] = field(default_factory=dict)  # protocol -> rows whose payload is the locked one
    files: dict[str, set[str]] = field(default_factory=dict)  # protocol -> run files holding such rows
    problems: list[tuple[str, str]] = field(default_factory=list)  # (protocol or "(runs)", message)
    rows_without_identity: int = 0  # rows whose result names no protocol (failed before it was written)


def _rows(run: Run, source: str) -> Iterable[tuple[Run, str]]:
    yield run, source
    for index, sub in enumerate(run.subruns):
        yield from _rows(sub, f"{source} subruns[{index}]")


def check_runs(paths: list[Path], lock: Lock) -> RunsAnchor:
    """Each row's protocol and payload sha256 against the lock."""
    found = RunsAnchor()
    files, errors = collect_run_files(paths)
    for error in errors:
        found.problems.append(("(runs)", str(error)))
    if not files and not errors:
        found.problems.append(("(runs)", "no run file found under the paths given"))
    for loaded in iter_loaded(files, digest=False):
        if not isinstance(loaded, LoadedRun):
            found.problems.append(("(runs)", str(loaded)))
            continue
        for row, source in _rows(loaded.run, str(loaded.path)):
            result = row.result
            if not isinstance(result, DictResult) or "protocol" not in result.value:
                if row is not loaded.run:
                    found.rows_without_identity += 1
                continue
            protocol, payload = result.value.get("protocol"), result.value.get("payload_sha256")
            entry = lock.protocols.get(str(protocol))
            if entry is None:
                found.problems.append(("(runs)", f"{source}: a row of {protocol!r}, which the lock does not hold"))
            elif payload != entry.payload_sha256:
                found.problems.append(
                    (
                        entry.protocol,
                        f"{source}: the row ran payload {str(payload)[:64]!r}, the lock pins "
                        f"{entry.payload_sha256}: the hosted task is not the frozen file, or the lock was rewritten",
                    )
                )
            else:
                found.agreeing[entry.protocol] = found.agreeing.get(entry.protocol, 0) + 1
                found.files.setdefault(entry.protocol, set()).add(str(loaded.path))
    return found
