"""Fresh namespaces and a new, read-only root holding only what code under test may see.

`enter` puts the calling process into new user, mount, IPC, network and UTS namespaces (and makes
its next child the first process of a new PID namespace), with fixed ids inside (1000:1000, never
root) mapped to the caller's own ids outside. `build_root` then makes an empty tmpfs the root:
read-only (so no access time moves), `nosuid`, `nodev` binds of the interpreter's and the system's library
folders at their own paths, a few device files, and fresh tmpfs mounts for the scratch folders,
so a second call starts from exactly the same state (the same inode numbers, no access times
moving, nothing left by the first). Why by hand: these are `unshare`, `mount` and `pivot_root`,
which the standard library does not wrap, in a module the executor embeds into task files.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ConfinementError

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
FRESH = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWPID
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MNT_DETACH = 2
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
INSIDE_UID = INSIDE_GID = 1000
SYSTEM_DIRECTORIES = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
SYSTEM_FILES = ("/etc/ld.so.cache",)
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


class Mounts:
    """`unshare`, `mount`, `umount2` and `pivot_root`, raising ConfinementError naming the call."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)

    def _check(self, result: int, what: str) -> None:
        if result != 0:
            number = ctypes.get_errno()
            raise ConfinementError("namespaces", f"{what}: {os.strerror(number)}")

    def unshare(self, flags: int) -> None:
        self._check(self._libc.unshare(flags), "unshare")

    def mount(self, source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
        encoded = [value.encode() if value is not None else None for value in (source, target, fstype, data)]
        self._check(
            self._libc.mount(encoded[0], encoded[1], encoded[2], ctypes.c_ulong(flags), encoded[3]), f"mount {target}"
        )

    def umount(self, target: str) -> None:
        self._check(self._libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")

    def pivot_root(self, new_root: str, put_old: str) -> None:
        number = PIVOT_ROOT.get(os.uname().machine)
        if number is None:
            raise ConfinementError("namespaces", f"pivot_root: unknown system call number on {os.uname().machine}")
        self._check(self._libc.syscall(number, new_root.encode(), put_old.encode()), "pivot_root")


def _write(path: str, text: str, dir_fd: int | None = None) -> None:
    fd = os.open(path, os.O_WRONLY, dir_fd=dir_fd)
    try:
        os.write(fd, text.encode("ascii"))
    finally:
        os.close(fd)


def drop_to(uid: int, gid: int) -> None:
    """Leave root for good: no supplementary groups, every id `uid`/`gid` (the capabilities go with them)."""
    try:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    except OSError as exc:
        raise ConfinementError("privileges", f"cannot drop to uid {uid}: {exc}") from exc


def enter(flags: int = FRESH, proc_self: int | None = None) -> None:
    """Unshare `flags` (a new user namespace among them) and map 1000:1000 inside to this process's ids.

    `proc_self`: a descriptor of this process's /proc folder, opened before a new root hid /proc.
    Raises ConfinementError when the kernel refuses; a process left in a user namespace without an
    id map cannot go on, so call this in a child made for the purpose.
    """
    uid, gid = os.geteuid(), os.getegid()
    libc = Mounts()
    libc.unshare(flags)
    if flags & CLONE_NEWUSER:
        folder = "" if proc_self is not None else "/proc/self/"
        try:
            _write(folder + "setgroups", "deny", proc_self)
            _write(folder + "uid_map", f"{INSIDE_UID} {uid} 1", proc_self)
            _write(folder + "gid_map", f"{INSIDE_GID} {gid} 1", proc_self)
        except OSError as exc:
            raise ConfinementError("namespaces", f"id map: {exc}") from exc


def kept_flags(path: str) -> int:
    """The flags a read-only remount must keep (a user namespace may not clear locked ones)."""
    found = os.statvfs(path).f_flag
    flags = 0
    for name, value in (
        ("ST_NOSUID", MS_NOSUID),
        ("ST_NODEV", MS_NODEV),
        ("ST_NOEXEC", MS_NOEXEC),
        ("ST_NOATIME", MS_NOATIME),
        ("ST_NODIRATIME", MS_NODIRATIME),
        ("ST_RELATIME", MS_RELATIME),
    ):
        if found & getattr(os, name, 0):
            flags |= value
    return flags


def mount_points_under(path: str) -> list[str]:
    points = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) > 4:
                point = fields[4].replace("\\040", " ").replace("\\011", "\t").replace("\\134", "\\")
                if point == path or point.startswith(path.rstrip("/") + "/"):
                    points.append(point)
    return points


def outermost(paths: Iterable[str]) -> list[str]:
    """Existing paths, resolved, without those lying under another one of them."""
    resolved = sorted({os.path.realpath(path) for path in paths if os.path.exists(path)})
    kept: list[str] = []
    for path in resolved:
        if not any(path == other or path.startswith(other.rstrip("/") + "/") for other in kept):
            kept.append(path)
    return kept


@dataclass(frozen=True)
class RootPlan:
    """What the new root holds. `mount_point`: an existing empty directory to build it on.

    `read_only` paths are bound first; each `hidden` folder (inside one of them) is then covered by
    an empty read-only tmpfs, and the `read_only_late` paths are bound after that, so a package can
    be shown from inside a hidden folder without the rest of it.
    """

    mount_point: str
    read_only: Sequence[str]
    scratch: Sequence[tuple[str, int]]  # (path inside the new root, size in bytes): a fresh tmpfs each
    hidden: Sequence[str] = ()
    read_only_late: Sequence[str] = ()
    devices: Sequence[str] = DEVICES
    scratch_owner: tuple[int, int] | None = None  # (uid, gid) owning the scratch tmpfs roots (default: the caller)


class _NewRoot:
    def __init__(self, libc: Mounts, root: str) -> None:
        self.libc, self.root = libc, root
        self.host_points = mount_points_under("/")  # read once: a bind of a source brings along those under it

    def bind_read_only(self, source: str, device: bool = False) -> None:
        target = self.root + source
        if os.path.isdir(source):
            os.makedirs(target, exist_ok=True)
        elif not os.path.exists(target):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="ascii"):
                pass
        self.libc.mount(source, target, None, MS_BIND | MS_REC)
        inside = [point for point in self.host_points if point.startswith(source.rstrip("/") + "/")]
        for point in [target, *(self.root + point for point in inside)]:
            # Read-only is what keeps access times still (no atime is written through a read-only mount); the
            # atime flags themselves are locked in a user namespace and are kept as they are.
            flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | (0 if device else MS_NODEV) | kept_flags(point)
            self.libc.mount(None, point, None, flags)

    def mirror_link(self, path: str) -> None:
        os.makedirs(os.path.dirname(self.root + path), exist_ok=True)
        os.symlink(os.readlink(path), self.root + path)

    def tmpfs(self, path: str, size: int, owner: tuple[int, int] | None = None) -> None:
        os.makedirs(self.root + path, exist_ok=True)
        options = f"size={size},mode=0755" + (f",uid={owner[0]},gid={owner[1]}" if owner is not None else "")
        self.libc.mount("tmpfs", self.root + path, "tmpfs", MS_NOSUID | MS_NODEV, options)


def seal(path: str) -> None:
    """Make the tmpfs at `path` read-only from now on (its mount namespace's owner only)."""
    Mounts().mount(None, path, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def build_root(plan: RootPlan) -> dict[str, Any]:
    """Pivot into a new root built from `plan` (call after `enter`); returns what it holds."""
    libc = Mounts()
    root = plan.mount_point
    libc.mount(None, "/", None, MS_REC | MS_PRIVATE)
    libc.mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=0755")
    new = _NewRoot(libc, root)
    system = [path for path in SYSTEM_DIRECTORIES if os.path.isdir(path) and not os.path.islink(path)]
    bound = outermost([*system, *plan.read_only])
    for path in bound:
        new.bind_read_only(path)
    for path in SYSTEM_DIRECTORIES:
        if os.path.islink(path):
            new.mirror_link(path)
    for path in SYSTEM_FILES:
        if os.path.exists(path) and not os.path.exists(root + path):
            new.bind_read_only(path)
    for path in plan.devices:  # character devices: a read-only bind still writes to /dev/null
        if os.path.exists(path) and not os.path.exists(root + path):
            new.bind_read_only(path, device=True)
    hidden = [path for path in plan.hidden if os.path.isdir(root + path)]
    for path in hidden:
        new.tmpfs(path, 1 << 20)
    for path in plan.read_only_late:
        if os.path.exists(path):
            new.bind_read_only(path)
    for path in hidden:
        libc.mount(None, root + path, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    for path, size in plan.scratch:
        new.tmpfs(path, size, plan.scratch_owner)
    os.makedirs(root + "/.old", exist_ok=True)
    libc.mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    libc.pivot_root(root, root + "/.old")
    os.chdir("/")
    libc.umount("/.old")
    return {"read_only": bound, "hidden": hidden, "scratch": [path for path, _ in plan.scratch], "proc": False}
