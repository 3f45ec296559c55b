"""The bubblewrap command line of a jail: which host paths it shows (read-only), and nothing else.

The view holds the system library folders, the interpreter's prefixes (its standard library, the
virtual environment and its packages) and hallubench's own package folder, all read-only; a
size-limited tmpfs at /tmp is the only writable place (plus the folders a policy names, such as a
run's output folder). The checkout beyond the package folder, the home directory, the data sets and
the run files are not there: what the worker needs from them comes over its pipe.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ...confine.namespaces import SYSTEM_DIRECTORIES, SYSTEM_FILES, outermost
from .policy import JailPolicy

SCRATCH = "/tmp"
NETWORK_FILES = (
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/gai.conf",
    "/etc/ssl",
    "/etc/ca-certificates",
)
HOSTNAME = "hallubench-jail"
WORKER_MODULE = "hallubench.tooling.jail.worker"
# The package folder is also shown here under its import name, first on the worker's path: the worker runs
# the very code its caller imported (a checkout on PYTHONPATH, say), not whatever the interpreter's site
# configuration would find.
CODE_ROOT = "/hallubench-code"


def package_folder() -> str:
    """The folder hallubench is imported from (the checkout's `shared/` for an editable install)."""
    here = os.path.dirname(os.path.abspath(__file__))  # <package>/tooling/jail
    return os.path.realpath(os.path.dirname(os.path.dirname(here)))


def interpreter_folders() -> list[str]:
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return [os.path.realpath(path) for path in prefixes]


def read_only_sources(policy: JailPolicy) -> list[str]:
    """Every host path the jail shows read-only, outermost first (a folder covers what lies inside it)."""
    system = [path for path in SYSTEM_DIRECTORIES if os.path.isdir(path) and not os.path.islink(path)]
    network = [path for path in NETWORK_FILES if os.path.exists(path)] if policy.network == "host" else []
    writable = {os.path.realpath(path) for path in policy.writable}
    chosen = outermost([*system, *SYSTEM_FILES, *interpreter_folders(), package_folder(), *network, *policy.readable])
    return [path for path in chosen if path not in writable]


def environment() -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": SCRATCH,
        "TMPDIR": SCRATCH,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }


def worker_argv() -> list[str]:
    """The worker, run by the very interpreter (virtual environment included) that runs hallubench."""
    start = (
        f"import sys, runpy; sys.path.insert(0, {CODE_ROOT!r}); "
        f"runpy.run_module({WORKER_MODULE!r}, run_name='__main__', alter_sys=True)"
    )
    return [sys.executable, "-E", "-s", "-P", "-c", start]


@dataclass(frozen=True)
class Command:
    """The bwrap command line, and for a root caller the sources it must see staged (see stage.py)."""

    argv: list[str]
    staged: list[tuple[str, str, bool]]  # (host source, the staged path bwrap binds it from, writable)


def bwrap_command(bwrap: str, policy: JailPolicy, inner: list[str], *, stage_dir: str | None) -> Command:
    """bwrap's argv. `stage_dir`: for a root caller, sources are bound from staged copies under it."""
    args = [bwrap, "--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
    if policy.network != "host":
        args.append("--unshare-net")
    if not policy.nested_namespaces:
        args.append("--disable-userns")
    args += ["--die-with-parent", "--new-session", "--hostname", HOSTNAME, "--clearenv"]
    for name, value in environment().items():
        args += ["--setenv", name, value]
    staged: list[tuple[str, str, bool]] = []

    def source(path: str, writable: bool = False) -> str:
        if stage_dir is None:
            return path
        staged.append((path, f"{stage_dir}/{len(staged)}", writable))
        return staged[-1][1]

    # The scratch tmpfs first: an interpreter or checkout that lives under /tmp (a clone made there) is then
    # bound read-only on top of it, instead of being hidden by it.
    args += ["--size", str(policy.scratch_bytes), "--tmpfs", SCRATCH]
    for path in read_only_sources(policy):
        args += ["--ro-bind", source(path), path]
    args += ["--ro-bind", source(package_folder()), f"{CODE_ROOT}/hallubench"]
    for path in SYSTEM_DIRECTORIES:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
    args += ["--dev", "/dev", "--proc", "/proc"]
    for path in policy.writable:
        real = os.path.realpath(path)
        args += ["--bind", source(real, writable=True), real]
    args += ["--chdir", SCRATCH, "--", *inner]
    return Command(args, staged)


def unique_stage_dir(base: Path) -> str:
    """A fresh, empty folder the jail user may enter, under `base` (created by the root caller)."""
    import tempfile

    folder = tempfile.mkdtemp(prefix="hallubench-jail-stage-", dir=str(base))
    os.chmod(folder, 0o755)
    return folder
