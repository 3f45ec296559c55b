"""The hostile corpus through both paths of the v2 executor: nothing effective or misled, nothing outside touched.

Every file in tests/data/misled/hostile/ (v1's corpus) and hostile/routes/ (the routes of issue 10
and their neighbours) runs twice, in one batch each, as the benchmark runs them:

* through `hallubench misled classify` (with the OS layers this machine allows), and
* through the executor embedded in the built task file tasks/misled_tests_v2.py, with namespaces
  off: the Python guard alone, as on a hosted machine without user namespaces.

Each file's classification must be the one recorded in hostile/expected_v2.json; no test may be
effective or misled; a marker folder outside the working path must not change (and nothing may
appear under the corpus's names in /tmp or /dev/shm); no connection may reach a listening socket;
and no process may be left in this test's own session (other checkouts run tests on this machine
too, so only this session is looked at).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hallubench.misled.data import Problem
from hallubench.tooling.taskfile.reader import FrozenProtocol, read_task_file

from support.tcp_counter import ConnectionCounter

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "data" / "misled" / "hostile"
EXPECTED = json.loads((HOSTILE / "expected_v2.json").read_text(encoding="utf-8"))
FILES = sorted(EXPECTED["files"])
TIMEOUT_S = 2.0
PATHS = ("cli", "task_file")


def session_processes() -> set[int]:
    """Processes of this test process's own session, other than itself."""
    mine = os.getsid(0)
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 3 and int(fields[3]) == mine:
            found.add(int(entry))
    return found


def snapshot(folder: Path) -> dict[str, Any]:
    """Names, kinds, modes, sizes, times and contents of everything in `folder`."""
    state: dict[str, Any] = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else ""
        state[str(path.relative_to(folder))] = (info.st_mode, info.st_size, info.st_mtime_ns, digest)
    info = folder.lstat()
    state["."] = (info.st_mode, info.st_mtime_ns)
    return state


@dataclass
class Batch:
    """One run of the whole corpus and what the world looked like around it."""

    by_file: dict[str, dict[str, Any]]
    marker_before: dict[str, Any]
    marker_after: dict[str, Any]
    new_processes: set[int]
    leftovers: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, ConnectionCounter]]:
    marker = tmp_path_factory.mktemp("hostile-marker")
    (marker / "keep.txt").write_text("keep\n", encoding="ascii")
    (marker / "nested").mkdir()
    (marker / "nested" / "deep.txt").write_text("deep\n", encoding="ascii")
    listener = ConnectionCounter()
    yield marker, secrets.token_hex(6), listener
    listener.close()


def _sources(marker: Path, token: str, port: int, data: Path) -> dict[str, str]:
    substitutions = {"{MARKER}": str(marker), "{TOKEN}": token, "{DATA}": str(data), "{PORT}": str(port)}
    sources = {}
    for name in FILES:
        text = (HOSTILE / name).read_text(encoding="utf-8")
        for placeholder, value in substitutions.items():
            text = text.replace(placeholder, value)
        sources[name] = text
    return sources


def _leftovers(token: str) -> list[str]:
    found = []
    for folder in ("/tmp", "/dev/shm"):
        try:
            found += [f"{folder}/{name}" for name in os.listdir(folder) if token in name]
        except OSError:
            continue
    return found


def _run_cli(sources: dict[str, str], folder: Path, data: Path) -> dict[str, dict[str, Any]]:
    paths = []
    for name, text in sources.items():
        path = folder / name.replace("/", "__")
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    command = [sys.executable, "-m", "hallubench", "misled", "classify", "--problem", EXPECTED["problem"]]
    command += ["--data", str(data), "--timeout", str(TIMEOUT_S), "--jobs", "2", "--json", "--tests", *paths]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stderr[-3000:]  # some hostile files give no tests: exit 1, not a crash
    results = json.loads(done.stdout)
    return dict(zip(sources, results, strict=True))


def _run_task_file(sources: dict[str, str], problem: Problem) -> dict[str, dict[str, Any]]:
    task = read_task_file(ROOT / "tasks" / "misled_tests_v2.py")
    with FrozenProtocol(task) as frozen:
        package = frozen.entry.__package__
        verdicts = importlib.import_module(f"{package}.verdicts")
        host = importlib.import_module(f"{package}.executor.host")
        limits = host.Limits(item_timeout_s=TIMEOUT_S, namespaces=False)
        found = verdicts.classify_files([(problem, text) for text in sources.values()], limits=limits, workers=2)
        pairs = zip(sources, found, strict=True)
        return {name: {**item.as_dict(), "isolation": item.isolation} for name, item in pairs}


@pytest.fixture(scope="module")
def batches(
    outside: tuple[Path, str, ConnectionCounter],
    problems: dict[str, Problem],
    humanevalpack_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Batch]:
    marker, token, listener = outside
    sources = _sources(marker, token, listener.port, humanevalpack_path)
    results: dict[str, Batch] = {}
    for path in PATHS:
        before, processes = snapshot(marker), session_processes()
        if path == "cli":
            by_file = _run_cli(sources, tmp_path_factory.mktemp("hostile-files"), humanevalpack_path)
        else:
            by_file = _run_task_file(sources, problems[EXPECTED["problem"]])
        results[path] = Batch(by_file, before, snapshot(marker), session_processes() - processes, _leftovers(token))
    return results


def _shown(found: dict[str, Any]) -> dict[str, Any]:
    shown: dict[str, Any] = {"status": found["status"]}
    if found["tests"]:
        shown["tests"] = {
            test["id"].split("::", 1)[1]: [test["outcome"], test["buggy"], test["fixed"]] for test in found["tests"]
        }
    return shown


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", FILES)
def test_each_file_is_classified_as_expected(batches: dict[str, Batch], path: str, name: str) -> None:
    found = batches[path].by_file[name]
    assert _shown(found) == EXPECTED["files"][name], found["detail"][:500]


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS)
def test_no_hostile_test_is_effective_or_misled(batches: dict[str, Batch], path: str) -> None:
    decided = {
        f"{name}::{test['id']}": test["outcome"]
        for name, found in batches[path].by_file.items()
        for test in found["tests"]
        if test["outcome"] in ("effective", "misled")
    }
    assert decided == {}


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS)
def test_nothing_outside_the_working_path_changed(
    batches: dict[str, Batch], path: str, outside: tuple[Path, str, ConnectionCounter]
) -> None:
    batch = batches[path]
    assert batch.marker_after == batch.marker_before
    assert batch.leftovers == []
    assert outside[2].accepted == 0


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS)
def test_no_process_outlives_the_batch(batches: dict[str, Batch], path: str) -> None:
    alive = {pid for pid in batches[path].new_processes if Path(f"/proc/{pid}").exists()}
    assert alive == set()


@pytest.mark.slow
def test_each_row_says_how_it_was_contained(batches: dict[str, Batch]) -> None:
    guard_only = batches["task_file"].by_file[FILES[0]]["isolation"]
    assert guard_only["python_guard"] is True and guard_only["user_namespace"] is False
    assert guard_only["outcome_channel"] and guard_only["locked_functions"] > 0
    default = batches["cli"].by_file[FILES[0]]["isolation"]
    assert set(default) >= {"user_namespace", "mount_namespace", "network_namespace", "pid_namespace", "python_guard"}

    def layers(found: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in found["isolation"].items() if key != "working_directory"}

    assert all(layers(found) == layers(batches["cli"].by_file[FILES[0]]) for found in batches["cli"].by_file.values())
