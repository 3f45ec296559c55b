"""The host side of the jail: check the layers, start the worker inside, talk to it in JSON frames.

One `Jail` is one worker process, started once per batch (a rescore, a `classify` call) and reused
for every row: the cost of building the jail is paid once, not per item. A worker that dies or
stops answering is a `JailFailed` for the request in flight; the caller records it as a harness
error for that row and may start a new jail for the next.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import command
from .frames import FrameError, FrameReader, encode
from .policy import JailFailed, JailPolicy, JailRefused
from .probe import Availability, probe, simulated_missing

START_TIMEOUT_S = 60.0
EXIT_REFUSED = 77


def check_layers(policy: JailPolicy, found: Availability | None = None) -> list[str]:
    """The layers this machine lacks that the user accepted missing; JailRefused for any other."""
    available = probe() if found is None else found
    missing = available.missing()
    refused = [(layer, why) for layer, why in missing if layer not in policy.accept_missing]
    if available.root and (available.bwrap is None or available.user_namespace is not None):
        refused += [
            (layer, f"{why}; as root, the jail cannot drop to its unprivileged user without the read-only view")
            for layer, why in missing
            if layer in ("bubblewrap", "user_namespace") and layer in policy.accept_missing
        ]
    if refused:
        raise JailRefused(refused)
    return [layer for layer, _ in missing]


class Jail:
    """A worker process inside the jail; `request` sends one JSON request and returns its answer."""

    def __init__(self, policy: JailPolicy, *, inputs: Mapping[str, bytes] | None = None) -> None:
        self.policy = policy
        available = probe()
        accepted_missing = check_layers(policy, available)
        self.stage_dir: str | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        namespaces = available.bwrap is not None and available.user_namespace is None
        inner = command.worker_argv()
        argv = inner
        if namespaces:
            assert available.bwrap is not None
            if available.root:
                self.stage_dir = command.unique_stage_dir(Path(tempfile.gettempdir()))
            built = command.bwrap_command(available.bwrap, policy, inner, stage_dir=self.stage_dir)
            argv = built.argv
            if available.root and available.jail_ids is not None:
                spec = {
                    "stage": self.stage_dir,
                    "uid": available.jail_ids[0],
                    "gid": available.jail_ids[1],
                    "binds": [list(item) for item in built.staged],
                    "argv": argv,
                }
                import json

                argv = [sys.executable, "-E", "-s", "-P", "-m", "hallubench.tooling.jail.stage", json.dumps(spec)]
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.log,
                cwd="/",
                env=command.environment() if not namespaces else {"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                start_new_session=True,
            )
        except OSError as exc:
            self._cleanup()
            raise JailFailed(f"cannot start the jail ({argv[0]}): {exc}") from exc
        assert self.process.stdin is not None and self.process.stdout is not None
        self.reader = FrameReader(self.process.stdout.fileno())
        config = {
            "policy": policy.to_json(),
            "scratch": command.SCRATCH if namespaces else tempfile.gettempdir(),
            "dropped_ids": bool(available.root and namespaces),
            "simulated_missing": sorted(simulated_missing()),
            "inputs": {name: base64.b64encode(data).decode("ascii") for name, data in (inputs or {}).items()},
        }
        try:
            self._write(config)
            ready = self.reader.receive(time.monotonic() + START_TIMEOUT_S)
        except (OSError, FrameError) as exc:
            detail = self.log_tail()
            self.close()
            raise JailFailed(f"the jail did not start: {exc}; {detail}") from exc
        if ready.get("type") == "refused":
            self.close()
            raise JailRefused([(str(layer), str(why)) for layer, why in ready.get("missing", [])])
        if ready.get("type") != "ready":
            detail = str(ready.get("detail", "")) or self.log_tail()
            self.close()
            raise JailFailed(f"the jail did not start: {detail}")
        inside = dict(ready.get("layers") or {})
        self.layers: dict[str, Any] = {
            "jail": f"bubblewrap {available.bwrap_version}" if namespaces else "none (no bubblewrap)",
            "namespaces": (
                ["user", "mount", "pid", "ipc", "uts", *([] if policy.network == "host" else ["network"])]
                if namespaces
                else []
            ),
            "read_only_view": namespaces,
            "user_outside": (
                f"uid {available.jail_ids[0]}, gid {available.jail_ids[1]} (the jail user; hallubench runs as root)"
                if available.root and namespaces and available.jail_ids is not None
                else f"uid {os.geteuid()}, gid {os.getegid()} (the calling user)"
            ),
            "network": "host (TCP only to the model's port)" if policy.network == "host" else "none (loopback only)",
            **inside,
            "missing": sorted({*accepted_missing, *inside.get("missing", [])}),
        }

    def _write(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(encode(message))
        self.process.stdin.flush()

    def log_tail(self) -> str:
        try:
            self.log.seek(0)
            text = self.log.read()[-1500:].decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return f"jail log: {text}" if text else "the jail wrote no log"

    def request(self, message: dict[str, Any], timeout_s: float | None = None) -> dict[str, Any]:
        """Send one request, wait for its answer; JailFailed when the worker died or stalled."""
        with self._lock:
            ident = next(self._ids)
            deadline = None if timeout_s is None else time.monotonic() + timeout_s
            try:
                self._write({**message, "id": ident})
                answer = self.reader.receive(deadline)
            except (OSError, FrameError) as exc:
                raise JailFailed(f"the jail worker stopped answering: {exc}; {self.log_tail()}") from exc
            if answer.get("id") != ident:
                raise JailFailed("the jail worker answered out of turn")
            return answer

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        process = getattr(self, "process", None)
        if process is not None:
            with contextlib.suppress(OSError):
                if process.stdin is not None:
                    process.stdin.close()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        self._cleanup()

    def _cleanup(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.log.close()
        if self.stage_dir is not None:
            shutil.rmtree(self.stage_dir, ignore_errors=True)
            self.stage_dir = None

    def __enter__(self) -> Jail:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
