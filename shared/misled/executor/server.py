"""The sandbox server: a warm interpreter that runs one program version of one test file at a time.

Design (v2), one session per batch of test files:

* **Isolation.** The host starts `python -s -P -c BOOT` with a scrubbed environment. Where the kernel
  allows it that process enters user, mount, network and PID namespaces, pivots into a read-only root
  and re-executes itself as this server, PID 1 of the new PID namespace (`namespaces.py`); elsewhere
  the server runs on the host with the Python guard alone. Either way the session's layers are sent
  to the host, and every row records them.
* **Indistinguishable versions.** Both versions of a file run in the same working path, made anew
  for each version (a new directory, not an emptied one), with identical file names, fixed
  timestamps and the same environment; the host sends one version at a time, in a random order,
  under an opaque id, so no process of a version ever holds the other version's text, name, results
  or position. Nothing a version writes survives it: the working directory is new, the pass
  directory is new, HOME and TMPDIR lie inside the working directory, and nothing else is writable.
* **Speed.** This process imports and configures pytest once and never imports a test file. Each
  version is a fork of it (`version.py`), which collects the file and forks once per item
  (`items.py`): no interpreter start, no pytest import, no plugin loading per file or item.
* **Outcomes.** An item passes only when the server itself finds the item's pass file, which the
  item process can create only on the line reached after its test function returned (`guard.py`,
  `items.py`). Failures, kinds and timings come from the version process, which the test file may
  have tampered with; they never make a pass. An item without any result (its version process died)
  is run again alone in a new version process; still nothing is an error, never a pass.
* **No survivors.** After each item (and each version) every other process of the PID namespace is
  killed; without a PID namespace the version process's group is, and no route to a new process is
  open to test code anyway.

This module, like every sandbox-side module, uses the standard library and its siblings only: the
host sends the sources and they are loaded under a private package name, outside `sys.modules`.
"""

from __future__ import annotations

import contextlib
import gc
import os
import secrets
import shutil
import signal
import sys
import sysconfig
import time
from typing import Any

from . import guard, lockdown, namespaces, version
from .items import run_item
from .wire import LineReader, WireError, send

TEST_FILE = "test_generated.py"
FIXED_TIME = 946684800  # 2000-01-01: every file of every version carries the same timestamps
RECORD_LIMIT = 1 << 22
MESSAGE_LIMIT = 1 << 28
COLLECTION_GRACE_S = 5.0
PROGRESS_EVERY_S = 1.0
PYTEST_SUPPORT = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "exceptiongroup", "tomli")


def library_roots() -> list[str]:
    """Folders test code may read (and the new root binds): the interpreter's own libraries and pytest's."""
    import importlib.util

    paths = sysconfig.get_paths()
    roots = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    for name in PYTEST_SUPPORT:
        spec = importlib.util.find_spec(name)
        origin = getattr(spec, "origin", None) if spec is not None else None
        if origin:
            folder = os.path.dirname(origin)
            roots.add(os.path.dirname(folder) if spec is not None and spec.submodule_search_locations else folder)
    return sorted({os.path.realpath(path) for path in roots if os.path.isdir(path)})


def interpreter_dirs() -> list[str]:
    """What the new root must hold for the interpreter to start again inside it."""
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return sorted({os.path.realpath(path) for path in prefixes} | set(library_roots()))


def main(payload: dict[str, Any]) -> int:
    """Entry from the bootstrap: serve inside the namespaces where the kernel allows them, else here."""
    if payload["config"].get("namespaces") and not payload.get("entered"):
        reason = _serve_contained(payload)
        payload = {**payload, "layers": namespaces.no_layers(reason)}
    elif "layers" not in payload:
        payload = {**payload, "layers": namespaces.no_layers("namespaces not requested")}
    return Server(payload).serve()


def _serve_contained(payload: dict[str, Any]) -> str:
    """Serve from a child that enters the namespaces and re-executes the interpreter; exit when it ends.

    The attempt is made in a child so that a half-made user namespace (allowed, but without an id
    map) leaves this process as it was: it then returns why, and the caller serves here instead.
    """
    import json

    status_read, status_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(status_read)
        layers = namespaces.enter(payload["config"], interpreter_dirs())
        if layers.get("unusable"):
            os.write(status_write, str(layers["unusable"]).encode("utf-8", "replace")[:2000])
            os._exit(75)
        os.close(status_write)  # end of file: the namespaces are in place, the server starts below
        entered = {**payload, "entered": True, "layers": layers}
        os._exit(namespaces.respawn(json.dumps(entered).encode("utf-8"), str(payload["boot"])))
    os.close(status_write)
    reason = os.read(status_read, 4096).decode("utf-8", "replace")
    os.close(status_read)
    if not reason:
        for fd in (0, 1):  # the server has them; holding them here would keep the host waiting
            os.close(fd)
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status))
    os.waitpid(pid, 0)
    return reason


def _empty(folder: str) -> None:
    """Remove everything inside `folder` (test code may have left odd permissions behind)."""

    def retry(function: Any, path: str, _info: Any) -> None:
        os.chmod(os.path.dirname(path), 0o700)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, 0o700)
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)

    os.chmod(folder, 0o755)
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, onerror=retry)
        else:
            os.unlink(path)


class Server:
    def __init__(self, payload: dict[str, Any]) -> None:
        config = payload["config"]
        self.config = config
        self.layers: dict[str, Any] = dict(payload["layers"])
        sandbox = str(self.layers.get("sandbox") or config["sandbox"])
        self.sandbox = sandbox
        self.work = sandbox + "/work"  # re-created for every version, at the same path
        self.pass_root = sandbox + "/pass"
        self.item_timeout_s = float(config["item_timeout_s"])
        self.pid_namespace = bool(self.layers.get("pid_namespace")) and os.getpid() == 1
        self.layers["pid_namespace"] = self.pid_namespace
        os.makedirs(self.work, exist_ok=True)
        os.makedirs(self.pass_root, exist_ok=True)
        self.layers["working_directory"] = self.work
        self.out = os.dup(1)  # the host's channel; stray prints go to the log from here on
        os.dup2(2, 1)
        self.reader = LineReader(0, MESSAGE_LIMIT)
        self.last_progress = 0.0
        self.environment = {
            "PATH": "/usr/bin:/bin",
            "HOME": self.work + "/tmp",
            "TMPDIR": self.work + "/tmp",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        }

    # -- start-up ------------------------------------------------------------------------
    def _prepare_pytest(self) -> str:
        os.chdir(self.work)
        ini = self.pass_root + "/pytest.ini"
        with open(ini, "w", encoding="ascii") as handle:
            handle.write("[pytest]\npython_files = test_*.py\n")
        import _pytest.config
        import _pytest.main
        import pytest

        self.collection_errors = version.CollectionErrors()
        args = [
            TEST_FILE,
            "-s",
            "--assert=plain",
            "-c",
            ini,
            "--rootdir",
            self.work,
            "--basetemp",
            self.work + "/.pytest-tmp",
        ]
        for plugin in ("cacheprovider", "faulthandler", "stepwise", "terminal", "pastebin", "junitxml"):
            args += ["-p", f"no:{plugin}"]
        config = _pytest.config._prepareconfig(args, plugins=[self.collection_errors])
        config._do_configure()
        self.session = _pytest.main.Session.from_config(config)
        config.hook.pytest_sessionstart(session=self.session)
        os.chdir(self.sandbox)  # the working directory itself is re-created for each version
        return str(pytest.__version__)

    def _site_lines(self) -> version.Lines:
        return version.Lines(
            fork=guard.marked_line(version.run_version.__code__, "_fork"),
            cleanup=guard.marked_line(version.run_version.__code__, "_kill"),
            kill=guard.marked_line(version.wait_item.__code__, "_kill"),
            claim=guard.marked_line(run_item.__code__, "_claim"),
        )

    def serve(self) -> int:
        pytest_version = self._prepare_pytest()
        self.lines = self._site_lines()
        lockdown.import_builtins()
        self.lockdown = lockdown.plan()
        if "_ctypes" in sys.modules:
            send(self.out, {"type": "fatal", "detail": "ctypes is loaded in the server; refusing to run tests"})
            return 70
        self.read_roots = tuple(library_roots())
        gc.collect()
        gc.freeze()  # forks then copy fewer pages
        self.layers.update(
            python_guard=True,
            locked_functions=len(self.lockdown),
            process_per_item=True,
            outcome_channel="pass file created by the item, read by the server",
        )
        send(
            self.out,
            {
                "type": "ready",
                "layers": self.layers,
                "pytest": pytest_version,
                "python": sys.version.split()[0],
            },
        )
        while True:
            message = self.reader.next_record(None)
            if message is None or message.get("type") != "version":
                return 0
            self._run(message)
            message = None  # the next version is forked without this one's files in any frame

    # -- one version ---------------------------------------------------------------------
    def _fill_work(self, message: dict[str, Any]) -> None:
        """A new working directory (a new inode: nothing set on the old one survives) with this version's files."""
        if os.path.lexists(self.work):
            _empty(self.work)
            os.rmdir(self.work)
        os.mkdir(self.work, 0o755)
        files = dict(message["files"])
        files[TEST_FILE] = message["test_source"]
        for name, text in files.items():
            path = os.path.join(self.work, name)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.utime(path, (FIXED_TIME, FIXED_TIME))
        os.mkdir(self.work + "/tmp")
        for folder in (self.work + "/tmp", self.work):
            os.utime(folder, (FIXED_TIME, FIXED_TIME))

    def _run(self, message: dict[str, Any]) -> None:
        select = message.get("select")
        wanted = tuple(str(node) for node in select) if isinstance(select, list) else None
        self._fill_work(message)
        first = self._version_process(wanted)
        if first["collected"] is None:
            detail = first["collection_error"] or "the version process gave no collection result"
            send(self.out, {"type": "collection_error", "detail": detail[:6000]})
        else:
            send(self.out, {"type": "collected", "items": first["collected"]})
            missing: list[str] = []
            for node in first["collected"]:
                if wanted is not None and node not in wanted:
                    continue
                item = first["items"].get(node)
                if item is None:
                    missing.append(node)
                else:
                    send(self.out, {"type": "item", **item})
            if missing:
                send(
                    self.out,
                    {
                        "type": "note",
                        "text": f"version process ended early ({first['ended']}); "
                        f"{len(missing)} item(s) were run again alone",
                    },
                )
            for node in missing:
                self._fill_work(message)
                alone = self._version_process((node,))
                item = alone["items"].get(node)
                if item is None:
                    why = alone["ended"] if alone["collected"] is not None else "not collected when run alone"
                    item = {
                        "node": node,
                        "outcome": "error",
                        "kind": f"crashed: no result even when run alone ({why})",
                        "detail": "",
                        "duration_s": 0.0,
                    }
                send(self.out, {"type": "item", **item, "rerun_alone": True})
        send(self.out, {"type": "version_done", "id": message.get("id")})

    def _version_process(self, wanted: tuple[str, ...] | None) -> dict[str, Any]:
        pass_dir = self.pass_root + "/" + secrets.token_hex(8)
        os.mkdir(pass_dir, 0o755)
        read_end, write_end = os.pipe()
        plan = version.VersionPlan(
            session=self.session,
            collection_errors=self.collection_errors,
            results_fd=write_end,
            work=self.work,
            test_file=TEST_FILE,
            select=wanted,
            item_timeout_s=self.item_timeout_s,
            memory_bytes=int(self.config["memory_bytes"]),
            file_size_bytes=int(self.config["file_size_bytes"]),
            environment=self.environment,
            rules=guard.Rules(
                work=os.path.realpath(self.work),
                read_roots=self.read_roots,
                readable_files=namespaces.DEVICES,
                pass_dir=pass_dir,
                may_kill_all=self.pid_namespace,
            ),
            lockdown=self.lockdown,
            lines=self.lines,
        )
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            version.run_version(plan)
        os.close(write_end)
        del plan
        send(self.out, {"type": "progress", "group": pid})  # the host ends this group too if it must end the session
        try:
            found = self._read_version(pid, read_end)
        finally:
            os.close(read_end)
            self._end_version(pid)
        items: dict[str, dict[str, Any]] = {}
        for index, node in enumerate(found["collected"] or []):
            record = found["records"].get(index)
            passed = os.path.isfile(f"{pass_dir}/{index}") and not os.path.islink(f"{pass_dir}/{index}")
            if passed:
                items[node] = {
                    "node": node,
                    "outcome": "pass",
                    "kind": "returned",
                    "detail": "",
                    "duration_s": float(record.get("duration_s", 0.0)) if record else 0.0,
                }
            elif record is not None:
                outcome = record.get("outcome")
                if outcome == "pass":
                    items[node] = {**record, "outcome": "error", "kind": "reported a pass without the pass file"}
                elif outcome in ("fail", "error", "timeout"):
                    items[node] = record
        shutil.rmtree(pass_dir, ignore_errors=True)
        return {**found, "items": items}

    def _read_version(self, pid: int, fd: int) -> dict[str, Any]:
        reader = LineReader(fd, RECORD_LIMIT)
        collected: list[str] | None = None
        collection_error: str | None = None
        records: dict[int, dict[str, Any]] = {}
        allowance = self.item_timeout_s + COLLECTION_GRACE_S  # importing the file is test code, like an item
        deadline = time.monotonic() + allowance
        ended = "exited"
        while True:
            try:
                record = reader.next_record(deadline)
            except WireError as exc:
                ended = f"broke the record format: {exc}"
                break
            if record is None:
                ended = "exited" if reader.eof else f"killed: no progress for {allowance:g} s"
                break
            kind = record.get("type")
            if kind == "collected" and collected is None and collection_error is None:
                nodes = record.get("items")
                if isinstance(nodes, list) and all(isinstance(node, str) for node in nodes):
                    collected = [node[:2000] for node in nodes[:100_000]]
            elif kind == "collection_error" and collected is None and collection_error is None:
                collection_error = str(record.get("detail", ""))[:6000]
            elif kind == "item" and collected is not None:
                index = record.get("index")
                if not isinstance(index, int) or not 0 <= index < len(collected) or index in records:
                    continue
                if record.get("node") == collected[index]:
                    records[index] = {
                        "node": collected[index],
                        "outcome": str(record.get("outcome")),
                        "kind": str(record.get("kind", ""))[:200],
                        "detail": str(record.get("detail", ""))[:400],
                        "duration_s": float(record["duration_s"])
                        if isinstance(record.get("duration_s"), int | float)
                        else 0.0,
                    }
                    send(self.out, {"type": "progress"})
            elif kind in ("done", "harness_error"):
                if kind == "harness_error":
                    ended = f"harness error: {str(record.get('detail', ''))[:300]}"
                break
            allowance = self.item_timeout_s + COLLECTION_GRACE_S
            deadline = time.monotonic() + allowance
        if collected is None and collection_error is None:
            collection_error = f"the version process ended during collection without a result ({ended})"
        return {"collected": collected, "collection_error": collection_error, "records": records, "ended": ended}

    def _end_version(self, pid: int) -> None:
        """No process of the version survives it."""
        if self.pid_namespace:
            with contextlib.suppress(ProcessLookupError):
                os.kill(-1, signal.SIGKILL)  # every other process of the namespace (the server is its init)
        else:
            for kill in (os.killpg, os.kill):
                with contextlib.suppress(OSError):
                    kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        while True:  # as PID 1 the server also reaps the orphans of the namespace
            try:
                reaped, _ = os.waitpid(-1, 0 if self.pid_namespace else os.WNOHANG)
            except ChildProcessError:
                return
            if reaped == 0:
                return
