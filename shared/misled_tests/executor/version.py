"""One program version of one test file, in an instance of its own that nothing else can see or reach.

Forked from the server (which has pytest imported and configured, and has never run test code):

1. **A fresh instance.** Where the kernel allows it, this process enters new user, mount, IPC,
   network and UTS namespaces (ids 1000:1000 inside, never root) and makes its next child the
   first process of a new PID namespace; it pivots into a new root holding only read-only,
   `noatime` views of the interpreter and system libraries and a brand-new tmpfs at the working
   path. So every version starts from the same state: the same paths, the same inode numbers, no
   access time or cache state moved by the other version (the page-cache calls are refused too),
   nothing a previous run wrote, no IPC object, no process. Where it does not (a container without
   user namespaces, as hosted runs may be), the working directory is a new one on the server's
   temporary folder, and the row records that the channels through it are open.
2. **Layers for good.** The version's first process drops every capability, then takes Landlock
   (reads the view, writes the working directory only, executes nothing, no TCP, signals scoped) and
   the inner seccomp filter (no exec, no new namespaces, no ptrace, mount, bpf, io_uring, SysV IPC,
   keyctl, perf or page-cache calls), each where the kernel offers it, and records which.
3. **A harness that never runs test code.** That first process only forks: one test process that
   collects the file and reports its items, then one test process per item (`items.py`), each
   under a Landlock domain of its own, killed at its deadline. A test file can therefore reach no
   harness object or callback, signal no process but its own, and see nothing of another file.

The records sent to the server are the v2 ones (`collected`, `item`, `done`), so the server and host
read a version the same way.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from ...confine import landlock, namespaces, privileges, seccomp
from ...confine.errors import ConfinementError
from . import guard, instance, lockdown
from .items import ItemPlan, run_collector
from .wire import LineReader, WireError, send

RECORD_LIMIT = 1 << 20
COLLECTION_GRACE_S = 5.0
RESTARTS = 3
FIXED_TIME = 946684800  # 2000-01-01: every file of every version carries the same timestamps
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class VersionPlan:
    """All a version needs, prepared by the server before the fork."""

    session: Any
    collection_errors: Any
    results_fd: int
    work: str
    test_file: str
    files: dict[str, str]
    select: tuple[str, ...] | None
    item_timeout_s: float
    memory_bytes: int
    file_size_bytes: int
    workdir_bytes: int
    environment: dict[str, str]
    read_roots: tuple[str, ...]
    listable: tuple[str, ...]  # folders whose entries test code may list, not read (where the packages live)
    lockdown: lockdown.Plan
    inner_filter: seccomp.Compiled | None  # compiled once by the server (None: why is in the session's layers)
    namespaces: bool  # the server is in a session root: take the version's own namespaces (see instance.py)


def _die_with_parent() -> None:
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _write_files(work: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = os.path.join(work, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    os.mkdir(work + "/tmp")
    for path in [*(os.path.join(work, name) for name in files), work + "/tmp", work]:
        os.utime(path, (FIXED_TIME, FIXED_TIME))


def _fresh_instance(plan: VersionPlan, layers: dict[str, Any]) -> bool:
    """The version's own namespaces and a brand-new working directory with its files (in the session root)."""
    if not plan.namespaces:
        layers["failures"].append("no session root (see the session's why_no_fresh_instance)")
        return False
    instance.enter_version(plan.workdir_bytes)
    _write_files(plan.work, plan.files)
    layers.update(
        user_namespace="the session's",
        mount_namespace=True,
        ipc_namespace=True,
        network_namespace="the session's (no address)",
        uts_namespace="the session's",
        pid_namespace=True,
        read_only_root=True,
        workdir="fresh tmpfs",
    )
    return True


def _own_layers(plan: VersionPlan, layers: dict[str, Any]) -> None:
    """Capabilities, Landlock and the inner seccomp filter on the version's first process, for good."""
    with contextlib.suppress(ConfinementError):
        privileges.drop_capabilities()
    layers["capabilities"] = f"{privileges.effective_capabilities():#x}"
    rules = landlock.Policy(
        read=("/",)
        if layers.get("read_only_root")
        else (*plan.read_roots, *namespaces.SYSTEM_DIRECTORIES, *namespaces.SYSTEM_FILES),
        list_only=() if layers.get("read_only_root") else plan.listable,
        write=(plan.work,),
        devices=namespaces.DEVICES,
        tcp_connect=(),
        tcp_bind=(),
        scope=True,
    )
    try:
        layers["landlock"] = landlock.restrict(rules).as_dict()
    except ConfinementError as exc:
        layers["landlock"] = None
        layers["failures"].append(str(exc))
    try:
        if plan.inner_filter is None:
            raise ConfinementError("seccomp", "no filter could be compiled here")
        layers["seccomp"] = seccomp.load(plan.inner_filter).as_dict()
    except ConfinementError as exc:
        layers["seccomp"] = None
        layers["failures"].append(str(exc))
    privileges.set_no_new_privs()


def _own_domain() -> None:
    """The collector's own Landlock domain: it may signal nothing outside it (its harness included)."""
    with contextlib.suppress(ConfinementError):
        landlock.restrict(landlock.Policy(restrict_files=False, tcp_connect=None, tcp_bind=None, scope=True))


def _start_collector(plan: VersionPlan, wanted: tuple[int, ...] | None) -> tuple[int, int]:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.close(plan.results_fd)
        os.setpgid(0, 0)  # a group of its own: without a PID namespace, its processes end with it
        item_plan = ItemPlan(
            session=plan.session,
            collection_errors=plan.collection_errors,
            work=plan.work,
            test_file=plan.test_file,
            report_fd=write_end,
            memory_bytes=plan.memory_bytes,
            file_size_bytes=plan.file_size_bytes,
            rules=guard.Rules(
                work=plan.work,
                read_roots=plan.read_roots,
                readable_files=namespaces.DEVICES,
                listable=plan.listable,
                fork_code=run_collector.__code__,
            ),
            lockdown=plan.lockdown,
            confine=_own_domain,
        )
        run_collector(item_plan, wanted)
    os.close(write_end)
    return pid, read_end


def _end_collector(pid: int) -> None:
    """Nothing the collector started survives it: every other process of the version is killed and reaped."""
    with contextlib.suppress(OSError):
        if os.getpid() == 1:
            os.kill(-1, signal.SIGKILL)  # every other process of the version's PID namespace
        else:
            os.killpg(pid, signal.SIGKILL)
    while True:
        try:
            os.waitpid(-1, 0 if os.getpid() == 1 else os.WNOHANG)
        except ChildProcessError:
            return
        except InterruptedError:
            continue


class _Supervisor:
    """Runs collectors for a version and keeps what they report, enforcing every deadline itself."""

    def __init__(self, plan: VersionPlan) -> None:
        self.plan = plan
        self.collected: list[str] | None = None
        self.collection_error: str | None = None
        self.results: dict[int, dict[str, Any]] = {}
        self.crashed: set[int] = set()

    def wanted(self) -> list[int]:
        nodes = self.collected or []
        return [i for i, node in enumerate(nodes) if self.plan.select is None or node in self.plan.select]

    def _record(self, index: int, found: dict[str, Any], started: float) -> None:
        assert self.collected is not None
        outcome = found.get("outcome")
        record = {
            "type": "item",
            "index": index,
            "node": self.collected[index],
            "outcome": str(outcome) if outcome in ("pass", "fail", "error", "timeout") else "error",
            "kind": str(found.get("kind", ""))[:200],
            "detail": str(found.get("detail", ""))[:400],
            "duration_s": round(time.monotonic() - started, 4),
        }
        tripped = found.get("tripped")
        if isinstance(tripped, list) and tripped:
            record["tripped"] = [str(event)[:200] for event in tripped[: guard.TRIPPED_LIMIT]]
        self.results[index] = record
        send(self.plan.results_fd, record)

    def run(self, wanted: tuple[int, ...] | None) -> str:
        """One collector; how it ended. Items it started but never finished are recorded as such."""
        pid, fd = _start_collector(self.plan, wanted)
        reader = LineReader(fd, RECORD_LIMIT)
        grace = self.plan.item_timeout_s + COLLECTION_GRACE_S
        deadline = time.monotonic() + grace
        current: int | None = None
        started = 0.0
        ended = "exited"
        try:
            while True:
                try:
                    record = reader.next_record(deadline)
                except WireError as exc:
                    ended = f"broke the record format: {exc}"
                    break
                if record is None:
                    if not reader.eof:
                        ended = "timeout" if current is not None else f"no progress for {grace:g} s"
                    break
                kind = record.get("type")
                if kind == "collected" and isinstance(record.get("items"), list):
                    nodes = [node[:2000] for node in record["items"][:100_000] if isinstance(node, str)]
                    if self.collected is None:
                        self.collected = nodes
                        send(self.plan.results_fd, {"type": "collected", "items": nodes})
                    elif nodes != self.collected:
                        ended = "collected other items when run again"
                        break
                elif kind == "collection_error" and self.collected is None:
                    self.collection_error = str(record.get("detail", ""))[:6000]
                    break
                elif kind == "start" and current is None and self.collected is not None:
                    index = record.get("index")
                    if type(index) is int and index in self.wanted() and index not in self.results:
                        current, started = index, time.monotonic()
                        deadline = started + self.plan.item_timeout_s
                elif kind == "item" and current is not None and record.get("index") == current:
                    self._record(current, record, started)
                    current = None
                    deadline = time.monotonic() + grace
                elif kind in ("collector_done", "collector_error"):
                    ended = "done" if kind == "collector_done" else "collector error"
                    break
        finally:
            os.close(fd)
            _end_collector(pid)
        if current is not None and current not in self.results:
            if ended == "timeout":
                found = {"outcome": "timeout", "kind": f"timeout after {self.plan.item_timeout_s:g} s"}
            else:
                found = {"outcome": "error", "kind": "crashed: the test process ended without a result"}
                self.crashed.add(current)
            self._record(current, found, started)
        return ended


def _harness(plan: VersionPlan, layers: dict[str, Any]) -> None:
    """The version's first process: layers, then collectors until every wanted item has a result."""
    _own_layers(plan, layers)
    send(plan.results_fd, {"type": "layers", "layers": layers})
    supervisor = _Supervisor(plan)
    ended = supervisor.run(None)
    if supervisor.collected is None:
        detail = supervisor.collection_error or f"the collecting process ended without a result ({ended})"
        send(plan.results_fd, {"type": "collection_error", "detail": detail})
        return
    for _ in range(RESTARTS):
        missing = [index for index in supervisor.wanted() if index not in supervisor.results]
        if not missing:
            return
        send(
            plan.results_fd,
            {
                "type": "note",
                "text": f"the test process ended early ({ended}); {len(missing)} item(s) were run again in a new one",
            },
        )
        ended = supervisor.run(tuple(missing))
    for index in supervisor.wanted():
        if index not in supervisor.results:
            supervisor._record(index, {"outcome": "error", "kind": f"crashed: no result ({ended})"}, time.monotonic())


def run_version(plan: VersionPlan) -> None:
    """The body of the process the server forks for a version; never returns."""
    layers: dict[str, Any] = {
        "user_namespace": False,
        "mount_namespace": False,
        "ipc_namespace": False,
        "network_namespace": False,
        "uts_namespace": False,
        "pid_namespace": False,
        "read_only_root": False,
        "workdir": "new folder",
        "process_per_item": True,
        "harness_runs_test_code": False,
        "python_guard": "tripwire",
        "failures": [],
    }
    try:
        _die_with_parent()
        os.setpgid(0, 0)
        fresh = _fresh_instance(plan, layers)
        if not fresh:
            os.mkdir(plan.work, 0o755)
            _write_files(plan.work, plan.files)
        os.chdir(plan.work)
        os.environ.clear()
        os.environ.update(plan.environment)
        tempfile.tempdir = None  # found again from TMPDIR (the working directory's), not the server's
        if fresh:
            pid = os.fork()  # the first process of the new PID namespace
            if pid == 0:
                _die_with_parent()
                _harness(plan, layers)
                send(plan.results_fd, {"type": "done"})
                os._exit(0)
            os.close(plan.results_fd)
            _, status = os.waitpid(pid, 0)
            os._exit(0 if os.WIFEXITED(status) else 70)
        _harness(plan, layers)
        send(plan.results_fd, {"type": "done"})
    except BaseException as exc:
        with contextlib.suppress(BaseException):
            send(plan.results_fd, {"type": "harness_error", "detail": f"{type(exc).__name__}: {exc}"[:2000]})
    finally:
        os._exit(0)
