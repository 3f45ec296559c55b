"""The instances the versions run in: one read-only root per session, a fresh set of namespaces per version.

The server enters a session root once (`enter_session`): new user, mount, network and UTS namespaces, a new root
holding only read-only views of the libraries test code may use, with a small read-only session
folder at SESSION (the pytest configuration, and the mount point of the working directory). Each
version then takes, in a fork of the server, new mount, IPC and PID namespaces and a brand-new tmpfs on
the working directory (`enter_version`): the same path, the same first inode numbers, no IPC object
and no process left by the version before it, about a millisecond instead of the ten a whole new root
costs. (The session's network namespace has only a loopback device that is down, and nothing a version
could leave in it outlives the version's processes.)

As root, the session root is built as root (so the interpreter can be shown from wherever it lives)
and every id then drops to TEST_UID before the user namespace is made: ids inside map to that
unprivileged user, never to root outside. Where the kernel allows none of it, the server runs
without (`probe` says why) and each version gets a new folder instead, recorded in its row.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ...confine import namespaces, privileges
from ...confine.errors import ConfinementError

SESSION = "/hallubench"  # inside the session root: the same path on every machine, for every session
WORK = SESSION + "/work"
TEST_UID = TEST_GID = 64834  # what a root executor drops to before any test code: never root outside
# Per session: a user, mount, network (loopback down, no address) and UTS namespace. Per version: mount
# (its own tmpfs), IPC (no System V or POSIX queue object reaches the next) and PID (nothing survives it).
SESSION_FLAGS = namespaces.CLONE_NEWUSER | namespaces.CLONE_NEWNS | namespaces.CLONE_NEWNET | namespaces.CLONE_NEWUTS
VERSION_FLAGS = namespaces.CLONE_NEWNS | namespaces.CLONE_NEWIPC | namespaces.CLONE_NEWPID


def enter_session(plan: namespaces.RootPlan, fill: Callable[[], None]) -> dict[str, Any]:
    """Enter the session root `plan` describes; `fill()` writes the session folder before it turns read-only."""
    root = os.geteuid() == 0
    proc_self = os.open("/proc/self", os.O_PATH | os.O_DIRECTORY) if root else -1  # the new root has no /proc
    try:
        namespaces.enter(namespaces.CLONE_NEWNS if root else SESSION_FLAGS)
        built = namespaces.build_root(plan)
        fill()
        namespaces.seal(SESSION)
        if root:
            namespaces.drop_to(TEST_UID, TEST_GID)
            privileges.set_dumpable()  # the id change cleared it, and with it the right to write our id maps
            namespaces.enter(SESSION_FLAGS & ~namespaces.CLONE_NEWNS, proc_self=proc_self)
    finally:
        if proc_self >= 0:
            os.close(proc_self)
    return {**built, **({"dropped_root_to": f"uid {TEST_UID}, gid {TEST_GID}"} if root else {})}


def enter_version(work_bytes: int) -> None:
    """In a fork of the server inside the session root: the version's own namespaces and working directory."""
    namespaces.enter(VERSION_FLAGS)
    namespaces.Mounts().mount(
        "tmpfs", WORK, "tmpfs", namespaces.MS_NOSUID | namespaces.MS_NODEV, f"size={work_bytes},mode=0755"
    )


def session_plan(mount_point: str, binds: list[str], hidden: list[str], late: list[str]) -> namespaces.RootPlan:
    owner = (TEST_UID, TEST_GID) if os.geteuid() == 0 else None
    return namespaces.RootPlan(
        mount_point=mount_point,
        read_only=binds,
        hidden=hidden,
        read_only_late=late,
        scratch=[(SESSION, 1 << 20)],
        scratch_owner=owner,
    )


def probe(mount_point: str) -> str | None:
    """None when a session root and a version instance can be made here (tried in a child), else why not."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        why = ""
        try:
            enter_session(session_plan(mount_point, [], [], []), lambda: os.mkdir(WORK))
            enter_version(1 << 20)
        except (ConfinementError, OSError) as exc:
            why = str(exc) or type(exc).__name__
        os.write(write_end, why.encode("utf-8", "replace")[:2000])
        os._exit(0)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 4096):
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8", "replace") or None
