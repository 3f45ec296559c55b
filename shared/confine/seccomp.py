"""A system-call filter compiled by libseccomp: the calls model-written code never needs are refused.

libseccomp is the maintained component (it knows every architecture's numbers and compiles the
BPF program); this module only calls it. Why through ctypes rather than a binding package: the
executor embedded in task files may use the standard library only, and libseccomp's own Python
binding is not on PyPI (Debian ships it for its own interpreter only). So the five functions used
are declared here, from `seccomp.h`.

A filter is permanent and inherited by every child; stacking another one can only refuse more.
Refused calls fail with EPERM (ENOSYS for `clone3`, so that the C library falls back to `clone`,
whose flags the filter can read), so code under test sees an ordinary error, not a killed process.
"""

from __future__ import annotations

import ctypes
import errno
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfinementError
from .privileges import set_no_new_privs

LIBRARY_NAMES = ("libseccomp.so.2", "libseccomp.so")
ACT_ALLOW = 0x7FFF0000
_ACT_ERRNO = 0x00050000
_CMP_EQ, _CMP_MASKED_EQ = 4, 7
_ATTR_CTL_OPTIMIZE = 8  # SCMP_FLTATR_CTL_OPTIMIZE (libseccomp 2.5); older versions refuse it and keep a list
_NSCALL_ERROR = -1  # what seccomp_syscall_resolve_name returns for a name this libseccomp does not know

NAMESPACE_FLAGS = {
    "CLONE_NEWTIME": 0x00000080,
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
MADV_COLD, MADV_PAGEOUT = 20, 21
POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE = 4, 5
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
RWF_NOWAIT = 0x00000008

# Each group is refused as a whole; names this libseccomp does not know are reported, not guessed.
DENIED_GROUPS: dict[str, tuple[str, ...]] = {
    "tracing": ("ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp", "perf_event_open"),
    "mounts": (
        "mount",
        "umount2",
        "pivot_root",
        "chroot",
        "move_mount",
        "open_tree",
        "fsopen",
        "fsconfig",
        "fsmount",
        "fspick",
        "mount_setattr",
    ),
    "kernel": (
        "bpf",
        "userfaultfd",
        "io_uring_setup",
        "io_uring_enter",
        "io_uring_register",
        "keyctl",
        "add_key",
        "request_key",
        "personality",
        "kexec_load",
        "kexec_file_load",
        "init_module",
        "finit_module",
        "delete_module",
        "reboot",
        "swapon",
        "swapoff",
        "acct",
        "syslog",
        "iopl",
        "ioperm",
        "quotactl",
        "quotactl_fd",
        "lookup_dcookie",
        "vhangup",
        "uselib",
        "name_to_handle_at",
        "open_by_handle_at",
        "fanotify_init",
        "sethostname",
        "setdomainname",
        "settimeofday",
        "clock_settime",
        "clock_adjtime",
        "adjtimex",
    ),
    "sysv_ipc": (
        "msgget",
        "msgsnd",
        "msgrcv",
        "msgctl",
        "semget",
        "semop",
        "semtimedop",
        "semctl",
        "shmget",
        "shmat",
        "shmdt",
        "shmctl",
        "mq_open",
        "mq_unlink",
        "mq_timedsend",
        "mq_timedreceive",
        "mq_notify",
        "mq_getsetattr",
    ),
    "page_cache": ("mincore", "cachestat", "fadvise64", "readahead"),
    # Around an executor that warms the page cache itself: seeing the cache and evicting from it only.
    "page_cache_eviction": ("mincore", "cachestat"),
    "namespaces": ("unshare", "setns"),
    "exec": ("execve", "execveat"),
}


@dataclass(frozen=True)
class Profile:
    """Which groups to refuse. `namespaces` also refuses `clone` with any namespace flag and `clone3`."""

    groups: tuple[str, ...]

    @property
    def refuses_namespaces(self) -> bool:
        return "namespaces" in self.groups


# Around an executor that starts interpreters and, for the versions that make their own, namespaces:
OUTER = Profile(("tracing", "mounts", "kernel", "sysv_ipc", "page_cache_eviction", "namespaces"))
OUTER_WITH_NESTED_NAMESPACES = Profile(("tracing", "kernel", "sysv_ipc", "page_cache_eviction"))
# Around model-written test code itself: nothing to start, nothing to mount.
INNER = Profile(("tracing", "mounts", "kernel", "sysv_ipc", "page_cache", "namespaces", "exec"))


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


@dataclass
class Applied:
    """What the filter refused, for the row that records the layers."""

    groups: list[str]
    refused: int = 0
    unknown: list[str] = field(default_factory=list)  # names this libseccomp cannot resolve here

    def as_dict(self) -> dict[str, Any]:
        return {"groups": list(self.groups), "refused_calls": self.refused, "unknown": list(self.unknown)}


def _library() -> Any:
    lib = None
    for name in LIBRARY_NAMES:  # by soname: ctypes.util.find_library would start a compiler or ldconfig
        try:
            lib = ctypes.CDLL(name, use_errno=True)
            break
        except OSError:
            continue
    if lib is None:
        raise ConfinementError(
            "seccomp", "libseccomp is not installed (libseccomp.so.2); on Debian or Ubuntu: apt-get install libseccomp2"
        )
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    return lib


def available() -> str | None:
    """None when a filter can be built here, else why not."""
    try:
        _library()
    except ConfinementError as exc:
        return exc.detail
    return None


def _errno_action(number: int) -> int:
    return _ACT_ERRNO | (number & 0xFFFF)


class _Builder:
    def __init__(self, lib: Any, context: int, applied: Applied) -> None:
        self.lib, self.context, self.applied = lib, context, applied

    def number(self, name: str) -> int | None:
        found = int(self.lib.seccomp_syscall_resolve_name(name.encode("ascii")))
        if found == _NSCALL_ERROR or found < 0:
            self.applied.unknown.append(name)
            return None
        return found

    def refuse(self, name: str, action: int, conditions: Iterable[tuple[int, int, int, int]] = ()) -> None:
        number = self.number(name)
        if number is None:
            return
        cmps = [_ArgCmp(arg, op, a, b) for arg, op, a, b in conditions]
        array = (_ArgCmp * max(len(cmps), 1))(*cmps)
        result = self.lib.seccomp_rule_add_array(self.context, action, number, len(cmps), array)
        if result != 0:
            raise ConfinementError("seccomp", f"rule for {name}: {os.strerror(-result)}")
        self.applied.refused += 1


@dataclass(frozen=True)
class Compiled:
    """A filter compiled once (its BPF program) and what it refuses; `load` it in as many processes as needed."""

    program: bytes
    applied: Applied


def compile_filter(profile: Profile) -> Compiled:
    """The BPF program libseccomp builds for `profile` (a binary tree over the call numbers, where it can)."""
    lib = _library()
    context = lib.seccomp_init(ACT_ALLOW)
    if not context:
        raise ConfinementError("seccomp", "seccomp_init failed")
    applied = Applied(list(profile.groups))
    try:
        lib.seccomp_attr_set(ctypes.c_void_p(context), _ATTR_CTL_OPTIMIZE, ctypes.c_uint32(2))
        build = _Builder(lib, context, applied)
        eperm = _errno_action(errno.EPERM)
        for group in profile.groups:
            for name in DENIED_GROUPS[group]:
                build.refuse(name, eperm)
        if profile.refuses_namespaces:
            for flag in NAMESPACE_FLAGS.values():
                build.refuse("clone", eperm, [(0, _CMP_MASKED_EQ, flag, flag)])
            build.refuse("clone3", _errno_action(errno.ENOSYS))
        if "page_cache" in profile.groups or "page_cache_eviction" in profile.groups:
            for advice in (MADV_COLD, MADV_PAGEOUT):
                build.refuse("madvise", eperm, [(2, _CMP_EQ, advice, 0)])
            for name in ("preadv2", "pwritev2"):
                build.refuse(name, eperm, [(5, _CMP_MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT)])
        if "page_cache_eviction" in profile.groups:
            for advice in (POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE):
                build.refuse("fadvise64", eperm, [(3, _CMP_EQ, advice, 0)])
        read_end, write_end = os.pipe()
        try:
            result = lib.seccomp_export_bpf(ctypes.c_void_p(context), write_end)
            os.close(write_end)
            write_end = -1
            if result != 0:
                raise ConfinementError("seccomp", f"seccomp_export_bpf: {os.strerror(-result)}")
            chunks = []
            while chunk := os.read(read_end, 1 << 16):
                chunks.append(chunk)
        finally:
            os.close(read_end)
            if write_end >= 0:
                os.close(write_end)
    finally:
        lib.seccomp_release(context)
    return Compiled(b"".join(chunks), applied)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def load(compiled: Compiled) -> Applied:
    """Load a compiled filter into this process for good (no_new_privs first, as the kernel requires)."""
    set_no_new_privs()
    program = ctypes.create_string_buffer(compiled.program, len(compiled.program))
    fprog = _SockFprog(len(compiled.program) // 8, ctypes.addressof(program))
    libc = ctypes.CDLL(None, use_errno=True)
    result = libc.prctl(_PR_SET_SECCOMP, ctypes.c_ulong(_SECCOMP_MODE_FILTER), ctypes.byref(fprog), 0, 0)
    if result != 0:
        raise ConfinementError("seccomp", f"load: {os.strerror(ctypes.get_errno())}")
    return compiled.applied


def install(profile: Profile) -> Applied:
    """Compile the filter for `profile` and load it into this process."""
    return load(compile_filter(profile))


def filter_mode() -> int:
    """The seccomp mode of this process from /proc/self/status (2: a filter is loaded)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Seccomp:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0
