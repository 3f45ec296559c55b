"""Run as root only: stage the jail's sources where the jail's user can reach them, drop to that user, exec bwrap.

Why this step exists: a root hallubench must not build the jail as root (root inside a user
namespace made by root is root outside), so it drops to a dedicated unprivileged uid first. That
user usually cannot reach the interpreter (pyenv lives under /root, mode 0700), and bubblewrap
resolves bind sources with the caller's rights. So, still root, this process enters a private
mount namespace, mounts a tmpfs on the staging folder and bind-mounts each source read-only (the
output folder read-write) to a numbered entry there; then it drops every id, group and capability
and executes bwrap, which binds the staged entries to their real paths inside the jail. The mounts
exist only in this process's namespace and disappear with it.

Usage: `python -m hallubench.tooling.jail.stage SPEC_JSON` where SPEC_JSON holds `stage`, `uid`,
`gid`, `binds` ([source, staged path, writable]) and `argv` (bwrap's).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from ...confine.errors import ConfinementError
from ...confine.namespaces import (
    CLONE_NEWNS,
    MS_BIND,
    MS_NODEV,
    MS_NOSUID,
    MS_PRIVATE,
    MS_RDONLY,
    MS_REC,
    MS_REMOUNT,
    Mounts,
    kept_flags,
    mount_points_under,
)
from ...confine.privileges import set_dumpable
from ..exit_codes import EXIT_STAGE_FAILED


def stage(spec: dict[str, Any]) -> None:
    mounts = Mounts()
    mounts.unshare(CLONE_NEWNS)
    mounts.mount(None, "/", None, MS_REC | MS_PRIVATE)
    root = str(spec["stage"])
    mounts.mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    for source, target, writable in spec["binds"]:
        if os.path.isdir(source):
            os.mkdir(target, 0o755)
        else:
            with open(target, "w", encoding="ascii"):
                pass
        mounts.mount(source, target, None, MS_BIND | MS_REC)
        if not writable:
            for point in mount_points_under(target):
                mounts.mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept_flags(point))
    uid, gid = int(spec["uid"]), int(spec["gid"])
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    set_dumpable()  # a change of ids clears it, and bwrap reads its own /proc/self entries


def main() -> int:
    try:
        spec = json.loads(sys.argv[1])
        stage(spec)
    except (ConfinementError, OSError, ValueError, KeyError, IndexError) as exc:
        print(f"hallubench jail: staging failed: {exc}", file=sys.stderr)
        return EXIT_STAGE_FAILED
    argv = [str(part) for part in spec["argv"]]
    try:
        os.execv(argv[0], argv)
    except OSError as exc:
        print(f"hallubench jail: cannot execute {argv[0]}: {exc}", file=sys.stderr)
    return EXIT_STAGE_FAILED


if __name__ == "__main__":
    sys.exit(main())
