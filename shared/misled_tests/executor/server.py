"""The sandbox server: a warm interpreter that runs one program version of one test file at a time.

Design (v3), one session per batch of test files:

* **Isolation by the kernel.** Each version runs in an instance of its own (`version.py`): fresh
  user, mount, IPC, network, UTS and PID namespaces where the kernel allows them, a new read-only
  root with a brand-new tmpfs at the working path, Landlock and a seccomp filter on every process
  that runs test code, and a harness process that never runs test code. What a session could not
  get is recorded in every row (`layers`). The audit hook in each test process is a tripwire.
* **Indistinguishable versions.** Both versions of a file run at the same path, with the same file
  names, timestamps, environment and view of the libraries; the host sends one version at a time,
  in a random order, under an opaque id. The library files a test may read were all read once when
  the server started, so whether one is in the page cache says nothing about which version ran
  before (and the calls that would show or change it are refused).
* **Speed.** This process imports and configures pytest once and never imports a test file. Each
  version is a fork of it; each test process is a fork of the version's harness: no interpreter
  start, no pytest import, no plugin loading per file or item.
* **No survivors.** A version's processes live in its PID namespace, which ends with it; without
  one, each test process's group is killed when it ends.

This module, like every sandbox-side module, uses the standard library and its siblings only: the
host sends the sources and they are loaded under a private package name, outside `sys.modules`.
"""

from __future__ import annotations

import contextlib
import gc
import os
import re
import shutil
import signal
import sys
import sysconfig
import tempfile
import time
from typing import Any

from ...confine import landlock, seccomp
from ...confine.errors import ConfinementError
from . import instance, lockdown, version
from .items import CollectionErrors
from .wire import LineReader, WireError, send

TEST_FILE = "test_generated.py"
TB_STYLE = "no"  # pytest's short crash line is all a verdict needs; formatting tracebacks cost 10 ms an item
RECORD_LIMIT = 1 << 22
MESSAGE_LIMIT = 1 << 28
COLLECTION_GRACE_S = 10.0
# What test code may import beyond the standard library, by distribution, where installed, with what each
# requires: pytest, numpy (HumanEvalPack's own harness imports it) and hypothesis (model-written tests use it).
DISTRIBUTIONS = ("pytest", "numpy", "hypothesis")
HIDDEN_STDLIB = ("site-packages", "test")  # inside the standard library folder, not part of it for tests
WARM_LIMIT_BYTES = 1 << 30


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed() -> dict[str, str]:
    """Every distribution's .dist-info folder on the interpreter's site-packages, by normalized name."""
    paths = sysconfig.get_paths()
    found: dict[str, str] = {}
    for site in dict.fromkeys(os.path.realpath(paths[key]) for key in ("purelib", "platlib") if key in paths):
        try:
            entries = os.listdir(site)
        except OSError:
            continue
        for entry in sorted(entries):
            if entry.endswith(".dist-info"):
                found.setdefault(_normalized(entry[: -len(".dist-info")].rsplit("-", 1)[0]), f"{site}/{entry}")
    return found


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _distribution_paths(names: tuple[str, ...]) -> list[str]:
    """The top-level files and folders each installed distribution (and what it requires) put in site-packages.

    Read from the distributions' own RECORD and METADATA files (importlib.metadata finds the same, at ten
    times the cost: this runs once per session).
    """
    installed = _installed()
    found: set[str] = set()
    pending, seen = list(names), set()
    while pending:
        key = _normalized(pending.pop())
        folder = installed.get(key)
        if key in seen or folder is None:
            continue
        seen.add(key)
        site = os.path.dirname(folder)
        for line in _read(folder + "/METADATA").splitlines():
            if line.startswith("Requires-Dist:") and "extra ==" not in line:  # what it always needs
                pending.append(re.split(r"[\s;<>=!~\[(]", line.split(":", 1)[1].strip(), maxsplit=1)[0])
        for line in _read(folder + "/RECORD").splitlines():
            top = line.split(",", 1)[0].split("/", 1)[0]
            if not top or top == ".." or top.endswith((".dist-info", ".egg-info")) or top == "__pycache__":
                continue
            path = os.path.realpath(f"{site}/{top}")
            if os.path.exists(path):
                found.add(path)
    return sorted(found)


class LibraryView:
    """What test code may read: the standard library (without its site-packages and tests), pytest, numpy."""

    def __init__(self, packages: list[str] | None = None) -> None:
        """`packages`: the distributions' paths found before (by the host: finding them takes 0.1 s)."""
        stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
        self.stdlib = stdlib
        self.packages = _distribution_paths(DISTRIBUTIONS) if packages is None else list(packages)
        self.hidden = [f"{stdlib}/{name}" for name in HIDDEN_STDLIB if os.path.isdir(f"{stdlib}/{name}")]
        entries = []
        for name in sorted(os.listdir(stdlib)):
            path = f"{stdlib}/{name}"
            if path not in self.hidden:
                entries.append(path)
        self.read_roots = tuple(sorted({*entries, *self.packages}))
        # The folders holding those packages: the import system lists them to find a module.
        self.listable = tuple(sorted({os.path.dirname(path) for path in self.packages} - set(self.read_roots)))

    def root_binds(self) -> tuple[list[str], list[str], list[str]]:
        """(folders bound first, folders then covered by an empty tmpfs, paths bound last) for the new root."""
        return [self.stdlib], self.hidden, self.packages


def warm_cache(paths: tuple[str, ...], limit: int = WARM_LIMIT_BYTES) -> dict[str, Any]:
    """Bring every file a test may read into the page cache, so its cache state is the same for every version.

    `posix_fadvise(WILLNEED)` asks the kernel to read each file ahead without copying it here; where that
    is refused, the file is read.
    """
    files = total = 0
    for root in paths:
        found = [root] if os.path.isfile(root) else [os.path.join(f, n) for f, _, names in os.walk(root) for n in names]
        for path in found:
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                size = os.fstat(fd).st_size
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
                except OSError:
                    while os.read(fd, 1 << 20):
                        pass
            except OSError:
                continue
            finally:
                os.close(fd)
            files += 1
            total += size
            if total >= limit:
                return {"files": files, "bytes": total, "complete": False}
    return {"files": files, "bytes": total, "complete": True}


def _compiled_inner_filter() -> tuple[seccomp.Compiled | None, str | None]:
    """The test processes' filter, compiled once per session (each version only loads it)."""
    try:
        return seccomp.compile_filter(seccomp.INNER), None
    except ConfinementError as exc:
        return None, exc.detail


def main(payload: dict[str, Any]) -> int:
    """Entry from the bootstrap."""
    return Server(payload).serve()


class Server:
    def __init__(self, payload: dict[str, Any]) -> None:
        config = payload["config"]
        self.config = config
        self.root = tempfile.mkdtemp(prefix="hallubench-misled-")
        self.mount_point = self.root + "/newroot"
        os.makedirs(self.mount_point)
        self.work = self.root + "/work"  # until a session root is entered (then instance.WORK)
        self.ini = self.root + "/pytest.ini"
        self.item_timeout_s = float(config["item_timeout_s"])
        self.out = os.dup(1)  # the host's channel; stray prints go to the log from here on
        os.dup2(2, 1)
        self.reader = LineReader(0, MESSAGE_LIMIT)
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

    def _write_session_files(self) -> None:
        """The pytest configuration, and the folder each version's working directory is made at."""
        with open(self.ini, "w", encoding="ascii") as handle:
            handle.write("[pytest]\npython_files = test_*.py\n")
        os.makedirs(self.work, exist_ok=True)

    def _prepare_pytest(self) -> str:
        os.chdir(self.work)
        ini = self.ini
        import _pytest.config
        import _pytest.main
        import pytest

        self.collection_errors = CollectionErrors()
        args = [TEST_FILE, "-s", "--assert=plain", "-c", ini, "--rootdir", self.work]
        args += ["--basetemp", self.work + "/.pytest-tmp"]
        for plugin in ("cacheprovider", "faulthandler", "stepwise", "terminal", "pastebin", "junitxml"):
            args += ["-p", f"no:{plugin}"]
        config = _pytest.config._prepareconfig(args, plugins=[self.collection_errors])
        config.option.tbstyle = TB_STYLE
        config._do_configure()
        self.session = _pytest.main.Session.from_config(config)
        config.hook.pytest_sessionstart(session=self.session)
        os.chdir("/")
        if not self.fresh:
            os.rmdir(self.work)  # made anew for every version
        return str(pytest.__version__)

    def _enter_session(self) -> dict[str, Any]:
        """The session root where the kernel allows it (see instance.py); why not, where it does not."""
        if not self.config.get("namespaces", True):
            self.fresh = False
            return {"why_no_fresh_instance": "namespaces not requested"}
        why_not = instance.probe(self.mount_point)
        self.fresh = why_not is None
        if not self.fresh:
            return {"why_no_fresh_instance": why_not}
        self.work, self.ini = instance.WORK, instance.SESSION + "/pytest.ini"
        binds, hidden, late = self.view.root_binds()
        entered = instance.enter_session(
            instance.session_plan(self.mount_point, binds, hidden, late), self._write_session_files
        )
        return {"why_no_fresh_instance": None, "session_root": entered}

    def serve(self) -> int:
        known = self.config.get("packages")
        self.view = LibraryView([str(path) for path in known] if isinstance(known, list) else None)
        self.inner_filter, why_no_filter = _compiled_inner_filter()
        lockdown.import_builtins()
        self.lockdown = lockdown.plan()
        self.warmed = warm_cache(self.view.read_roots)
        session = self._enter_session()
        if not self.fresh:
            self._write_session_files()
        pytest_version = self._prepare_pytest()
        sys.dont_write_bytecode = True  # a test process writes no bytecode (and reads none) in the working directory
        gc.collect()
        gc.freeze()  # forks then copy fewer pages
        layers = {
            "fresh_instance_per_version": self.fresh,
            **session,
            "landlock_abi": landlock.abi_version(),
            "seccomp": why_no_filter or "available",
            "page_cache_warmed": self.warmed,
            "locked_functions": len(self.lockdown),
        }
        send(self.out, {"type": "ready", "layers": layers, "pytest": pytest_version, "python": sys.version.split()[0]})
        while True:
            message = self.reader.next_record(None)
            if message is None or message.get("type") != "version":
                return 0
            self._run(message)
            message = None  # the next version is forked without this one's files in any frame

    def _run(self, message: dict[str, Any]) -> None:
        select = message.get("select")
        wanted = tuple(str(node) for node in select) if isinstance(select, list) else None
        files = {**dict(message["files"]), TEST_FILE: str(message["test_source"])}
        first = self._version_process(files, wanted)
        if first["layers"] is not None:
            send(self.out, {"type": "version_layers", "layers": first["layers"]})
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
                alone = self._version_process(files, (node,))
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

    def _version_process(self, files: dict[str, str], wanted: tuple[str, ...] | None) -> dict[str, Any]:
        read_end, write_end = os.pipe()
        plan = version.VersionPlan(
            session=self.session,
            collection_errors=self.collection_errors,
            results_fd=write_end,
            work=self.work,
            test_file=TEST_FILE,
            files=files,
            select=wanted,
            item_timeout_s=self.item_timeout_s,
            memory_bytes=int(self.config["memory_bytes"]),
            file_size_bytes=int(self.config["file_size_bytes"]),
            workdir_bytes=int(self.config["workdir_bytes"]),
            environment=self.environment,
            read_roots=self.view.read_roots,
            listable=self.view.listable,
            lockdown=self.lockdown,
            inner_filter=self.inner_filter,
            namespaces=self.fresh,
        )
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            version.run_version(plan)
        os.close(write_end)
        del plan
        send(self.out, {"type": "progress", "group": pid})  # the host ends this group too if it must end the session
        try:
            found = self._read_version(read_end)
        finally:
            os.close(read_end)
            self._end_version(pid)
        return found

    def _read_version(self, fd: int) -> dict[str, Any]:
        reader = LineReader(fd, RECORD_LIMIT)
        collected: list[str] | None = None
        collection_error: str | None = None
        layers: dict[str, Any] | None = None
        items: dict[str, dict[str, Any]] = {}
        allowance = self.item_timeout_s + COLLECTION_GRACE_S
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
            if kind == "layers" and layers is None and isinstance(record.get("layers"), dict):
                layers = record["layers"]
            elif kind == "collected" and collected is None and collection_error is None:
                nodes = record.get("items")
                if isinstance(nodes, list) and all(isinstance(node, str) for node in nodes):
                    collected = nodes
            elif kind == "collection_error" and collected is None and collection_error is None:
                collection_error = str(record.get("detail", ""))[:6000]
            elif kind == "item" and collected is not None:
                index = record.get("index")
                if isinstance(index, int) and 0 <= index < len(collected) and record.get("node") == collected[index]:
                    items[collected[index]] = {
                        key: record[key]
                        for key in ("node", "outcome", "kind", "detail", "duration_s", "tripped")
                        if key in record
                    }
                    send(self.out, {"type": "progress"})
            elif kind in ("done", "harness_error"):
                if kind == "harness_error":
                    ended = f"harness error: {str(record.get('detail', ''))[:300]}"
                break
            deadline = time.monotonic() + allowance
        if collected is None and collection_error is None:
            collection_error = f"the version process ended during collection without a result ({ended})"
        return {
            "collected": collected,
            "collection_error": collection_error,
            "items": items,
            "ended": ended,
            "layers": layers,
        }

    def _end_version(self, pid: int) -> None:
        """No process of the version survives it; without a fresh instance its folder goes too."""
        for kill in (os.killpg, os.kill):
            with contextlib.suppress(OSError):
                kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        if not self.fresh and os.path.lexists(self.work):
            _remove(self.work)


def _remove(folder: str) -> None:
    """Remove `folder` whatever test code left in it (odd permissions included)."""

    def retry(function: Any, path: str, _info: Any) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), 0o700)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)

    with contextlib.suppress(OSError):
        os.chmod(folder, 0o755)
    shutil.rmtree(folder, onerror=retry)
