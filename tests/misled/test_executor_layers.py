"""The v2 executor's layers one at a time: path judgement, the lockdown, call-site lines, and the OS layer alone."""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hallubench.misled.executor import guard, items, paths, version


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


def test_the_privileged_lines_are_unique_and_found() -> None:
    lines = {
        guard.marked_line(version.run_version.__code__, "_fork"),
        guard.marked_line(version.run_version.__code__, "_kill"),
        guard.marked_line(version.wait_item.__code__, "_kill"),
        guard.marked_line(items.run_item.__code__, "_claim"),
    }
    assert len(lines) == 4
    with pytest.raises(ValueError, match="expected one line"):
        guard.marked_line(items.run_item.__code__, "_send")  # used on several lines: not a call site


LOCKDOWN_PROBE = """
import json, os, subprocess, threading
from hallubench.misled.executor import lockdown
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


INSIDE_PROBE = """
import json, os, socket, sys
found = {"pid": os.getpid()}
for name, path in (("usr", "/usr/hb-probe"), ("marker", sys.argv[1] + "/hb-probe"), ("sandbox", "/sandbox/probe")):
    try:
        with open(path, "w") as handle:
            handle.write("x")
        found[name] = "written"
    except OSError as exc:
        found[name] = exc.strerror
found["visible"] = {path: os.path.exists(path) for path in sys.argv[1:-1]}
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[-1])), timeout=2).close()
    found["network"] = "connected"
except OSError as exc:
    found["network"] = exc.strerror
print(json.dumps(found), flush=True)
"""
OS_LAYER_PROBE = """
import json, os, sys
from hallubench.misled.executor import namespaces, server
layers = namespaces.enter({"run_root": sys.argv[1], "workdir_bytes": 1 << 24}, server.interpreter_dirs())
if layers["read_only_root"]:
    pid = os.fork()
    if pid == 0:
        os.execv(sys.executable, [sys.executable, "-c", sys.argv[2], *sys.argv[3:]])
    os.waitpid(pid, 0)
print(json.dumps({"layers": layers}))
"""


def test_the_os_layer_holds_without_the_python_guard(tmp_path: Path, repo_root: Path) -> None:
    """Not a line of the guard runs here: the probe writes, looks and connects as it likes."""
    marker = tmp_path / "marker"
    marker.mkdir()
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                OS_LAYER_PROBE,
                str(tmp_path / "run"),
                INSIDE_PROBE,
                str(marker),
                str(repo_root / "shared"),
                str(port),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        listener.close()
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    layers = lines[-1]["layers"]
    if not layers["read_only_root"]:
        pytest.skip(f"this machine does not allow the OS layer: {layers['failures']}")
    found = lines[0]
    assert found["pid"] == 1
    assert found["usr"] == "Read-only file system" and found["sandbox"] == "written"
    assert found["marker"] == "No such file or directory"
    assert found["visible"] == {str(marker): False, str(repo_root / "shared"): False}  # nor the harness's source
    assert found["network"] in ("Network is unreachable", "Connection refused", "Cannot assign requested address")
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
    from hallubench.misled.executor.paths import make_path_tools

    assert _names_looked_up(guard.make_hook.__code__) == {}
    assert _names_looked_up(make_path_tools.__code__) == {}
