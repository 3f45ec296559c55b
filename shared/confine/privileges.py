"""Process privileges that only ever go down: no_new_privs, capabilities, dumpability, resource limits.

Why by hand: these are single `prctl`/`capset` calls that the standard library does not wrap, and
the executor embedded in task files may use nothing else.
"""

from __future__ import annotations

import ctypes
import os
import resource
from collections.abc import Mapping
from typing import Any

from .errors import ConfinementError

PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_GET_NO_NEW_PRIVS = 39
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_CAPSET = {"x86_64": 126, "aarch64": 91}
_LAST_CAP_FALLBACK = 40


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, argument: int, what: str) -> None:
    libc = _libc()
    if libc.prctl(option, ctypes.c_ulong(argument), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        number = ctypes.get_errno()
        raise ConfinementError("privileges", f"{what}: {os.strerror(number)}")


def set_no_new_privs() -> None:
    """No set-uid binary, file capability or LSM transition can raise this process's privileges again."""
    _prctl(PR_SET_NO_NEW_PRIVS, 1, "no_new_privs")


def no_new_privs() -> bool:
    libc = _libc()
    return bool(
        libc.prctl(PR_GET_NO_NEW_PRIVS, ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) == 1
    )


def set_not_dumpable() -> None:
    """Other processes of the same user cannot read this one's memory, descriptors or environment in /proc."""
    _prctl(PR_SET_DUMPABLE, 0, "dumpable")


def set_dumpable() -> None:
    """Undo the kernel's clearing of dumpability after a change of ids (so /proc/self/fd stays readable)."""
    _prctl(PR_SET_DUMPABLE, 1, "dumpable")


def _last_capability() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return _LAST_CAP_FALLBACK


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities() -> None:
    """Empty the bounding, ambient, effective, permitted and inheritable sets (in whatever user namespace)."""
    libc = _libc()
    for cap in range(_last_capability() + 1):  # the bounding set first: it needs CAP_SETPCAP, dropped below
        libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    libc.prctl(
        PR_CAP_AMBIENT,
        ctypes.c_ulong(PR_CAP_AMBIENT_CLEAR_ALL),
        ctypes.c_ulong(0),
        ctypes.c_ulong(0),
        ctypes.c_ulong(0),
    )
    number = _CAPSET.get(os.uname().machine)
    if number is None:
        raise ConfinementError("privileges", f"capset: unknown system call number on {os.uname().machine}")
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    libc.syscall.restype = ctypes.c_long
    if libc.syscall(number, ctypes.byref(header), ctypes.byref(data)) != 0:
        raise ConfinementError("privileges", f"capset: {os.strerror(ctypes.get_errno())}")


def effective_capabilities() -> int:
    """The effective capability mask of this process, from /proc/self/status (0 when none)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError):
        pass
    return 0


def set_limits(limits: Mapping[str, int]) -> dict[str, int]:
    """Lower each `RLIMIT_*` named in `limits` (soft and hard); a limit is never raised. Returns what was set."""
    applied = {}
    for name, wanted in limits.items():
        which = getattr(resource, name, None)
        if which is None:
            continue
        _, hard = resource.getrlimit(which)
        value = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(which, (value, value))
        except (OSError, ValueError) as exc:
            raise ConfinementError("limits", f"{name}: {exc}") from exc
        applied[name] = value
    return applied
