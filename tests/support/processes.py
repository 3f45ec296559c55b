"""The processes a test itself started, however they tried to get away, and none of anybody else's.

A hostile test file forks, spawns `sleep 60`, calls `setsid` or leaves orphans, so "what is still
running" cannot be read from the session id (the sandbox starts each session anew) nor from the
whole machine (another checkout's tests may be running the same hostile files at the same time).
Instead the test process becomes a *child subreaper* (Linux `prctl(PR_SET_CHILD_SUBREAPER)`):
every orphan among its descendants is re-parented to it rather than to init, so its descendants
stay exactly the processes whose parent chain leads back to it.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36


@dataclass(frozen=True)
class ProcessInfo:
    pid: int
    parent: int
    state: str
    cmdline: bytes


def _read(pid: int) -> ProcessInfo | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
    fields = stat[stat.rindex(")") + 2 :].split()
    return ProcessInfo(pid, int(fields[1]), fields[0], cmdline)


def all_processes() -> list[ProcessInfo]:
    """Every process visible in /proc now."""
    found = (_read(int(entry)) for entry in os.listdir("/proc") if entry.isdigit())
    return [info for info in found if info is not None]


def descendants(root: int | None = None) -> list[ProcessInfo]:
    """Live (non-zombie) processes whose parent chain reaches `root` (default: this process)."""
    root = os.getpid() if root is None else root
    processes = all_processes()
    children: dict[int, list[ProcessInfo]] = {}
    for info in processes:
        children.setdefault(info.parent, []).append(info)
    found: list[ProcessInfo] = []
    pending = [root]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child.pid)
    return [info for info in found if info.state != "Z"]


def _set_subreaper(on: bool) -> None:
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def reap_adopted_zombies() -> None:
    """Collect orphans that were re-parented to this process and have exited (only those: no waitpid(-1))."""
    me = os.getpid()
    for info in all_processes():
        if info.parent == me and info.state == "Z":
            with contextlib.suppress(ChildProcessError):
                os.waitpid(info.pid, os.WNOHANG)


@contextlib.contextmanager
def adopting_orphans() -> Iterator[None]:
    """Within the block, orphaned descendants stay descendants of this process (see the module docstring)."""
    _set_subreaper(True)
    try:
        yield
    finally:
        reap_adopted_zombies()
        _set_subreaper(False)
