"""Which jail layers this machine offers, found once per process by trying them, never assumed."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

from ...confine import landlock, seccomp
from .policy import SIMULATE_ENV

JAIL_UID_ENV, JAIL_GID_ENV = "HALLUBENCH_JAIL_UID", "HALLUBENCH_JAIL_GID"
DEFAULT_JAIL_ID = 64833

# Run in a fresh interpreter as the jail's user: can that user make a user namespace here?
_USERNS_PROBE = """
import ctypes, json, os, sys
uid, gid = int(sys.argv[1]), int(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
if os.geteuid() == 0 and uid >= 0:
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
result = libc.unshare(0x10000000)
print(json.dumps(None if result == 0 else os.strerror(ctypes.get_errno())))
"""


@dataclass(frozen=True)
class Availability:
    """What this machine offers: each field is None when available, else why not."""

    bwrap: str | None  # the path of the bwrap binary
    bwrap_version: str
    user_namespace: str | None
    landlock_abi: int
    seccomp: str | None
    root: bool
    jail_ids: tuple[int, int] | None  # the ids the jail drops to when hallubench runs as root

    def missing(self) -> list[tuple[str, str]]:
        """(layer, why) for every layer this machine lacks."""
        found: list[tuple[str, str]] = []
        if self.bwrap is None:
            found.append(("bubblewrap", "the bwrap program is not installed"))
        if self.user_namespace is not None:
            found.append(("user_namespace", f"a user namespace cannot be made here ({self.user_namespace})"))
        if self.landlock_abi < 1:
            found.append(("landlock", "this kernel offers no Landlock"))
        if self.seccomp is not None:
            found.append(("seccomp", self.seccomp))
        return found


def simulated_missing() -> set[str]:
    """Layers to report missing though present (`HALLUBENCH_JAIL_SIMULATE_MISSING`): a diagnostic switch."""
    return {part.strip() for part in os.environ.get(SIMULATE_ENV, "").split(",") if part.strip()}


def jail_ids() -> tuple[int, int]:
    """The dedicated unprivileged ids a root hallubench drops to before it builds the jail."""
    try:
        uid = int(os.environ.get(JAIL_UID_ENV, DEFAULT_JAIL_ID))
        gid = int(os.environ.get(JAIL_GID_ENV, uid))
    except ValueError as exc:
        raise ValueError(f"{JAIL_UID_ENV}/{JAIL_GID_ENV} must be numbers: {exc}") from exc
    if uid <= 0 or gid <= 0:
        raise ValueError(f"{JAIL_UID_ENV}/{JAIL_GID_ENV} must name an unprivileged user (not 0)")
    return uid, gid


def _bwrap_version(path: str) -> str:
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unknown ({exc})"
    match = re.search(r"[\d.]+", done.stdout)
    return match.group(0) if match else done.stdout.strip()


def _user_namespace(ids: tuple[int, int] | None) -> str | None:
    uid, gid = ids if ids is not None else (-1, -1)
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _USERNS_PROBE, str(uid), str(gid)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            cwd="/",
        )
        found = json.loads(done.stdout) if done.returncode == 0 else done.stderr.strip()[-300:] or "probe failed"
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        return f"probe failed: {exc}"
    return None if found is None else str(found)


@functools.cache
def _probe(simulated: frozenset[str]) -> Availability:
    root = os.geteuid() == 0
    ids = jail_ids() if root else None
    bwrap = None if "bubblewrap" in simulated else shutil.which("bwrap")
    user_namespace = "simulated missing" if "user_namespace" in simulated else _user_namespace(ids)
    abi = 0 if "landlock" in simulated else landlock.abi_version()
    why_no_seccomp = "simulated missing" if "seccomp" in simulated else seccomp.available()
    return Availability(
        bwrap=bwrap,
        bwrap_version=_bwrap_version(bwrap) if bwrap else "",
        user_namespace=user_namespace,
        landlock_abi=abi,
        seccomp=why_no_seccomp,
        root=root,
        jail_ids=ids,
    )


def probe() -> Availability:
    """This machine's layers (cached; `HALLUBENCH_JAIL_SIMULATE_MISSING` hides some)."""
    return _probe(frozenset(simulated_missing()))
