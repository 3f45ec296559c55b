"""Run a command as an unprivileged user from a root test process, with the interpreter still reachable.

CI runs as root and its Python usually lives under /root (mode 0700), which another user cannot enter.
So the command starts in a private mount namespace where each such folder is covered by a tmpfs that
holds, bound read-only, only the paths the command needs (the interpreter, the virtual environment);
then every id drops to UNPRIVILEGED_UID and the command is executed. Nothing changes outside that
namespace. Standard library only (ctypes for `unshare` and `mount`).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

UNPRIVILEGED_UID = UNPRIVILEGED_GID = 64900

_LAUNCH = r"""
import ctypes, json, os, sys
spec = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
def check(result, what):
    if result != 0:
        raise SystemExit(f"{what}: {os.strerror(ctypes.get_errno())}")
check(libc.unshare(0x00020000), "unshare")
check(libc.mount(None, b"/", None, 16384 | (1 << 18), None), "private /")
for cover, keeps in spec["covers"]:
    fds = [(keep, os.open(keep, os.O_PATH)) for keep in keeps]
    check(libc.mount(b"tmpfs", cover.encode(), b"tmpfs", 0, b"mode=0755"), f"tmpfs {cover}")
    for keep, fd in fds:
        os.makedirs(keep, exist_ok=True)
        check(libc.mount(f"/proc/self/fd/{fd}".encode(), keep.encode(), None, 4096 | 16384, None), f"bind {keep}")
os.setgroups([])
os.setresgid(spec["gid"], spec["gid"], spec["gid"])
os.setresuid(spec["uid"], spec["uid"], spec["uid"])
os.execve(spec["argv"][0], spec["argv"], spec["env"])
"""


def _closed_ancestor(path: str) -> str | None:
    """The outermost folder above `path` that other users cannot enter, if any."""
    parts = Path(path).parts
    for depth in range(2, len(parts)):
        folder = str(Path(*parts[:depth]))
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return folder
    return None


def covers(paths: Sequence[str]) -> list[tuple[str, list[str]]]:
    """(folder to cover, paths to show inside it) for every needed path behind a closed folder."""
    found: dict[str, list[str]] = {}
    for path in {os.path.realpath(path) for path in paths}:
        closed = _closed_ancestor(path)
        if closed is not None:
            found.setdefault(closed, []).append(path)
    return sorted(found.items())


def run_unprivileged(
    argv: Sequence[str], *, env: Mapping[str, str], timeout: float = 600, needs: Sequence[str] = ()
) -> subprocess.CompletedProcess[str]:
    """`argv` as UNPRIVILEGED_UID; `needs`: extra paths the command must reach (the interpreter's are added)."""
    wanted = [sys.base_prefix, sys.prefix, *needs]
    spec = {
        "covers": covers(wanted),
        "uid": UNPRIVILEGED_UID,
        "gid": UNPRIVILEGED_GID,
        "argv": list(argv),
        "env": dict(env),
    }
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", _LAUNCH, json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
