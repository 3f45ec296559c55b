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
import json
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


class _Launch:
    """The command line that starts `inner` in the jail (through the root staging step when needed)."""

    def __init__(self, policy: JailPolicy, inner: list[str]) -> None:
        self.policy = policy
        self.available = probe()
        self.accepted_missing = check_layers(policy, self.available)
        self.namespaces = self.available.bwrap is not None and self.available.user_namespace is None
        self.stage_dir: str | None = None
        self.argv = inner
        if self.namespaces:
            assert self.available.bwrap is not None
            if self.available.root:
                self.stage_dir = command.unique_stage_dir(Path(tempfile.gettempdir()))
            built = command.bwrap_command(self.available.bwrap, policy, inner, stage_dir=self.stage_dir)
            self.argv = built.argv
            if self.available.root and self.available.jail_ids is not None:
                spec = {
                    "stage": self.stage_dir,
                    "uid": self.available.jail_ids[0],
                    "gid": self.available.jail_ids[1],
                    "binds": [list(item) for item in built.staged],
                    "argv": self.argv,
                }
                self.argv = [sys.executable, "-E", "-s", "-P", "-m", "hallubench.tooling.jail.stage", json.dumps(spec)]

    @property
    def environment(self) -> dict[str, str]:
        """What the launched process starts with (bwrap sets the jail's own environment itself)."""
        return command.environment() if not self.namespaces else {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    def config(self, inputs: Mapping[str, bytes] | None, **extra: Any) -> dict[str, Any]:
        return {
            "policy": self.policy.to_json(),
            "scratch": command.SCRATCH if self.namespaces else tempfile.gettempdir(),
            "dropped_ids": bool(self.available.root and self.namespaces),
            "simulated_missing": sorted(simulated_missing()),
            "inputs": {name: base64.b64encode(data).decode("ascii") for name, data in (inputs or {}).items()},
            **extra,
        }

    def layers(self, ready: dict[str, Any], log_tail: str) -> dict[str, Any]:
        """The layers in force, from the worker's first answer; JailRefused or JailFailed when there is none."""
        if ready.get("type") == "refused":
            raise JailRefused([(str(layer), str(why)) for layer, why in ready.get("missing", [])])
        if ready.get("type") != "ready":
            raise JailFailed(f"the jail did not start: {str(ready.get('detail', '')) or log_tail}")
        inside = dict(ready.get("layers") or {})
        available, policy, namespaces = self.available, self.policy, self.namespaces
        return {
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
            "missing": sorted({*self.accepted_missing, *inside.get("missing", [])}),
        }

    def cleanup(self) -> None:
        if self.stage_dir is not None:
            shutil.rmtree(self.stage_dir, ignore_errors=True)
            self.stage_dir = None


class Jail:
    """A worker process inside the jail; `request` sends one JSON request and returns its answer."""

    def __init__(self, policy: JailPolicy, *, inputs: Mapping[str, bytes] | None = None) -> None:
        self.policy = policy
        self.launch = _Launch(policy, command.worker_argv())
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        argv = self.launch.argv
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.log,
                cwd="/",
                env=self.launch.environment,
                start_new_session=True,
            )
        except OSError as exc:
            self._cleanup()
            raise JailFailed(f"cannot start the jail ({argv[0]}): {exc}") from exc
        assert self.process.stdin is not None and self.process.stdout is not None
        self.reader = FrameReader(self.process.stdout.fileno())
        try:
            self._write(self.launch.config(inputs))
            ready = self.reader.receive(time.monotonic() + START_TIMEOUT_S)
            self.layers: dict[str, Any] = self.launch.layers(ready, self.log_tail())
        except (OSError, FrameError) as exc:
            detail = self.log_tail()
            self.close()
            raise JailFailed(f"the jail did not start: {exc}; {detail}") from exc
        except (JailRefused, JailFailed):
            self.close()
            raise

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
        self.launch.cleanup()

    def __enter__(self) -> Jail:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_in_jail(
    policy: JailPolicy,
    argv: list[str],
    *,
    cwd: str,
    environment: Mapping[str, str],
    stdout: Any,
    inputs: Mapping[str, bytes] | None = None,
) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    """Start `argv` in the jail (its stdout and stderr to `stdout`); the process and the layers it runs under.

    The jail's worker takes the layers, reports them, then executes `argv` with `environment` in `cwd`
    (JailRefused, JailFailed when it cannot). The caller waits for the process.
    """
    control_read, control_write = os.pipe()
    report_read, report_write = os.pipe()
    inner = [*command.worker_argv(), "--exec", str(control_read), str(report_write), *argv]
    launch = _Launch(policy, inner)
    try:
        process = subprocess.Popen(
            launch.argv,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.STDOUT,
            cwd="/",
            env=launch.environment,
            pass_fds=(control_read, report_write),
            start_new_session=True,
        )
    except OSError as exc:
        launch.cleanup()
        raise JailFailed(f"cannot start the jail ({launch.argv[0]}): {exc}") from exc
    finally:
        os.close(control_read)
        os.close(report_write)
    try:
        with os.fdopen(control_write, "wb") as control:
            control.write(encode(launch.config(inputs, environment=dict(environment), cwd=cwd)))
        ready = FrameReader(report_read).receive(time.monotonic() + START_TIMEOUT_S)
        layers = launch.layers(ready, "see the run's log")
    except (OSError, FrameError, JailRefused, JailFailed) as exc:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        if isinstance(exc, JailRefused | JailFailed):
            raise
        raise JailFailed(f"the jail did not start: {exc}") from exc
    finally:
        os.close(report_read)
        launch.cleanup()
    return process, layers
