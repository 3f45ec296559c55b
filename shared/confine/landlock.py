"""Landlock: an unprivileged process restricts its own file, TCP and signal access, for good.

Why written here rather than taken from a library: no maintained Python binding exists on PyPI, and
the executor embedded in task files may use the standard library only. The interface is three
system calls (`landlock_create_ruleset`, `landlock_add_rule`, `landlock_restrict_self`, numbered
444-446 on every architecture) and three small structures; this module is their direct
transcription from the kernel's `include/uapi/linux/landlock.h`, nothing more.

A restriction applies to the calling thread and everything it starts, can only be tightened
further, and survives `execve`. Access rights the running kernel does not know (its ABI version is
older) are left out and reported, never silently assumed.
"""

from __future__ import annotations

import ctypes
import os
import stat
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfinementError
from .privileges import set_no_new_privs

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
BIND_TCP = 1 << 0  # ABI 4
CONNECT_TCP = 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # the rights a rule on a non-directory may hold
READ = READ_FILE | READ_DIR
WRITE = (
    READ
    | WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_SYM
    | REFER
    | TRUNCATE
)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPortAttr(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


@dataclass(frozen=True)
class Policy:
    """What stays allowed once the restriction is in place; everything the kernel can handle else is denied.

    `read`, `write`: paths beneath which files may be read, or read and changed; `execute`: files
    that may be executed (an interpreter and its ELF loader); `devices`: character devices that may
    be read and written (/dev/null). `tcp_connect`, `tcp_bind`: ports allowed (None: TCP not
    restricted; empty: none). `scope`: refuse signals and abstract unix sockets to processes
    outside the restricted domain.
    """

    read: tuple[str, ...] = ()
    list_only: tuple[str, ...] = ()  # folders (and those beneath) whose entries may be listed, no file read
    write: tuple[str, ...] = ()
    execute: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()
    restrict_files: bool = True
    tcp_connect: tuple[int, ...] | None = ()
    tcp_bind: tuple[int, ...] | None = ()
    scope: bool = True


@dataclass
class Applied:
    """What a restriction enforced, for the row that records the layers."""

    abi: int
    files: bool = False
    tcp: bool = False
    scope: bool = False
    missing: list[str] = field(default_factory=list)  # rights this kernel's ABI cannot enforce
    skipped_paths: list[str] = field(default_factory=list)  # allowed paths that do not exist here

    def as_dict(self) -> dict[str, Any]:
        return {
            "abi": self.abi,
            "files": self.files,
            "tcp": self.tcp,
            "scope": self.scope,
            "missing": list(self.missing),
            "skipped_paths": list(self.skipped_paths),
        }


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The Landlock ABI this kernel offers; 0 when Landlock is missing or disabled."""
    try:
        libc = _libc()
    except OSError:
        return 0
    libc.syscall.restype = ctypes.c_long
    version = int(libc.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)))
    return max(version, 0)


def _handled_fs(abi: int) -> int:
    return next(mask for level, mask in sorted(_FS_BY_ABI.items(), reverse=True) if abi >= level)


def _raise(layer_detail: str) -> None:
    number = ctypes.get_errno()
    raise ConfinementError("landlock", f"{layer_detail}: {os.strerror(number)}")


def restrict(policy: Policy, *, abi: int | None = None) -> Applied:
    """Restrict this thread (and all it starts) to `policy`; raise ConfinementError when Landlock is missing."""
    level = abi_version() if abi is None else abi
    if level < 1:
        raise ConfinementError(
            "landlock", "this kernel offers no Landlock (Linux 5.13 or later, with landlock in lsm=)"
        )
    applied = Applied(abi=level)
    handled_fs = _handled_fs(level) if policy.restrict_files else 0
    handled_net = 0
    if level >= 4 and (policy.tcp_connect is not None or policy.tcp_bind is not None):
        handled_net = (CONNECT_TCP if policy.tcp_connect is not None else 0) | (
            BIND_TCP if policy.tcp_bind is not None else 0
        )
    elif policy.tcp_connect is not None or policy.tcp_bind is not None:
        applied.missing.append("tcp (Landlock ABI 4, Linux 6.7)")
    scoped = SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET if policy.scope and level >= 6 else 0
    if policy.scope and level < 6:
        applied.missing.append("signal and abstract socket scoping (Landlock ABI 6, Linux 6.12)")
    if policy.restrict_files and level < 3:
        applied.missing.append("truncate (Landlock ABI 3, Linux 6.2)")
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    attr = _RulesetAttr(handled_fs, handled_net, scoped)
    size = ctypes.sizeof(_RulesetAttr) if level >= 6 else 16 if level >= 4 else 8
    ruleset = int(libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)))
    if ruleset < 0:
        _raise("create_ruleset")
    try:
        if handled_fs:
            _add_path_rules(libc, ruleset, policy, handled_fs, applied)
        if handled_net:
            for right, ports in ((CONNECT_TCP, policy.tcp_connect), (BIND_TCP, policy.tcp_bind)):
                for port in ports or ():
                    rule = _NetPortAttr(right, port)
                    if libc.syscall(_ADD_RULE, ruleset, _RULE_NET_PORT, ctypes.byref(rule), ctypes.c_uint32(0)) < 0:
                        _raise(f"add_rule tcp port {port}")
        set_no_new_privs()
        if libc.syscall(_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) < 0:
            _raise("restrict_self")
    finally:
        os.close(ruleset)
    applied.files, applied.tcp, applied.scope = bool(handled_fs), bool(handled_net), bool(scoped)
    return applied


def _add_path_rules(libc: Any, ruleset: int, policy: Policy, handled: int, applied: Applied) -> None:
    groups = (
        (policy.read, READ),
        (policy.list_only, READ_DIR),
        (policy.write, WRITE),
        (policy.execute, EXECUTE | READ_FILE),
        (policy.devices, READ_FILE | WRITE_FILE | IOCTL_DEV),
    )
    for paths, rights in groups:
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                applied.skipped_paths.append(path)
                continue
            try:
                is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
                allowed = rights & handled if is_dir else rights & handled & FILE_ONLY
                rule = _PathBeneathAttr(allowed, fd)
                if allowed and libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) < 0:
                    _raise(f"add_rule {path}")
            finally:
                os.close(fd)
