"""Routes that raise no audit event, closed by replacing them before any test code runs.

`os.mkfifo`, `os.mknod`, `_posixsubprocess.fork_exec`, `os.setsid`, `signal.pidfd_send_signal`,
thread creation, Python signal handlers and a few more raise no audit event in CPython 3.11, so the
hook in `guard.py` never sees them. The server finds, once, every module namespace that holds one
of these functions (`plan`); each version process then replaces them all with a function that only
refuses (`apply`). A refusing function holds nothing but a name, so test code that reaches it learns
nothing and gains nothing. The originals cannot be fetched back: `gc` searches are refused by the
hook, the import machinery cannot rebuild a built-in module (`_imp.create_builtin` and
`exec_builtin` are replaced too, after the server imported every built-in module once), and an
extension module is only ever re-created through an audited import.

Threads and Python-level signal handlers are refused because they run test code at moments the
harness does not choose (between the moment a call converts its path and the moment the hook checks
it); `gc.enable` is refused because the version process runs with the cyclic collector off, for
the same reason and to keep fork pages shared.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

from .guard import SandboxViolation

_PROCESS_AND_FILES = (
    "mkfifo",
    "mknod",
    "chroot",
    "setsid",
    "setpgid",
    "setpgrp",
    "setuid",
    "setgid",
    "seteuid",
    "setegid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setgroups",
    "initgroups",
    "pidfd_open",
    "login_tty",
    "unshare",
    "setns",
    "nice",
    "setpriority",
    "sched_setscheduler",
    "sched_setparam",
)
DENIED: dict[str, tuple[str, ...]] = {
    "posix": _PROCESS_AND_FILES,
    "os": _PROCESS_AND_FILES,
    "_posixsubprocess": ("fork_exec",),
    "subprocess": ("_fork_exec",),
    "_signal": ("signal", "pidfd_send_signal", "set_wakeup_fd", "siginterrupt"),
    "signal": ("signal", "pidfd_send_signal", "set_wakeup_fd", "siginterrupt"),
    "_thread": ("start_new_thread", "start_new", "start_joinable_thread"),
    "threading": ("_start_new_thread", "_start_joinable_thread"),
    "_imp": ("create_builtin", "exec_builtin"),
    "gc": ("enable",),
}
# (namespace, name, refusal): a plain list of dict slots, computed once in the server.
Plan = list[tuple[dict[str, Any], str, Callable[..., Any]]]


def _refusal(qualified: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise SandboxViolation(f"sandbox: {qualified} is not allowed in tests")

    refuse.__name__ = refuse.__qualname__ = qualified.rsplit(".", 1)[-1]
    return refuse


def import_builtins() -> None:
    """Import every built-in module now, so no test ever needs `_imp.create_builtin`."""
    for name in sys.builtin_module_names:
        if name not in sys.modules:
            importlib.import_module(name)


def plan() -> Plan:
    """Every module namespace slot that holds a function to refuse (call after all imports)."""
    import subprocess  # noqa: F401  (loaded now, so its alias of fork_exec is found)

    targets: dict[int, str] = {}
    for module_name, names in DENIED.items():
        module = sys.modules.get(module_name)
        for name in names:
            function = getattr(module, name, None) if module is not None else None
            if function is not None and callable(function):
                targets[id(function)] = f"{module_name}.{name}"
    slots: Plan = []
    refusals: dict[str, Callable[..., Any]] = {}
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for key, value in list(namespace.items()):
            qualified = targets.get(id(value))
            if qualified is not None and callable(value):
                refusal = refusals.setdefault(qualified, _refusal(qualified))
                slots.append((namespace, key, refusal))
    return slots


def apply(slots: Plan) -> int:
    """Put the refusals in place (in the version process, before the test file is imported)."""
    for namespace, key, refusal in slots:
        namespace[key] = refusal
    return len(slots)
