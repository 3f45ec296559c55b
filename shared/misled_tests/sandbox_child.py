"""The program that runs inside the sandbox: one pytest session per test file, one fork per item.

`sandbox.py` starts this file as a script (`python -s -P sandbox_child.py`), inside fresh
network and PID namespaces where the machine allows them, and writes a JSON configuration to
its stdin: the versions to run (a working directory each), the per-item timeout, the limits,
an optional list of node ids to run alone, and a random nonce. The nonce arrives only on
stdin (not in argv, the environment or a file), so test code cannot read it from anywhere it
could reasonably look.

For each version a child process sets resource limits, installs a permanent audit hook
(no sockets, no new processes, no signals to others, no ctypes, no writes outside the working
directory, no raising of limits), and runs `pytest.main`. Our plugin replaces the test loop:
each item runs in a fresh fork with its own timeout, and the test function is called through
our wrapper, which records whether it returned normally. Only then does the version process
write a result line carrying the nonce. Everything else (a dead process, `os._exit(0)`,
`sys.exit(0)`, a patched pytest, a deleted or truncated result file) leaves no such line, and
the parent counts a missing line as "no pass".

The threat model is accidental or naive hostility from model-written tests; a test that
deliberately searches this process's memory for the nonce is out of scope (see sandbox.py).
Only the standard library at module level: pytest is imported inside `main`.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import signal
import sys
import time
from typing import Any

GUARD_STATE: dict[str, Any] = {"active": False, "workdir": "/nonexistent"}
_BLOCKED_EVENTS = (
    "socket.",
    "subprocess.Popen",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "pty.",
    "os.kill",
    "os.killpg",
    "signal.pthread_kill",
    "ctypes.",
    "resource.setrlimit",
    "resource.prlimit",
    "os.setuid",
    "os.chroot",
    "webbrowser.open",
)
_PATH_EVENTS = (
    "os.remove",
    "os.rename",
    "os.rmdir",
    "os.mkdir",
    "os.symlink",
    "os.link",
    "os.truncate",
    "os.chmod",
    "os.chown",
    "os.utime",
    "shutil.rmtree",
)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class SandboxViolation(PermissionError):
    """Raised by the audit hook when test code does something the sandbox forbids."""


def _inside_workdir(path: Any) -> bool:
    if isinstance(path, int):
        return True  # an already-open descriptor
    try:
        text = os.fsdecode(path)
    except TypeError:
        return False
    if text == os.devnull:
        return True
    real = os.path.realpath(text)
    root = GUARD_STATE["workdir"]
    return real == root or real.startswith(root + os.sep)


def _is_write(args: tuple[Any, ...]) -> bool:
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 else 0
    if isinstance(mode, str) and any(letter in mode for letter in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """Permanent once added (PEP 578): test code can trip it but not remove it."""
    if not GUARD_STATE["active"]:
        return
    if event.startswith(_BLOCKED_EVENTS):
        raise SandboxViolation(f"sandbox: {event} is not allowed in tests")
    if event == "open" and args and _is_write(args) and not _inside_workdir(args[0]):
        raise SandboxViolation(f"sandbox: writing {args[0]!r} outside the working directory")
    if event in _PATH_EVENTS and args and not _inside_workdir(args[0]):
        raise SandboxViolation(f"sandbox: {event} on {args[0]!r} outside the working directory")
    if event == "os.rename" and len(args) > 1 and not _inside_workdir(args[1]):
        raise SandboxViolation(f"sandbox: renaming to {args[1]!r} outside the working directory")


def _set_limits(limits: dict[str, int]) -> None:
    for name, value in (
        ("RLIMIT_AS", limits["memory_bytes"]),
        ("RLIMIT_FSIZE", limits["file_size_bytes"]),
        ("RLIMIT_CORE", 0),
        ("RLIMIT_NOFILE", 256),
    ):
        resource.setrlimit(getattr(resource, name), (value, value))


def _cap_processes(extra: int) -> None:
    """Bound new processes to `extra` above what runs now (root ignores this; the audit hook does not)."""
    running = sum(1 for entry in os.listdir("/proc") if entry.isdigit())
    resource.setrlimit(resource.RLIMIT_NPROC, (running + extra, running + extra))


class _Recorder:
    """Writes nonce-stamped result lines; the only object that knows the nonce."""

    def __init__(self, fd: int, nonce: str, job: int, version: str) -> None:
        self._fd = fd
        self._nonce = nonce
        self.job = job
        self.version = version

    def write(self, record: dict[str, Any]) -> None:
        record = {**record, "nonce": self._nonce, "job": self.job, "version": self.version}
        os.write(self._fd, (json.dumps(record) + "\n").encode("utf-8"))


def _short(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _wait_with_timeout(pid: int, timeout_s: float) -> tuple[bool, int]:
    """(finished, wait status); kills the item's process group when it runs past the limit."""
    deadline = time.monotonic() + timeout_s
    pidfd = -1
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = -1
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return True, status
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            if pidfd >= 0:
                select.select([pidfd], [], [], remaining)
            else:
                time.sleep(min(0.002, remaining))
    finally:
        if pidfd >= 0:
            os.close(pidfd)
    for target in (-pid, pid):
        with contextlib.suppress(OSError):
            os.kill(target, signal.SIGKILL)
    os.waitpid(pid, 0)
    return False, -1


class _Plugin:
    """Replaces pytest's test loop: each selected item in its own fork, judged by our own wrapper."""

    def __init__(self, recorder: _Recorder, config: dict[str, Any], selected: list[str] | None) -> None:
        self.recorder: _Recorder | None = recorder
        self.timeout_s = float(config["item_timeout_s"])
        self.selected = set(selected) if selected is not None else None
        self.process_headroom = int(config["process_headroom"])
        self.evidence: dict[str, Any] = {}

    # -- collection -------------------------------------------------------------------
    def pytest_collectreport(self, report: Any) -> None:
        if report.failed and self.recorder is not None:
            self.recorder.write(
                {"type": "collection_error", "node": report.nodeid, "detail": _short(str(report.longrepr))}
            )

    def pytest_collection_finish(self, session: Any) -> None:
        GUARD_STATE["active"] = False  # the harness itself forks from here on
        assert self.recorder is not None
        self.recorder.write({"type": "collected", "items": [item.nodeid for item in session.items]})

    # -- running ----------------------------------------------------------------------
    def pytest_runtestloop(self, session: Any) -> bool:
        assert self.recorder is not None
        import gc

        gc.collect()
        gc.freeze()  # each fork then copies fewer pages
        for item in session.items:
            if self.selected is not None and item.nodeid not in self.selected:
                continue
            self.recorder.write({"type": "item", **self._run_isolated(item)})
        self.recorder.write({"type": "done"})
        return True

    def _run_isolated(self, item: Any) -> dict[str, Any]:
        read_end, write_end = os.pipe()
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:  # the item's own process
            os.close(read_end)
            self.recorder = None  # the nonce is not needed (and not kept) here
            try:
                os.setpgid(0, 0)
                _cap_processes(self.process_headroom)
                GUARD_STATE["active"] = True
                try:
                    result = self._run_in_this_process(item)
                except BaseException as exc:  # pytest.exit(), KeyboardInterrupt: never a pass
                    result = {"node": item.nodeid, "outcome": "error", "kind": f"interrupted: {type(exc).__name__}"}
                    result["detail"] = _short(str(exc))
                os.write(write_end, json.dumps(result).encode("utf-8"))
            finally:
                os._exit(0)
        os.close(write_end)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
        finished, status = _wait_with_timeout(pid, self.timeout_s)
        duration = round(time.monotonic() - started, 4)
        payload = _read_available(read_end)
        os.close(read_end)
        base = {"node": item.nodeid, "duration_s": duration}
        if not finished:
            return {**base, "outcome": "timeout", "kind": f"timeout after {self.timeout_s:g} s", "detail": ""}
        try:
            reported: Any = json.loads(payload.decode("utf-8")) if payload else None
        except ValueError:
            reported = None
        if not isinstance(reported, dict) or reported.get("node") != item.nodeid:
            return {**base, "outcome": "error", "kind": _describe_exit(status), "detail": ""}
        return {**base, **reported}

    def _run_in_this_process(self, item: Any) -> dict[str, Any]:
        from _pytest.runner import runtestprotocol

        self._wrap_unittest_method(item)
        reports = runtestprotocol(item, log=False, nextitem=None)
        by_phase = {report.when: report for report in reports}
        setup = by_phase.get("setup")
        node = item.nodeid
        if setup is None or setup.failed:
            detail = _short(str(setup.longrepr)) if setup is not None else "no setup report"
            return {"node": node, "outcome": "error", "kind": "setup error", "detail": detail}
        if setup.skipped:
            return {"node": node, "outcome": "error", "kind": "skipped", "detail": _short(str(setup.longrepr))}
        evidence = self.evidence.get(node)
        if evidence is None:
            return {"node": node, "outcome": "error", "kind": "test function never ran", "detail": ""}
        if evidence[0] == "raised":
            kind = evidence[1]
            outcome = "error" if kind in ("Skipped", "SkipTest", "XFailed") else "fail"
            return {"node": node, "outcome": outcome, "kind": kind, "detail": evidence[2]}
        teardown = by_phase.get("teardown")
        if teardown is None or not teardown.passed:
            detail = _short(str(teardown.longrepr)) if teardown is not None else "no teardown report"
            return {"node": node, "outcome": "error", "kind": "teardown error", "detail": detail}
        return {"node": node, "outcome": "pass", "kind": "returned", "detail": ""}

    def _call_and_record(self, node: str, function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        import inspect

        try:
            result = function(*args, **kwargs)
        except BaseException as exc:
            self.evidence[node] = ("raised", type(exc).__name__, _short(str(exc)))
            raise
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            self.evidence[node] = ("raised", "AsyncTestNotSupported", "async tests are not run")
            raise TypeError("async test functions are not supported")
        self.evidence[node] = ("returned",)
        return result

    def pytest_pyfunc_call(self, pyfuncitem: Any) -> bool:
        """Our copy of pytest's call: the evidence is recorded only when the function returns."""
        argnames = pyfuncitem._fixtureinfo.argnames
        kwargs = {name: pyfuncitem.funcargs[name] for name in argnames}
        self._call_and_record(pyfuncitem.nodeid, pyfuncitem.obj, (), kwargs)
        return True

    def _wrap_unittest_method(self, item: Any) -> None:
        """unittest.TestCase methods bypass pytest_pyfunc_call: wrap the method on its class."""
        from _pytest.unittest import TestCaseFunction

        if not isinstance(item, TestCaseFunction):
            return
        cls = item.parent.obj  # type: ignore[union-attr]
        original = getattr(cls, item.name)
        plugin, node = self, item.nodeid

        def wrapped(instance: Any, *args: Any, **kwargs: Any) -> Any:
            return plugin._call_and_record(node, original, (instance, *args), kwargs)

        setattr(cls, item.name, wrapped)
        item._obj = None  # pytest caches the bound method from collection time; re-bind to the wrapper


def _read_available(fd: int, limit: int = 1 << 16) -> bytes:
    os.set_blocking(fd, False)
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        try:
            chunk = os.read(fd, limit - size)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _describe_exit(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"crashed: killed by signal {os.WTERMSIG(status)}, no result"
    return f"crashed: exit status {os.waitstatus_to_exitcode(status)} without a result"


def _run_version(job: dict[str, Any], version: dict[str, Any], config: dict[str, Any], recorder: _Recorder) -> int:
    """Body of the per-version process: limits, guard, then pytest with our plugin."""
    import pytest

    workdir = version["workdir"]
    os.chdir(workdir)
    os.environ["HOME"] = os.environ["TMPDIR"] = os.path.join(workdir, "tmp")
    import tempfile

    tempfile.tempdir = None
    GUARD_STATE["workdir"] = os.path.realpath(workdir)
    _set_limits(config["limits"])
    plugin = _Plugin(recorder, config, job.get("select"))
    # Marking the hooks here keeps this module free of a module-level pytest import.
    first = pytest.hookimpl(tryfirst=True)
    first(_Plugin.pytest_pyfunc_call)
    first(_Plugin.pytest_runtestloop)
    sys.addaudithook(_audit)
    GUARD_STATE["active"] = True  # collection imports the test file: guarded too
    args = [
        job["test_file"],
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:faulthandler",
        "-p",
        "no:stepwise",
        "--assert=plain",
        "--capture=sys",
        "-c",
        os.path.join(workdir, "pytest.ini"),
        "--rootdir",
        workdir,
        "--basetemp",
        os.path.join(workdir, "pytest-tmp"),
    ]
    return int(pytest.main(args, plugins=[plugin]))


def main() -> int:
    config = json.loads(sys.stdin.readline())
    sys.stdin.close()
    import gc

    import pytest  # noqa: F401  (imported once here, inherited by every fork)

    for job in config["jobs"]:
        for version in job["versions"]:
            recorder = _Recorder(config["result_fd"], config["nonce"], job["job"], version["name"])
            gc.collect()
            gc.freeze()  # forks then copy fewer pages
            pid = os.fork()
            if pid == 0:
                code = 70
                try:
                    code = _run_version(job, version, config, recorder)
                finally:
                    os._exit(code)
            os.waitpid(pid, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
