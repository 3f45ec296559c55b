"""`support.processes` sees this test's own processes, orphans included, and nobody else's."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from support.processes import ProcessInfo, adopting_orphans, all_processes, descendants


def _sleeping(seconds: str) -> list[ProcessInfo]:
    return [p for p in all_processes() if p.cmdline == f"sleep\x00{seconds}\x00".encode() and p.state != "Z"]


def _first_sleeping(seconds: str) -> ProcessInfo:
    deadline = time.monotonic() + 5
    while not _sleeping(seconds):
        assert time.monotonic() < deadline, f"sleep {seconds} never started"
        time.sleep(0.02)
    return _sleeping(seconds)[0]


def test_a_foreign_process_is_not_counted_but_an_adopted_orphan_is() -> None:
    # Stands in for another checkout's hostile test: an orphan that is NOT this process's descendant
    # (orphaned before this process adopts orphans, so it went to init or some other subreaper).
    foreign_seconds, own_seconds = f"61.{os.getpid()}", f"62.{os.getpid()}"
    subprocess.run(["sh", "-c", f"setsid sleep {foreign_seconds} &"], check=True)
    foreign = _first_sleeping(foreign_seconds)
    try:
        with adopting_orphans():
            subprocess.run(["sh", "-c", f"sleep {own_seconds} &"], check=True)  # orphaned at once: adopted
            own = _first_sleeping(own_seconds)
            assert own.parent == os.getpid()
            assert own.pid in {p.pid for p in descendants()}
            assert foreign.pid not in {p.pid for p in descendants()}
            os.kill(own.pid, signal.SIGKILL)
            os.waitpid(own.pid, 0)
    finally:
        os.kill(foreign.pid, signal.SIGKILL)
