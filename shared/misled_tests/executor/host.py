"""The executor's host side (misled-tests v3): start sandbox servers, feed them versions, gather results.

`run_jobs` runs every collected item of every job (a test file and its program versions) on each
version and never raises for anything a test does. Work is spread over `workers` servers (one
process tree each, so one core each); results come back in the order of the jobs whatever the
number of workers. Each job's versions run in a random order, each under a random id: the server
never learns a version's name. A server that dies or stalls is replaced and the version it was
running is run once more in the new one; a second failure is a harness error for that job only.
Embedded into task files: standard library only.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ... import embedding
from ... import errors as root_errors
from ...confine import errors, landlock, privileges, seccomp
from ...confine import namespaces as confine_namespaces
from ...errors import HallubenchError
from . import guard, instance, items, lockdown, paths, server, version, wire

OUTCOMES = ("pass", "fail", "error", "timeout")
SANDBOX_MODULES: tuple[ModuleType, ...] = (
    root_errors,
    errors,
    privileges,
    landlock,
    seccomp,
    confine_namespaces,
    wire,
    paths,
    guard,
    lockdown,
    items,
    instance,
    version,
    server,
)
BOOT = """\
import os
import sys


def _hb_boot():
    import json

    fd = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    header = bytearray()
    while not header.endswith(b"\\n"):
        byte = os.read(fd, 1)
        if not byte:
            return 70
        header += byte
    size = int(header)
    data = bytearray()
    while len(data) < size:
        chunk = os.read(fd, min(1 << 20, size - len(data)))
        if not chunk:
            return 70
        data += chunk
    if fd != 0:
        os.close(fd)
    payload = json.loads(bytes(data))
    del data
    loader = {"__name__": "_hb_loader"}
    exec(compile(payload["loader"], "<_hb_sandbox/embedding.py>", "exec"), loader)
    finder = loader["EmbeddedModules"]("_hb_sandbox", payload["modules"])
    entry = finder.load(payload["server"])
    finder.uninstall()
    return entry.main(payload)


sys.exit(_hb_boot())
"""


@dataclass(frozen=True)
class Limits:
    """Per-item limits (the benchmark's: 10 s, 2 GiB) and whether to ask for OS isolation."""

    item_timeout_s: float = 10.0
    memory_bytes: int = 2 << 30
    file_size_bytes: int = 64 << 20
    workdir_bytes: int = 256 << 20
    startup_s: float = 30.0
    namespaces: bool = True


@dataclass(frozen=True)
class ItemResult:
    """What one collected test item did on one version."""

    node: str
    outcome: str
    kind: str
    detail: str = ""
    duration_s: float = 0.0
    rerun_alone: bool = False
    tripped: tuple[str, ...] = ()  # what the tripwire in the test process refused


@dataclass
class VersionResult:
    """All items of the file on one version, or why there are none."""

    name: str
    collected: list[str] | None = None
    collection_error: str | None = None
    harness_error: str | None = None
    items: dict[str, ItemResult] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    layers: dict[str, Any] = field(default_factory=dict)  # the version's own instance and layers


@dataclass(frozen=True)
class Job:
    """One test file and the versions (name -> {filename: text}) it runs against.

    `order`: run the versions in this order instead of a random one (for checks that must see both orders).
    """

    test_source: str
    versions: Mapping[str, Mapping[str, str]]
    order: tuple[str, ...] | None = None


@dataclass
class JobResult:
    """A job's results per version, the order the versions ran in, and how the server was contained."""

    versions: dict[str, VersionResult]
    order: list[str]
    isolation: dict[str, Any]


class SandboxError(HallubenchError):
    """The sandbox itself could not run (no pytest, no interpreter, a server that never started)."""


class _ServerDied(HallubenchError):
    pass


def _module_source(module: ModuleType) -> str:
    """Source text of a module, whether loaded from a file or from a task file's embedded sources."""
    loader = getattr(module, "__loader__", None)
    get_source = getattr(loader, "get_source", None)
    if get_source is not None:
        text = get_source(module.__name__)
        if isinstance(text, str) and text:
            return text
    raise SandboxError(f"cannot read the source of {module.__name__}: its loader does not provide it")


def _relative_name(module: ModuleType) -> str:
    """The module's name below the package root (`misled_tests.executor.server`): the same in every copy of it."""
    return ".".join(module.__name__.split(".")[1:])


def _sandbox_sources() -> dict[str, str]:
    """Each module's source under its path below the package root (`misled_tests/executor/server.py`, `confine/...`)."""
    return {_relative_name(module).replace(".", "/") + ".py": _module_source(module) for module in SANDBOX_MODULES}


_PACKAGES: list[list[str]] = []


def _library_packages() -> list[str]:
    """What the library view shows besides the standard library, found once per process for every server."""
    if not _PACKAGES:
        _PACKAGES.append(server.LibraryView().packages)
    return _PACKAGES[0]


def _environment(root: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": root,
        "TMPDIR": root,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }


class _Session:
    """One sandbox server and its private folder."""

    def __init__(self, limits: Limits, python: str) -> None:
        self.limits = limits
        self.python = python
        self.root = os.path.realpath(tempfile.mkdtemp(prefix="hallubench-misled-v2-"))
        self.groups: set[int] = set()
        config = {
            "packages": _library_packages(),
            "item_timeout_s": limits.item_timeout_s,
            "memory_bytes": limits.memory_bytes,
            "file_size_bytes": limits.file_size_bytes,
            "workdir_bytes": limits.workdir_bytes,
            "namespaces": limits.namespaces,
        }
        payload = {
            "loader": _module_source(embedding),
            "modules": _sandbox_sources(),
            "config": config,
            "boot": BOOT,
            "server": _relative_name(server),  # the module the boot code starts, under whatever package holds it
        }
        self.log = open(os.path.join(self.root, "server.log"), "wb")  # noqa: SIM115 (closed in close())
        try:
            self.process = subprocess.Popen(
                [python, "-s", "-P", "-c", BOOT],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.log,
                cwd=self.root,
                env=_environment(self.root),
                process_group=0,
            )
        except OSError as exc:
            self.close()
            raise SandboxError(f"cannot start the sandbox interpreter {python}: {exc}") from exc
        assert self.process.stdin is not None and self.process.stdout is not None
        self.reader = wire.LineReader(self.process.stdout.fileno(), 1 << 26)
        data = json.dumps(payload).encode("utf-8")
        try:
            self.process.stdin.write(f"{len(data)}\n".encode("ascii") + data)
            self.process.stdin.flush()
            ready = self._next(time.monotonic() + limits.startup_s)
        except (OSError, _ServerDied) as exc:
            detail = self._log_tail()
            self.close()
            raise SandboxError(f"the sandbox server did not start: {exc}; log: {detail}") from exc
        if ready.get("type") != "ready":
            detail = str(ready.get("detail", "")) or self._log_tail()
            self.close()
            raise SandboxError(f"the sandbox server refused to run: {detail}")
        self.isolation = {
            **dict(ready.get("layers") or {}),
            "pytest": ready.get("pytest"),
            "python": ready.get("python"),
        }

    def _log_tail(self, n: int = 1500) -> str:
        try:
            with open(os.path.join(self.root, "server.log"), "rb") as handle:
                return handle.read()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""

    def _next(self, deadline: float) -> dict[str, Any]:
        try:
            line = self.reader.next_line(deadline)
        except wire.WireError as exc:
            raise _ServerDied(str(exc)) from exc
        if line is None:
            raise _ServerDied("exited" if self.reader.eof else "stalled")
        record = wire.parse(line)
        if record is None:
            raise _ServerDied(f"sent a malformed line: {line[:200]!r}")
        return record

    def run_version(
        self, name: str, files: Mapping[str, str], test_source: str, select: list[str] | None
    ) -> VersionResult:
        assert self.process.stdin is not None
        message = {
            "type": "version",
            "id": secrets.token_hex(8),
            "files": dict(files),
            "test_source": test_source,
            "select": select,
        }
        try:
            self.process.stdin.write(wire.encode(message))
            self.process.stdin.flush()
        except OSError as exc:
            raise _ServerDied(f"cannot send the version: {exc}") from exc
        result = VersionResult(name)
        patience = self.limits.item_timeout_s + 30.0  # the server reports after every item
        while True:
            record = self._next(time.monotonic() + patience)
            kind = record.get("type")
            if kind == "version_done":
                if record.get("id") != message["id"]:
                    raise _ServerDied("answered for another version")
                return result
            if kind == "progress" and type(record.get("group")) is int:
                self.groups.add(int(record["group"]))
            elif kind == "collected":
                result.collected = [str(node) for node in record.get("items", [])]
            elif kind == "collection_error":
                result.collection_error = str(record.get("detail", "collection error"))
            elif kind == "note":
                result.notes.append(str(record.get("text", "")))
            elif kind == "version_layers" and isinstance(record.get("layers"), dict):
                result.layers = dict(record["layers"])
            elif kind == "item":
                outcome = str(record.get("outcome"))
                node = str(record.get("node"))
                result.items[node] = ItemResult(
                    node=node,
                    outcome=outcome if outcome in OUTCOMES else "error",
                    kind=str(record.get("kind", "")),
                    detail=str(record.get("detail", "")),
                    duration_s=float(record.get("duration_s", 0.0) or 0.0),
                    rerun_alone=bool(record.get("rerun_alone", False)),
                    tripped=tuple(str(event) for event in record.get("tripped") or () if isinstance(event, str)),
                )

    def close(self) -> None:
        process = getattr(self, "process", None)
        if process is not None:
            try:
                if process.stdin is not None:
                    process.stdin.close()
                process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            for group in (process.pid, *self.groups):
                with contextlib.suppress(OSError):
                    os.killpg(group, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
            if process.stdout is not None:
                process.stdout.close()
        if hasattr(self, "log"):
            self.log.close()
        shutil.rmtree(self.root, ignore_errors=True)


class _WarmServers:
    """Idle servers kept for the next call in this process, for callers that classify one file at a time.

    A server never runs test code itself (every version is a fresh fork of it), so one that served
    a file holds nothing of it for the next; a server that died while idle is replaced on first use.
    Forked children forget the parent's servers (their pipes belong to the parent).
    """

    def __init__(self) -> None:
        self._idle: dict[tuple[Limits, str], list[_Session]] = {}
        self._lock = threading.Lock()
        self._hooked = False

    def take(self, limits: Limits, python: str) -> _Session | None:
        with self._lock:
            idle = self._idle.get((limits, python))
            return idle.pop() if idle else None

    def put(self, session: _Session) -> None:
        with self._lock:
            if not self._hooked:
                atexit.register(self.close_all)
                os.register_at_fork(after_in_child=self.forget)
                self._hooked = True
            self._idle.setdefault((session.limits, session.python), []).append(session)

    def forget(self) -> None:
        self._lock = threading.Lock()
        self._idle = {}

    def close_all(self) -> None:
        with self._lock:
            sessions = [session for idle in self._idle.values() for session in idle]
            self._idle = {}
        for session in sessions:
            session.close()


_WARM = _WarmServers()


class _Worker:
    """Runs jobs on one server, replacing it when it dies."""

    def __init__(self, limits: Limits, python: str, keep_warm: bool = False) -> None:
        self.limits = limits
        self.python = python
        self.keep_warm = keep_warm
        self.session: _Session | None = None
        self.order = random.SystemRandom()

    def _session(self) -> _Session:
        if self.session is None and self.keep_warm:
            self.session = _WARM.take(self.limits, self.python)
        if self.session is None:
            self.session = _Session(self.limits, self.python)
        return self.session

    def _drop(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None

    def run(self, job: Job) -> JobResult:
        order = list(job.versions)
        self.order.shuffle(order)
        if job.order is not None and sorted(job.order) == sorted(order):
            order = list(job.order)
        results: dict[str, VersionResult] = {}
        isolation: dict[str, Any] = {}
        for name in order:
            for attempt in (1, 2):
                session = self._session()
                isolation = session.isolation
                try:
                    results[name] = session.run_version(name, job.versions[name], job.test_source, None)
                    if attempt == 2:
                        results[name].notes.append("the sandbox server died during this version; it was run again")
                    break
                except _ServerDied as exc:
                    tail = session._log_tail()
                    self._drop()
                    if attempt == 2:
                        results[name] = VersionResult(
                            name, harness_error=f"the sandbox server died twice ({exc}); log: {tail[-600:]}"
                        )
        return JobResult({name: results[name] for name in job.versions}, order, dict(isolation))

    def close(self) -> None:
        if self.keep_warm and self.session is not None and self.session.process.poll() is None:
            _WARM.put(self.session)
            self.session = None
        self._drop()


def run_jobs(
    jobs: Sequence[Job],
    *,
    limits: Limits | None = None,
    python: str | None = None,
    workers: int = 1,
    keep_warm: bool = False,
) -> list[JobResult]:
    """Every item of every job on each of its versions, in job order; `workers` servers in parallel.

    `keep_warm`: leave the servers running for the next call in this process (see `_WarmServers`).
    """
    chosen = limits or Limits()
    interpreter = python or sys.executable
    results: list[JobResult | None] = [None] * len(jobs)
    pending = list(range(len(jobs)))
    lock = threading.Lock()
    failures: list[BaseException] = []

    def drain() -> None:
        worker = _Worker(chosen, interpreter, keep_warm)
        try:
            while True:
                with lock:
                    if not pending or failures:
                        return
                    index = pending.pop(0)
                results[index] = worker.run(jobs[index])
        except BaseException as exc:
            with lock:
                failures.append(exc)
        finally:
            worker.close()

    count = max(1, min(workers, len(jobs)))
    if count == 1:
        drain()
    else:
        threads = [threading.Thread(target=drain, name=f"hallubench-misled-{n}") for n in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    if failures:
        raise failures[0]
    return [result for result in results if result is not None]


def default_workers() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
