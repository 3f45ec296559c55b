"""The executor's layers one at a time: path judgement, the lockdown, the tripwire's closure, the kernel layers."""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from hallubench.misled_tests.executor import guard, paths


def test_relative_paths_that_climb_are_refused_and_links_are_followed(tmp_path: Path) -> None:
    (tmp_path / "inside").mkdir()
    (tmp_path / "out").symlink_to("/usr")
    os.chdir(tmp_path)
    assert paths.resolve("../x") is None and paths.resolve("a/../../x") is None
    assert paths.resolve("inside/new/file") == str(tmp_path / "inside/new/file")
    assert paths.resolve(str(tmp_path / "out" / "lib")) == os.path.realpath("/usr/lib")
    assert paths.resolve(str(tmp_path / "missing" / ".." / "inside")) == str(tmp_path / "inside")
    assert paths.resolve("bad\x00name") is None


def test_only_path_objects_with_a_fixed_answer_are_read() -> None:
    class Shifty:
        def __fspath__(self) -> str:
            return "/tmp/x"

    class Sub(pathlib.PurePosixPath):
        pass

    assert paths.path_text("/a") == "/a" and paths.path_text(b"/b") == "/b"
    converted, fresh = pathlib.Path("/c"), pathlib.PurePosixPath("/d")
    os.fspath(converted)  # as every call that takes a path does before its audit event
    assert paths.path_text(converted) == "/c" and paths.path_text(fresh) is None  # nothing is asked of the object
    assert paths.path_text(Shifty()) is None and paths.path_text(Sub("/e")) is None and paths.path_text(3.5) is None


LOCKDOWN_PROBE = """
import json, os, subprocess, threading
from hallubench.misled_tests.executor import lockdown
lockdown.import_builtins()
slots = lockdown.plan()
refused = {}
lockdown.apply(slots)
for name, call in {
    "os.mkfifo": lambda: os.mkfifo("never"),
    "posix.mknod": lambda: __import__("posix").mknod("never"),
    "subprocess._fork_exec": lambda: subprocess._fork_exec(),
    "threading.Thread.start": lambda: threading.Thread(target=print).start(),
    "os.setsid": os.setsid,
    "_imp.create_builtin": lambda: __import__("_imp").create_builtin(None),
}.items():
    try:
        call()
        refused[name] = "ran"
    except PermissionError as exc:
        refused[name] = type(exc).__name__
print(json.dumps({"slots": len(slots), "refused": refused}))
"""


def test_the_lockdown_replaces_every_alias_of_an_unaudited_route(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOCKDOWN_PROBE], capture_output=True, text=True, cwd=tmp_path, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert set(found["refused"].values()) == {"SandboxViolation"}, found
    assert found["slots"] >= 40


KERNEL_PROBE = r"""
import ctypes, json, os, socket, sys
from hallubench.confine import landlock, namespaces, seccomp
from hallubench.misled_tests.executor import instance, server

marker, port, mount_point = sys.argv[1], int(sys.argv[2]), sys.argv[3]
view = server.LibraryView()
plan = instance.session_plan(mount_point, *view.root_binds())
read_end, write_end = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(read_end)
    instance.enter_session(plan, lambda: os.mkdir(instance.WORK))
    instance.enter_version(1 << 24)
    if os.fork() == 0:  # the first process of the new PID namespace: layers, then every escape, natively
        c = ctypes.CDLL(None, use_errno=True)
        landlock.restrict(landlock.Policy(read=("/",), write=(instance.WORK,), devices=namespaces.DEVICES))
        seccomp.install(seccomp.INNER)
        found = {"pid": os.getpid(), "uid": os.getuid()}

        def attempt(name, call):
            try:
                call()
                found[name] = "ok"
            except OSError as exc:
                found[name] = exc.strerror

        def native(result):
            if result < 0:
                number = ctypes.get_errno()
                raise OSError(number, os.strerror(number))

        attempt("write_work", lambda: open(instance.WORK + "/probe", "w").close())
        attempt("write_session", lambda: open(instance.SESSION + "/probe", "w").close())
        attempt("write_usr", lambda: open(view.stdlib + "/hb-probe", "w").close())
        attempt("write_marker", lambda: open(marker + "/hb-probe", "w").close())
        attempt("proc", lambda: os.listdir("/proc/self"))
        attempt("connect", lambda: socket.create_connection(("127.0.0.1", port), timeout=2).close())
        attempt("exec", lambda: os.execv("/bin/true", ["/bin/true"]))
        attempt("unshare", lambda: native(c.unshare(0x10000000)))
        attempt("msgget", lambda: native(c.msgget(0x4842, 0o1600)))
        attempt("mount", lambda: native(c.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, None)))
        attempt("ptrace", lambda: native(c.ptrace(16, 1, 0, 0)))
        inner_read, inner_write = os.pipe()
        if os.fork() == 0:  # a test process: a Landlock domain of its own, then a signal to its harness (PID 1)
            landlock.restrict(landlock.Policy(restrict_files=False, tcp_connect=None, tcp_bind=None, scope=True))
            try:
                os.kill(1, 0)
                os.write(inner_write, b"ok")
            except OSError as exc:
                os.write(inner_write, exc.strerror.encode())
            os._exit(0)
        os.wait()
        found["signal_harness"] = os.read(inner_read, 200).decode()
        os.write(write_end, json.dumps(found).encode())
        os._exit(0)
    os.wait()
    os._exit(0)
os.close(write_end)
data = os.read(read_end, 1 << 16)
os.waitpid(pid, 0)
print(data.decode())
"""


def test_the_kernel_layers_hold_without_the_tripwire(tmp_path: Path) -> None:
    """Not a line of the audit hook runs here: the probe calls libc directly, as native test code would."""
    marker = tmp_path / "marker"
    marker.mkdir()
    (tmp_path / "root").mkdir()
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    try:
        done = subprocess.run(
            [sys.executable, "-c", KERNEL_PROBE, str(marker), str(port), str(tmp_path / "root")],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        listener.close()
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["pid"] == 1 and found["uid"] == 1000
    assert found["write_work"] == "ok"
    assert found["write_usr"] in ("Read-only file system", "Permission denied")
    assert found["write_session"] in ("Read-only file system", "Permission denied")
    assert found["write_marker"] in ("No such file or directory", "Permission denied")
    assert found["proc"] == "No such file or directory"
    refused = ("Operation not permitted", "Permission denied")
    assert found["connect"] in (*refused, "Network is unreachable", "Connection refused")
    for name in ("exec", "unshare", "msgget", "mount", "ptrace", "signal_harness"):
        assert found[name] in refused, (name, found[name])
    assert list(marker.iterdir()) == []


def _names_looked_up(code: Any) -> dict[str, list[str]]:
    """Global (and builtin) names each function nested in `code` looks up when it runs."""
    import dis
    import types

    found: dict[str, list[str]] = {}
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names = sorted(
                {i.argval for i in dis.get_instructions(constant) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
            )
            if names:
                found[constant.co_name] = names
            found.update(_names_looked_up(constant))
    return found


def test_the_hook_looks_up_no_global_or_builtin_name_when_it_runs() -> None:
    """Test code reaches the harness's module globals (and the builtins) through frames: the hook must not use them."""
    from hallubench.misled_tests.executor.paths import make_path_tools

    assert _names_looked_up(guard.make_hook.__code__) == {}
    assert _names_looked_up(make_path_tools.__code__) == {}
