"""The version process: one program version, one test file, each selected item in a process of its own.

Forked from the server, which has pytest imported and configured but has never run test code. Before
it imports the test file it drops every descriptor but its results pipe (stdin, stdout and stderr
become /dev/null), enters the working directory with the fixed environment, sets its limits, turns
the cyclic collector off, replaces the unaudited routes (`lockdown.py`) and adds the audit hook
(`guard.py`). Then it collects the file and forks once per item; an item gets `item_timeout_s` of
wall time, enforced here from outside the item, then SIGKILL.

Everything this process reports can be forged by the test file it imported, and that is fine: it
only ever reports failures and timing. A pass exists only as the item's pass file, which the server
reads itself; what the test file could forge here would be the outcome of its own items on this
version, which it decides anyway by what its tests do.
"""

from __future__ import annotations

import gc
import os
import resource
import select
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from . import guard, lockdown
from .items import claim, run_item
from .wire import parse, send

DETAILS_LIMIT = 1 << 16
_PIDFD_OPEN = getattr(os, "pidfd_open", None)  # bound before the lockdown replaces it


@dataclass(frozen=True)
class Lines:
    """The line numbers of the privileged call sites (computed once by the server)."""

    fork: int
    cleanup: int
    kill: int
    claim: int


@dataclass(frozen=True)
class VersionPlan:
    """All a version process needs, prepared by the server before the fork."""

    session: Any
    collection_errors: Any
    results_fd: int
    work: str
    test_file: str
    select: tuple[str, ...] | None
    item_timeout_s: float
    memory_bytes: int
    file_size_bytes: int
    environment: dict[str, str]
    rules: guard.Rules
    lockdown: lockdown.Plan
    lines: Lines


class CollectionErrors:
    """A pytest plugin (registered by the server) keeping collection failures."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.messages.append(f"{report.nodeid or '<module>'}: {str(report.longrepr)[-3000:]}")


def _describe_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"crashed: killed by signal {os.WTERMSIG(status)}, no result"
    return f"crashed: exit status {os.waitstatus_to_exitcode(status)} without a result"


def _exit_watch(pid: int, open_pidfd: Any) -> int | None:
    """A descriptor that becomes readable when the item exits (None where pidfds are missing)."""
    try:
        fd = open_pidfd(pid)
    except (AttributeError, OSError, TypeError):
        return None
    return fd if isinstance(fd, int) else None


def wait_item(
    pid: int,
    read_fd: int,
    timeout_s: float,
    _kill: Any = os.kill,
    _waitpid: Any = os.waitpid,
    _select: Any = select.select,
    _read: Any = os.read,
    _close: Any = os.close,
    _pidfd_open: Any = _PIDFD_OPEN,
    _monotonic: Any = time.monotonic,
    _sleep: Any = time.sleep,
) -> dict[str, Any]:
    """Collect an item's details until it exits; kill it at the deadline (the line loading `_kill`).

    The exit is awaited on a pidfd (bound here before any lockdown), else polled.
    """
    deadline = _monotonic() + timeout_s
    data = bytearray()
    watch = _exit_watch(pid, _pidfd_open)
    eof = False
    status: int | None = None
    while status is None:
        remaining = deadline - _monotonic()
        if remaining <= 0:
            break
        waiting = ([] if eof else [read_fd]) + ([] if watch is None else [watch])
        if waiting:
            ready, _, _ = _select(waiting, [], [], remaining)
            if not ready:
                break
            if read_fd in ready:
                chunk = _read(read_fd, DETAILS_LIMIT)
                if not chunk:
                    eof = True
                elif len(data) < DETAILS_LIMIT:
                    data += chunk
            if watch is not None and watch not in ready:
                continue
            if watch is None and not eof:
                continue
        done, found = _waitpid(pid, os.WNOHANG)
        if done:
            status = found
        elif watch is None:
            _sleep(min(0.001, max(remaining, 0.0)))
    if watch is not None:
        _close(watch)
    if status is None:
        done, found = _waitpid(pid, os.WNOHANG)
        if not done:
            _kill(pid, 9)
            _waitpid(pid, 0)
            return {"outcome": "timeout", "kind": f"timeout after {timeout_s:g} s", "detail": ""}
        status = found
    while not eof and len(data) < DETAILS_LIMIT and _select([read_fd], [], [], 0)[0]:
        chunk = _read(read_fd, DETAILS_LIMIT)
        eof = not chunk
        data += chunk
    reported = parse(bytes(data).split(b"\n", 1)[0]) if data else None
    if reported is None or reported.get("outcome") not in ("pass", "fail", "error"):
        return {"outcome": "error", "kind": _describe_status(status), "detail": ""}
    return {
        "outcome": str(reported["outcome"]),
        "kind": str(reported.get("kind", ""))[:200],
        "detail": str(reported.get("detail", ""))[:400],
    }


def _prepare(plan: VersionPlan, main: Any) -> None:
    """Descriptors, directory, environment, limits, lockdown, hook: everything before the test file runs."""
    null_in = os.open(os.devnull, os.O_RDONLY)
    null_out = os.open(os.devnull, os.O_WRONLY)
    for target, source in ((0, null_in), (1, null_out), (2, null_out)):
        os.dup2(source, target)
    os.closerange(3, plan.results_fd)
    os.closerange(plan.results_fd + 1, max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 1024))
    os.setpgid(0, 0)  # the server kills this group when the version ends
    os.chdir(plan.work)
    os.environ.clear()
    os.environ.update(plan.environment)
    tempfile.tempdir = None
    for name, value in (
        ("RLIMIT_AS", plan.memory_bytes),
        ("RLIMIT_FSIZE", plan.file_size_bytes),
        ("RLIMIT_CORE", 0),
        ("RLIMIT_NOFILE", 256),
    ):
        resource.setrlimit(getattr(resource, name), (value, value))
    gc.disable()
    lockdown.apply(plan.lockdown)
    sites = guard.Sites(
        main_frame=main,
        fork_line=plan.lines.fork,
        cleanup_line=plan.lines.cleanup,
        wait_code=wait_item.__code__,
        kill_line=plan.lines.kill,
        run_item_code=run_item.__code__,
        claim_line=plan.lines.claim,
        claim_code=claim.__code__,
    )
    sys.addaudithook(guard.make_hook(plan.rules, sites))


def collect_items(session: Any, path: str) -> list[Any]:
    """The test file's items, collected as `pytest FILE` would (the one module, no directory walk)."""
    from pathlib import Path

    from _pytest.python import Module

    module = Module.from_parent(session, path=Path(path))
    return list(session.genitems(module))


def _collect(plan: VersionPlan) -> list[Any] | None:
    try:
        items = collect_items(plan.session, plan.work + "/" + plan.test_file)
    except BaseException as exc:
        send(
            plan.results_fd,
            {"type": "collection_error", "detail": f"collection stopped: {type(exc).__name__}: {exc}"[:3000]},
        )
        return None
    if plan.collection_errors.messages:
        send(plan.results_fd, {"type": "collection_error", "detail": "; ".join(plan.collection_errors.messages)[:6000]})
        return None
    send(plan.results_fd, {"type": "collected", "items": [str(item.nodeid) for item in items]})
    return items


def run_version(
    plan: VersionPlan,
    _fork: Any = os.fork,
    _kill: Any = os.kill,
    _run_item: Any = run_item,
    _wait: Any = wait_item,
    _pipe: Any = os.pipe,
    _close: Any = os.close,
    _send: Any = send,
    _monotonic: Any = time.monotonic,
    _getframe: Any = sys._getframe,
    _exit: Any = os._exit,
) -> None:
    """The body of a version process; never returns. `_fork` and `_kill` each appear on one line only."""
    main = _getframe()
    results_fd = plan.results_fd
    try:
        _prepare(plan, main)
        collected = _collect(plan)
        for index, item in enumerate(collected or []):
            if plan.select is not None and item.nodeid not in plan.select:
                continue
            pass_path = plan.rules.pass_dir + "/" + str(index)
            read_end, write_end = _pipe()
            started = _monotonic()
            pid = _fork()
            if pid == 0:
                _close(read_end)
                _close(results_fd)
                _run_item(item, pass_path, write_end)
            _close(write_end)
            record = _wait(pid, read_end, plan.item_timeout_s)
            _close(read_end)
            if plan.rules.may_kill_all:
                try:  # noqa: SIM105 (no library helper here: test code may have replaced it)
                    _kill(-1, 9)
                except OSError:
                    pass  # nothing else was left running
            record.update(type="item", index=index, node=str(item.nodeid), duration_s=round(_monotonic() - started, 4))
            _send(results_fd, record)
        _send(results_fd, {"type": "done"})
    except BaseException as exc:
        try:  # noqa: SIM105 (no library helper here: test code may have replaced it)
            _send(results_fd, {"type": "harness_error", "detail": f"{type(exc).__name__}: {exc}"[:2000]})
        except BaseException:
            pass
    finally:
        _exit(0)  # the version process never returns into the server's code
