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
import select
import signal
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from ...confine import landlock, namespaces, privileges, seccomp
from ...confine.errors import ConfinementError
from . import guard, lockdown
from .items import ItemPlan, run_test_process
from .wire import parse, send

DETAILS_LIMIT = 1 << 16
FIXED_TIME = 946684800  # 2000-01-01: every file of every version carries the same timestamps
PR_SET_PDEATHSIG = 1
TEST_UID = TEST_GID = 64834  # what a root executor drops to before any test code: never root outside


@dataclass(frozen=True)
class VersionPlan:
    """All a version needs, prepared by the server before the fork."""

    session: Any
    collection_errors: Any
    results_fd: int
    work: str
    mount_point: str  # an empty folder of the server's to build the new root on
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
    root_binds: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]  # bound, hidden, bound after (server.py)
    lockdown: lockdown.Plan
    namespaces: bool  # try the fresh instance (off: the working directory alone, as without user namespaces)


def _die_with_parent() -> None:
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _write_files(work: str, files: dict[str, str], owner: tuple[int, int] | None = None) -> None:
    for name, text in files.items():
        path = os.path.join(work, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    os.mkdir(work + "/tmp")
    for path in [*(os.path.join(work, name) for name in files), work + "/tmp", work]:
        if owner is not None:
            os.chown(path, *owner)
        os.utime(path, (FIXED_TIME, FIXED_TIME))


def enter_instance(root_plan: namespaces.RootPlan, fill: Any = None) -> dict[str, str]:
    """Fresh namespaces and the new root `root_plan` describes; `fill()` runs in it before any id changes.

    As root, the mount namespace and the root are made first, as root (so the interpreter can be
    shown from wherever it lives), then every id drops to TEST_UID before the user namespace is
    made: ids inside map to that unprivileged user, never to root outside.
    """
    if os.geteuid() == 0:
        proc_self = os.open("/proc/self", os.O_PATH | os.O_DIRECTORY)  # the new root has no /proc
        try:
            namespaces.enter(namespaces.CLONE_NEWNS)
            namespaces.build_root(root_plan)
            if fill is not None:
                fill()
            namespaces.drop_to(TEST_UID, TEST_GID)
            privileges.set_dumpable()  # the id change cleared it, and with it the right to write our id maps
            namespaces.enter(namespaces.FRESH & ~namespaces.CLONE_NEWNS, proc_self=proc_self)
        finally:
            os.close(proc_self)
        return {"dropped_root_to": f"uid {TEST_UID}, gid {TEST_GID}"}
    namespaces.enter(namespaces.FRESH)
    namespaces.build_root(root_plan)
    if fill is not None:
        fill()
    return {}


def _fresh_instance(plan: VersionPlan, layers: dict[str, Any]) -> bool:
    """Enter new namespaces and the new root with the version's files; False where the kernel refuses."""
    if not plan.namespaces:
        layers["failures"].append("namespaces not requested")
        return False
    root = os.geteuid() == 0
    owner = (TEST_UID, TEST_GID) if root else None
    binds, hidden, late = plan.root_binds
    root_plan = namespaces.RootPlan(
        mount_point=plan.mount_point,
        read_only=binds,
        hidden=hidden,
        read_only_late=late,
        scratch=[(plan.work, plan.workdir_bytes)],
        scratch_owner=owner,
    )
    try:
        layers.update(enter_instance(root_plan, lambda: _write_files(plan.work, plan.files, owner=owner)))
    except ConfinementError as exc:
        layers["failures"].append(str(exc))
        if root or "id map" in exc.detail:  # half-made: this process cannot go on as it is
            raise
        return False
    layers.update(
        user_namespace=True,
        mount_namespace=True,
        ipc_namespace=True,
        network_namespace=True,
        uts_namespace=True,
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
        layers["seccomp"] = seccomp.install(seccomp.INNER).as_dict()
    except ConfinementError as exc:
        layers["seccomp"] = None
        layers["failures"].append(str(exc))
    privileges.set_no_new_privs()


def _own_domain() -> None:
    """A test process's own Landlock domain: it may signal nothing outside itself (its harness included)."""
    with contextlib.suppress(ConfinementError):
        landlock.restrict(landlock.Policy(restrict_files=False, tcp_connect=None, tcp_bind=None, scope=True))


def _wait(pid: int, read_fd: int, timeout_s: float) -> dict[str, Any] | None:
    """The first record a test process sent; None when it sent none. Killed at the deadline."""
    deadline = time.monotonic() + timeout_s
    data = bytearray()
    eof = False
    while not eof and b"\n" not in data:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([read_fd], [], [], remaining)[0]:
            break
        chunk = os.read(read_fd, DETAILS_LIMIT)
        eof = not chunk
        data += chunk
        if len(data) > DETAILS_LIMIT:
            break
    timed_out = not eof and b"\n" not in data
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    if timed_out:
        return {"outcome": "timeout", "kind": f"timeout after {timeout_s:g} s", "detail": ""}
    return parse(bytes(data).split(b"\n", 1)[0]) if data else None


def _test_process(plan: VersionPlan, node: str | None, timeout_s: float) -> dict[str, Any] | None:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.setpgid(0, 0)  # a group of its own: whatever it starts ends with it (without a PID namespace)
        item_plan = ItemPlan(
            session=plan.session,
            collection_errors=plan.collection_errors,
            work=plan.work,
            test_file=plan.test_file,
            report_fd=write_end,
            memory_bytes=plan.memory_bytes,
            file_size_bytes=plan.file_size_bytes,
            rules=guard.Rules(
                work=plan.work, read_roots=plan.read_roots, readable_files=namespaces.DEVICES, listable=plan.listable
            ),
            lockdown=plan.lockdown,
            confine=_own_domain,
        )
        run_test_process(item_plan, node)
    os.close(write_end)
    try:
        return _wait(pid, read_end, timeout_s)
    finally:
        os.close(read_end)
        _reap_others(pid)


def _reap_others(pid: int) -> None:
    """Nothing a test process started survives it: kill the rest of the version's processes, reap them."""
    with contextlib.suppress(OSError):
        if os.getpid() == 1:
            os.kill(-1, signal.SIGKILL)  # every other process of the version's PID namespace
        else:
            os.killpg(pid, signal.SIGKILL)
    while True:
        try:
            reaped, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if reaped == 0:
            return


def _item_record(index: int, node: str, found: dict[str, Any] | None, started: float) -> dict[str, Any]:
    if (
        found is None
        or found.get("type", "item") != "item"
        or found.get("outcome") not in ("pass", "fail", "error", "timeout")
    ):
        found = {"outcome": "error", "kind": "crashed: the test process ended without a result", "detail": ""}
    tripped = found.get("tripped")
    record = {
        "type": "item",
        "index": index,
        "node": node,
        "outcome": str(found["outcome"]),
        "kind": str(found.get("kind", ""))[:200],
        "detail": str(found.get("detail", ""))[:400],
        "duration_s": round(time.monotonic() - started, 4),
    }
    if isinstance(tripped, list) and tripped:
        record["tripped"] = [str(event)[:200] for event in tripped[: guard.TRIPPED_LIMIT]]
    return record


def _harness(plan: VersionPlan, layers: dict[str, Any]) -> None:
    """The version's first process: layers, then the collector and one test process per item."""
    _own_layers(plan, layers)
    send(plan.results_fd, {"type": "layers", "layers": layers})
    collection_timeout = plan.item_timeout_s + 5.0
    found = _test_process(plan, None, collection_timeout)
    if found is None or found.get("type") not in ("collected", "collection_error"):
        detail = "the collecting process ended without a result"
        if found is not None and found.get("outcome") == "timeout":
            detail = f"collection did not finish in {collection_timeout:g} s"
        send(plan.results_fd, {"type": "collection_error", "detail": detail})
        return
    if found["type"] == "collection_error":
        send(plan.results_fd, {"type": "collection_error", "detail": str(found.get("detail", ""))[:6000]})
        return
    listed = found.get("items")
    nodes = [node[:2000] for node in listed[:100_000] if isinstance(node, str)] if isinstance(listed, list) else []
    send(plan.results_fd, {"type": "collected", "items": nodes})
    for index, node in enumerate(nodes):
        if plan.select is not None and node not in plan.select:
            continue
        started = time.monotonic()
        result = _test_process(plan, node, plan.item_timeout_s)
        send(plan.results_fd, _item_record(index, node, result, started))


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
