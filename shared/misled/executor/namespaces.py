"""OS isolation under the Python guard, where the kernel allows it: user, mount, network and PID namespaces.

The first process of a sandbox session tries, in order, and records what worked:

* user namespace (root inside, the caller's own id outside) with mount, network and PID namespaces;
* a new root: an empty tmpfs holding read-only bind mounts of the interpreter, its libraries and the
  system library folders, five device files, a fresh tmpfs at the working path and one for pass
  files; everything else on the machine (other checkouts, data sets, /tmp, /proc) is not there;
* then it forks the server as PID 1 of the new PID namespace, so nothing a test starts can outlive
  the session, and the server can end every process of a version with one `kill(-1)`.

It uses ctypes for these system calls, and a process that has loaded ctypes must never run test
code (ctypes reads and writes any address without an audit event). So the server is always a fresh
`exec` of the interpreter: it inherits the namespaces and mounts, never ctypes. On a machine where
none of this is allowed (a container without user namespaces, as hosted runs may be), the session
runs with the Python guard alone and its rows say so.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MNT_DETACH = 2
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
SYSTEM_DIRECTORIES = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
SYSTEM_FILES = ("/etc/ld.so.cache",)
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
SANDBOX = "/sandbox"  # inside the new root: the same path on every machine, for every session


def no_layers(reason: str) -> dict[str, Any]:
    return {
        "user_namespace": False,
        "mount_namespace": False,
        "read_only_root": False,
        "network_namespace": False,
        "pid_namespace": False,
        "workdir": "host directory",
        "failures": [reason] if reason else [],
    }


class _Libc:
    """The handful of system calls needed, with errors raised as OSError."""

    def __init__(self) -> None:
        import ctypes

        self._ctypes = ctypes
        self._libc = ctypes.CDLL(None, use_errno=True)

    def _check(self, result: int, what: str) -> None:
        if result != 0:
            number = self._ctypes.get_errno()
            raise OSError(number, f"{what}: {os.strerror(number)}")

    def unshare(self, flags: int) -> None:
        self._check(self._libc.unshare(flags), "unshare")

    def mount(self, source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
        encoded = [value.encode() if value is not None else None for value in (source, target, fstype, data)]
        self._check(
            self._libc.mount(encoded[0], encoded[1], encoded[2], self._ctypes.c_ulong(flags), encoded[3]),
            f"mount {target}",
        )

    def umount(self, target: str) -> None:
        self._check(self._libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")

    def pivot_root(self, new_root: str, put_old: str) -> None:
        number = PIVOT_ROOT.get(os.uname().machine)
        if number is None:
            raise OSError(0, f"pivot_root: unknown system call number on {os.uname().machine}")
        self._check(self._libc.syscall(number, new_root.encode(), put_old.encode()), "pivot_root")


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)


def _mount_flags(path: str) -> int:
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


def _mount_points_under(path: str) -> list[str]:
    points = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) > 4:
                point = fields[4].replace("\\040", " ").replace("\\011", "\t").replace("\\134", "\\")
                if point == path or point.startswith(path.rstrip("/") + "/"):
                    points.append(point)
    return points


def _outermost(paths: Iterable[str]) -> list[str]:
    """Existing paths, resolved, without those lying under another one of them."""
    resolved = sorted({os.path.realpath(path) for path in paths if os.path.exists(path)})
    kept: list[str] = []
    for path in resolved:
        if not any(path == other or path.startswith(other.rstrip("/") + "/") for other in kept):
            kept.append(path)
    return kept


class _NewRoot:
    def __init__(self, libc: _Libc, root: str) -> None:
        self.libc = libc
        self.root = root

    def bind_read_only(self, source: str) -> None:
        target = self.root + source
        if os.path.isdir(source):
            os.makedirs(target, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="ascii"):
                pass
        self.libc.mount(source, target, None, MS_BIND | MS_REC)
        for point in _mount_points_under(target):
            self.libc.mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _mount_flags(point))

    def mirror_link(self, path: str) -> None:
        os.makedirs(os.path.dirname(self.root + path), exist_ok=True)
        os.symlink(os.readlink(path), self.root + path)

    def tmpfs(self, path: str, size: int) -> None:
        os.makedirs(self.root + path, exist_ok=True)
        self.libc.mount("tmpfs", self.root + path, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode=0755")


def _build_root(libc: _Libc, config: dict[str, Any], interpreter_dirs: list[str]) -> None:
    run_root = config["run_root"]
    root = run_root + "/newroot"
    os.makedirs(root, exist_ok=True)
    libc.mount(None, "/", None, MS_REC | MS_PRIVATE)
    libc.mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=0755")
    new = _NewRoot(libc, root)
    system = [path for path in SYSTEM_DIRECTORIES if os.path.isdir(path) and not os.path.islink(path)]
    for path in _outermost([*system, *interpreter_dirs]):
        new.bind_read_only(path)
    for path in SYSTEM_DIRECTORIES:
        if os.path.islink(path):
            new.mirror_link(path)
    for path in (*SYSTEM_FILES, *DEVICES):
        if os.path.exists(path) and not os.path.exists(root + path):
            new.bind_read_only(path)
    new.tmpfs(SANDBOX, int(config["workdir_bytes"]))
    os.makedirs(root + "/.old", exist_ok=True)
    libc.mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    libc.pivot_root(root, root + "/.old")
    os.chdir("/")
    libc.umount("/.old")


def enter(config: dict[str, Any], interpreter_dirs: list[str]) -> dict[str, Any]:
    """Create the namespaces and the new root in this process (the server is forked after); record the layers.

    Call it in a child made for the purpose: `layers["unusable"]` means the child is now stuck in a
    user namespace it cannot use, and the caller must carry on without it.
    """
    try:
        libc = _Libc()
    except (ImportError, OSError) as exc:
        return no_layers(f"ctypes unavailable: {exc}")
    uid, gid = os.geteuid(), os.getegid()
    layers = no_layers("")
    try:
        libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID)
    except OSError as exc:
        layers["failures"].append(f"user namespace: {exc}")
        if uid != 0:
            return layers
        try:  # a privileged container: the namespaces without a user namespace
            libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID)
        except OSError as again:
            layers["failures"].append(f"namespaces as root: {again}")
            return layers
    else:
        try:
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"0 {uid} 1")
            _write("/proc/self/gid_map", f"0 {gid} 1")
        except OSError as exc:  # inside a user namespace without ids: this process cannot go on
            layers["unusable"] = f"user namespace without an id map: {exc}"
            return layers
        layers["user_namespace"] = True
    layers["network_namespace"] = layers["pid_namespace"] = layers["mount_namespace"] = True
    try:
        _build_root(libc, config, interpreter_dirs)
        layers["read_only_root"] = True
        layers["workdir"] = "tmpfs"
        layers["sandbox"] = SANDBOX
    except OSError as exc:
        layers["failures"].append(f"new root: {exc}")
    return layers


def respawn(payload_bytes: bytes, boot: str) -> int:
    """Run the server as a fresh interpreter in a child (PID 1 of the new PID namespace, if one was made)."""
    read_end, write_end = os.pipe()
    os.set_inheritable(read_end, True)
    pid = os.fork()
    if pid == 0:
        os.close(write_end)
        os.execv(sys.executable, [sys.executable, "-s", "-P", "-c", boot, str(read_end)])
    os.close(read_end)
    _send_payload(write_end, payload_bytes)
    for fd in (0, 1):
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _send_payload(fd: int, data: bytes) -> None:
    header = f"{len(data)}\n".encode("ascii")
    view = memoryview(header + data)
    while view:
        view = view[os.write(fd, view) :]
    os.close(fd)
