"""Run a model-written pytest file against several versions of a program, each item isolated.

Design (speed and containment together):

* One sandbox session per test file: a fresh interpreter (`python -s -P`, scrubbed environment,
  plugin autoload off) started inside new network and PID namespaces when the machine allows
  it (`unshare --net --pid --fork --kill-child`, probed once), else without them (the audit
  hook below still blocks sockets). It imports pytest once, then forks one process per
  version, which sets the limits (address space, file size, no core files), installs a
  permanent audit hook, collects the file in that version's throwaway working directory and
  forks once more per item, with a per-item timeout (default 10 s) enforced from outside the
  item's process.
* A result counts only when a line stamped with this run's random nonce says so; the nonce
  reaches the session on stdin only. A session that dies or stalls (a test killed its parent,
  a hang in collection, a patched harness) is killed with everything it started, and every
  item that has no result yet is run again alone in a fresh session (per-item isolation).
  An item that still leaves no result is an `error` (crash), never a pass.

What this does not defend against: test code that deliberately searches the harness's memory
for the nonce, or escapes through native code loaded without ctypes. Model-written unit tests
are not adversaries of that kind; the containment is against accidents and naive hostility.
Embedded into task files: standard library only.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import HallubenchError
from . import sandbox_child

OUTCOMES = ("pass", "fail", "error", "timeout")
TEST_FILE = "test_generated.py"
_UNSHARE = ("unshare", "--net", "--pid", "--fork", "--kill-child")


@dataclass(frozen=True)
class Limits:
    """Per-item limits; the defaults are the benchmark's (10 s, 2 GiB address space)."""

    item_timeout_s: float = 10.0
    memory_bytes: int = 2 << 30
    file_size_bytes: int = 64 << 20
    process_headroom: int = 16
    startup_s: float = 30.0


@dataclass(frozen=True)
class ItemResult:
    """What one collected test item did on one version."""

    node: str
    outcome: str
    kind: str
    detail: str = ""
    duration_s: float = 0.0
    rerun_alone: bool = False


@dataclass
class VersionResult:
    """All items of the file on one version, or why there are none."""

    name: str
    collected: list[str] | None = None
    collection_error: str | None = None
    items: dict[str, ItemResult] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass
class _Session:
    records: list[dict[str, Any]]
    exit_detail: str
    log_tail: str
    invalid_lines: int


class SandboxError(HallubenchError):
    """The sandbox itself could not run (no pytest, no interpreter): a harness error."""


_NAMESPACES: dict[str, bool] = {}


def namespaces_available() -> bool:
    """Whether `unshare --net --pid` works here (root, or unprivileged user namespaces)."""
    if "ok" not in _NAMESPACES:
        try:
            probe = subprocess.run([*_UNSHARE, "true"], capture_output=True, timeout=10, check=False)
            _NAMESPACES["ok"] = probe.returncode == 0
        except (OSError, subprocess.SubprocessError):
            _NAMESPACES["ok"] = False
    return _NAMESPACES["ok"]


def isolation_description() -> dict[str, Any]:
    """Recorded in rows, so a result says how it was contained."""
    return {
        "namespaces": "net+pid" if namespaces_available() else "none (audit hook blocks sockets)",
        "audit_hook": "sockets, processes, signals, ctypes, rlimit changes, writes outside workdir",
        "rlimits": "AS, FSIZE, CORE=0, NOFILE, NPROC",
        "process_per_item": True,
    }


def _module_source(module: ModuleType) -> str:
    """Source text of a module, whether loaded from a file or from a task file's embedded sources."""
    loader = getattr(module, "__loader__", None)
    get_source = getattr(loader, "get_source", None)
    if get_source is not None:
        text = get_source(module.__name__)
        if isinstance(text, str) and text:
            return text
    raise SandboxError(f"cannot read the source of {module.__name__}: its loader does not provide it")


def _scrubbed_env(home: str) -> dict[str, str]:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }


def _session_members(session_id: int) -> list[int]:
    members: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 3 and int(fields[3]) == session_id:
            members.append(int(entry))
    return members


def _kill_session(session_id: int) -> None:
    """Kill every process of the session, including item processes in their own groups."""
    for _ in range(3):
        members = _session_members(session_id)
        if not members:
            return
        for pid in members:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


@dataclass(frozen=True)
class Job:
    """One test file and the versions (name -> {filename: text}) it runs against."""

    test_source: str
    versions: Mapping[str, Mapping[str, str]]


class _Run:
    """A batch of jobs in a private temporary folder; sessions are started from here."""

    def __init__(self, jobs: Sequence[Job], limits: Limits, python: str) -> None:
        self.jobs = jobs
        self.limits = limits
        self.python = python
        self.root = Path(tempfile.mkdtemp(prefix="hallubench-misled-"))
        self.child_path = self.root / "sandbox_child.py"
        self.child_path.write_text(_module_source(sandbox_child), encoding="utf-8")

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def _fresh_workdir(self, index: int, name: str) -> Path:
        workdir = self.root / "work" / str(index) / name
        if workdir.exists():
            shutil.rmtree(workdir, ignore_errors=True)
        (workdir / "tmp").mkdir(parents=True)
        for filename, text in self.jobs[index].versions[name].items():
            (workdir / filename).write_text(text, encoding="utf-8")
        (workdir / TEST_FILE).write_text(self.jobs[index].test_source, encoding="utf-8")
        (workdir / "pytest.ini").write_text("[pytest]\npython_files = test_*.py\n", encoding="utf-8")
        return workdir

    def session(self, pairs: Sequence[tuple[int, str]], select: list[str] | None = None) -> _Session:
        """Run (job, version) pairs in order in one sandboxed interpreter."""
        results_path = self.root / f"results-{secrets.token_hex(4)}.jsonl"
        log_path = self.root / f"log-{secrets.token_hex(4)}.txt"
        nonce = secrets.token_hex(16)
        jobs: list[dict[str, Any]] = []
        for index, name in pairs:
            if not jobs or jobs[-1]["job"] != index:
                jobs.append({"job": index, "test_file": TEST_FILE, "select": select, "versions": []})
            jobs[-1]["versions"].append({"name": name, "workdir": str(self._fresh_workdir(index, name))})
        result_fd = os.open(results_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        config = {
            "nonce": nonce,
            "result_fd": result_fd,
            "item_timeout_s": self.limits.item_timeout_s,
            "process_headroom": self.limits.process_headroom,
            "limits": {"memory_bytes": self.limits.memory_bytes, "file_size_bytes": self.limits.file_size_bytes},
            "jobs": jobs,
        }
        prefix = list(_UNSHARE) if namespaces_available() else []
        command = [*prefix, self.python, "-s", "-P", str(self.child_path)]
        try:
            with open(log_path, "wb") as log:
                try:
                    process = subprocess.Popen(
                        command,
                        stdin=subprocess.PIPE,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        cwd=self.root,
                        env=_scrubbed_env(str(self.root)),
                        start_new_session=True,
                        pass_fds=(result_fd,),
                    )
                except OSError as exc:
                    raise SandboxError(f"cannot start the sandbox interpreter {self.python}: {exc}") from exc
                try:
                    assert process.stdin is not None
                    process.stdin.write((json.dumps(config) + "\n").encode("utf-8"))
                    process.stdin.close()
                except OSError:
                    pass
                exit_detail = self._watch(process, result_fd)
                _kill_session(process.pid)
        finally:
            os.close(result_fd)
        records, invalid = _read_records(results_path, nonce)
        log_tail = log_path.read_bytes()[-2000:].decode("utf-8", "replace")
        return _Session(records, exit_detail, log_tail, invalid)

    def _watch(self, process: subprocess.Popen[bytes], result_fd: int) -> str:
        """Wait while results keep coming; kill a session that makes no progress for too long."""
        allowance = self.limits.item_timeout_s + self.limits.startup_s
        last_size = 0  # the results file starts empty: no record yet is no progress
        while True:
            try:
                code = process.wait(timeout=allowance)
                return f"exit status {code}"
            except subprocess.TimeoutExpired:
                size = os.fstat(result_fd).st_size
                if size != last_size:
                    last_size = size
                    continue
                _kill_session(process.pid)
                process.wait()
                return f"killed: no progress for {allowance:g} s"


def _read_records(path: Path, nonce: str) -> tuple[list[dict[str, Any]], int]:
    records: list[dict[str, Any]] = []
    invalid = 0
    for line in path.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            invalid += 1
            continue
        if isinstance(record, dict) and record.get("nonce") == nonce:
            records.append(record)
        else:
            invalid += 1
    return records, invalid


def _item_from_record(record: dict[str, Any], rerun_alone: bool) -> ItemResult:
    outcome = record.get("outcome")
    if outcome not in OUTCOMES:
        return ItemResult(str(record.get("node")), "error", f"harness: bad outcome {outcome!r}")
    return ItemResult(
        node=str(record["node"]),
        outcome=str(outcome),
        kind=str(record.get("kind", "")),
        detail=str(record.get("detail", "")),
        duration_s=float(record.get("duration_s", 0.0)),
        rerun_alone=rerun_alone,
    )


def _absorb(result: VersionResult, index: int, session: _Session, rerun_alone: bool) -> tuple[bool, bool]:
    """Fold a session's records for (job, version) into `result`: (any record seen, finished)."""
    seen = done = False
    for record in session.records:
        if record.get("job") != index or record.get("version") != result.name:
            continue
        seen = True
        kind = record.get("type")
        if kind == "collected" and result.collected is None:
            result.collected = [str(node) for node in record.get("items", [])]
        elif kind == "collection_error" and result.collection_error is None:
            result.collection_error = str(record.get("detail", "collection error"))
        elif kind == "item" and str(record.get("node")) not in result.items:
            item = _item_from_record(record, rerun_alone)
            result.items[item.node] = item
        elif kind == "done":
            done = True
    return seen, done


def _rerun_alone(run: _Run, index: int, result: VersionResult, exit_detail: str) -> None:
    result.notes.append(f"session did not finish ({exit_detail}); items without a result were rerun alone")
    for node in result.collected or []:
        if node in result.items:
            continue
        alone = run.session([(index, result.name)], [node])
        _absorb(result, index, alone, rerun_alone=True)
        if node not in result.items:
            result.items[node] = ItemResult(
                node, "error", f"crashed: no result even when run alone ({alone.exit_detail})", "", 0.0, True
            )


def run_jobs(
    jobs: Sequence[Job], *, limits: Limits | None = None, python: str | None = None
) -> list[dict[str, VersionResult]]:
    """Run every item of every job on each of its versions; never raises for anything a test does.

    Jobs share sandbox sessions (one interpreter start and pytest import for the whole batch);
    a session that dies is replaced by a new one for the pairs it did not reach.
    """
    run = _Run(jobs, limits or Limits(), python or sys.executable)
    try:
        results = [{name: VersionResult(name) for name in job.versions} for job in jobs]
        pending = [(index, name) for index, job in enumerate(jobs) for name in job.versions]
        while pending:
            session = run.session(pending)
            still_pending: list[tuple[int, str]] = []
            stalled_at: tuple[int, str] | None = None
            for index, name in pending:
                result = results[index][name]
                seen, done = _absorb(result, index, session, rerun_alone=False)
                if session.invalid_lines and seen:
                    result.notes.append(f"{session.invalid_lines} result lines without this run's nonce ignored")
                if done or result.collection_error is not None:
                    continue
                if stalled_at is None:
                    stalled_at = (index, name)
                    if result.collected is None:
                        result.collection_error = (
                            f"the session ended during collection ({session.exit_detail}) without a result; "
                            f"log: {session.log_tail[-600:]}"
                        )
                    else:
                        _rerun_alone(run, index, result, session.exit_detail)
                    continue
                still_pending.append((index, name))
            pending = still_pending
        return results
    finally:
        run.close()


def run_test_file(
    test_source: str,
    versions: Mapping[str, Mapping[str, str]],
    *,
    limits: Limits | None = None,
    python: str | None = None,
) -> dict[str, VersionResult]:
    """One test file against its versions (see `run_jobs`)."""
    return run_jobs([Job(test_source, versions)], limits=limits, python=python)[0]
