"""The whole hostile corpus against every way model-written code reaches this machine: the host stays as it was.

The corpus is tests/misled_tests/data/hostile/ (v1's files), hostile/routes/ (v2's routes) and hostile/jail/ (the
routes that got out of v2: second native copies, aliased imports, a fresh interpreter in full native
control, SysV IPC, signals, the answer key, the channels between the two version runs, harness callbacks,
one file against another, pytest's semantics). It runs, in one batch per path:

* `hallubench misled classify` as root (the jail drops to its own user), the whole corpus, and as an
  unprivileged user, the routes of hostile/jail/;
* the executor embedded in the frozen task file tasks/misled_tests_v3.py, called in this process with no
  outer jail at all (its own layers are all there is, as on a hosted machine), the whole corpus;
* `hallubench rescore` of crafted run files of misled-tests v1, v2 and v3, one per route of hostile/jail/: a
  real run file of each version whose model reply is replaced by the route (v1 and v2 run their frozen
  executors in the jail).

After each path: the marker folder, the checkout's git status, the virtual environment's site-packages,
/tmp, /dev/shm and the System V IPC tables are as they were; nothing connected to the loopback listener;
an unrelated host process is alive; no process is left in this test's session. Under v3 no file's test is
effective or misled but the ones the corpus expects (hostile/expected_v3.json), and the channel routes are
neither over repeated runs in both orders.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hallubench.misled_tests.data import Problem
from hallubench.tooling.taskfile.reader import FrozenProtocol, read_task_file

from support.hosted import run_like_kaggle
from support.run_copies import another_run
from support.tcp_counter import ConnectionCounter
from support.unprivileged import run_unprivileged

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "misled_tests" / "data" / "hostile"
EXPECTED = json.loads((HOSTILE / "expected_v3.json").read_text(encoding="utf-8"))
FILES = sorted(EXPECTED["files"])
ROUTES = sorted(name for name in FILES if name.startswith("jail/"))  # the routes that got out of v2
CHANNELS = sorted(name for name in ROUTES if name.startswith("jail/channel_"))
TIMEOUT_S = 3.0
CASE = "p030-buggy_code-think_off"
SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


def _session_processes() -> set[int]:
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


def _tree(folder: Path) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else ""
        state[str(path.relative_to(folder))] = (info.st_mode, info.st_size, info.st_mtime_ns, digest)
    return state


def _ipc_tables() -> dict[str, list[str]]:
    tables = {}
    for name in ("msg", "sem", "shm"):
        try:
            lines = Path(f"/proc/sysvipc/{name}").read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            lines = []
        tables[name] = sorted(line.split()[0] + " " + line.split()[1] for line in lines if line.split())
    return tables


@dataclass
class World:
    """What must not change, and the things the corpus aims at."""

    marker: Path
    token: str
    listener: ConnectionCounter
    victim: subprocess.Popen[bytes]
    files: Path  # a folder every user can read, for the test files and crafted runs

    def substitutions(self, data: Path) -> dict[str, str]:
        return {
            "{MARKER}": str(self.marker),
            "{TOKEN}": self.token,
            "{DATA}": str(data),
            "{PORT}": str(self.listener.port),
            "{SITE}": str(SITE),
            "{CHECKOUT}": str(ROOT),
            "{VICTIM}": str(self.victim.pid),
        }

    def snapshot(self) -> dict[str, Any]:
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, capture_output=True, text=True
        ).stdout
        return {
            "marker": _tree(self.marker),
            "checkout": sorted(line for line in status.splitlines() if "__pycache__" not in line),
            "site": sorted(
                (entry.name, entry.stat(follow_symlinks=False).st_mtime_ns)
                for entry in os.scandir(SITE)
                if entry.name.endswith(".pth") or self.token in entry.name
            ),
            "tmp": sorted(name for name in os.listdir("/tmp") if self.token in name),
            "shm": sorted(name for name in os.listdir("/dev/shm") if self.token in name),
            "ipc": _ipc_tables(),
        }


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    marker = Path(tempfile.mkdtemp(prefix="hostile-marker-"))
    (marker / "keep.txt").write_text("keep\n", encoding="ascii")
    files = Path(tempfile.mkdtemp(prefix="hostile-files-"))
    os.chmod(files, 0o755)
    listener = ConnectionCounter()
    victim = subprocess.Popen(["sleep", "3600"], start_new_session=True)
    yield World(marker, secrets.token_hex(6), listener, victim, files)
    victim.kill()
    victim.wait()
    listener.close()
    shutil.rmtree(marker, ignore_errors=True)
    shutil.rmtree(files, ignore_errors=True)


def _sources(world: World, data: Path, names: list[str] = FILES) -> dict[str, str]:
    sources = {}
    for name in names:
        text = (HOSTILE / name).read_text(encoding="utf-8")
        for placeholder, value in world.substitutions(data).items():
            text = text.replace(placeholder, value)
        sources[name] = text
    return sources


@dataclass
class Batch:
    by_file: dict[str, dict[str, Any]]
    before: dict[str, Any]
    after: dict[str, Any]
    new_processes: set[int]
    victim_alive: bool
    connections: int
    exit_code: int | None = None


def _running(pid: int) -> bool:
    """Still able to run code: present and not a zombie (an orphaned zombie waits on a reaper, not on us)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    state = stat[stat.rfind(b")") + 2 :].split()[0]
    return state not in (b"Z", b"X")


def _describe(pid: int) -> str:
    """The survivor's command line and parent, so that a failure says what escaped."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return "(gone)"
    fields = stat[stat.rfind(b")") + 2 :].split()
    return f"{argv.strip()} (state {fields[0].decode()}, parent {fields[1].decode()})"


def _around(world: World, run: Callable[[], tuple[dict[str, dict[str, Any]], int | None]]) -> Batch:
    before, processes, connections = world.snapshot(), _session_processes(), world.listener.accepted
    by_file, code = run()
    return Batch(
        by_file,
        before,
        world.snapshot(),
        _session_processes() - processes,
        world.victim.poll() is None,
        world.listener.accepted - connections,
        code,
    )


def _write_files(world: World, sources: dict[str, str]) -> list[str]:
    paths = []
    for name, text in sources.items():
        path = world.files / name.replace("/", "__")
        path.write_text(text, encoding="utf-8")
        os.chmod(path, 0o644)
        paths.append(str(path))
    return paths


def _classify_command(paths: list[str], data: Path) -> list[str]:
    command = [sys.executable, "-m", "hallubench", "misled", "classify", "--problem", EXPECTED["problem"]]
    return [*command, "--data", str(data), "--timeout", str(TIMEOUT_S), "--jobs", "2", "--json", "--tests", *paths]


def _cli(world: World, sources: dict[str, str], data: Path, unprivileged: bool) -> Batch:
    paths = _write_files(world, sources)

    def run() -> tuple[dict[str, dict[str, Any]], int | None]:
        command = _classify_command(paths, data)
        if unprivileged:
            done = run_unprivileged(
                command, env={"PATH": "/usr/bin:/bin", "HOME": str(world.files)}, needs=[str(ROOT), str(data)]
            )
        else:
            done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
        assert done.returncode in (0, 1), done.stderr[-3000:]
        assert "Traceback" not in done.stderr
        return dict(zip(sources, json.loads(done.stdout), strict=True)), done.returncode

    return _around(world, run)


def _frozen_v3(world: World, sources: dict[str, str], problem: Problem) -> Batch:
    task = read_task_file(ROOT / "tasks" / "misled_tests_v3.py")

    def run() -> tuple[dict[str, dict[str, Any]], int | None]:
        with FrozenProtocol(task) as frozen:
            package = frozen.entry.__package__
            verdicts = importlib.import_module(f"{package}.verdicts")
            host = importlib.import_module(f"{package}.executor.host")
            limits = host.Limits(item_timeout_s=TIMEOUT_S)
            found = verdicts.classify_files([(problem, text) for text in sources.values()], limits=limits, workers=2)
            pairs = zip(sources, found, strict=True)
            return {name: {**item.as_dict(), "isolation": item.isolation} for name, item in pairs}, None

    return _around(world, run)


def _reply(source: str) -> str:
    return "```python\n" + source + "\n```\n"


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory: pytest.TempPathFactory, humanevalpack_path: Path) -> dict[str, dict[str, Any]]:
    """One real loose row run file per version, from the frozen task file under kaggle-benchmarks."""
    pytest.importorskip("kaggle_benchmarks")
    benign = _reply("from solution import get_positive\n\n\ndef test_a():\n    assert get_positive([1]) == [1]\n")
    found = {}
    for version in ("v1", "v2", "v3"):
        out = tmp_path_factory.mktemp(f"real-{version}")
        env = {"HALLUBENCH_CASES": CASE, "HALLUBENCH_HUMANEVALPACK": str(humanevalpack_path)}
        run_like_kaggle(ROOT / "tasks" / f"misled_tests_{version}.py", out, lambda messages: benign, env=env)
        (row_file,) = out.glob("*_row-run_*.run.json")
        found[version] = json.loads(row_file.read_text(encoding="utf-8"))
    return found


def _crafted(real: dict[str, Any], source: str, number: int) -> dict[str, Any]:
    """The real run with its model reply replaced by `source`, as another run (its own identity)."""
    data = another_run(real, number)
    for conversation in data["conversations"]:
        for request in conversation["requests"]:
            for content in request["contents"]:
                if content["role"] == "CONTENT_ROLE_ASSISTANT":
                    content["parts"] = [{"text": _reply(source)}]
    return data


def _rescore(world: World, sources: dict[str, str], real: dict[str, Any], version: str, data: Path) -> Batch:
    folder = world.files / f"runs-{version}"
    folder.mkdir(exist_ok=True)
    for number, (name, source) in enumerate(sources.items(), start=1):
        path = folder / f"{name.replace('/', '__')}.run.json"
        path.write_text(json.dumps(_crafted(real, source, number)), encoding="utf-8")
    report = world.files / f"report-{version}.json"

    def run() -> tuple[dict[str, dict[str, Any]], int | None]:
        command = [sys.executable, "-m", "hallubench", "rescore", str(folder), "--task", f"misled-tests/{version}"]
        env = {**os.environ, "HALLUBENCH_HUMANEVALPACK": str(data)}
        done = subprocess.run([*command, "--json", str(report)], capture_output=True, text=True, env=env, timeout=900)
        assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, done.stderr[-3000:]
        assert done.returncode in (0, 4), done.stdout[-3000:] + done.stderr[-3000:]
        rows = [
            row for model in json.loads(report.read_text(encoding="utf-8"))["models"].values() for row in model["rows"]
        ]
        by_source = {Path(row["source"].split(" ")[0]).name: row for row in rows}
        return {name: by_source[f"{name.replace('/', '__')}.run.json"] for name in sources}, done.returncode

    return _around(world, run)


PATHS = ("cli-root", "cli-unprivileged", "frozen-v3", "rescore-v1", "rescore-v2", "rescore-v3")


@pytest.fixture(scope="module")
def batches(
    world: World,
    problems: dict[str, Problem],
    humanevalpack_path: Path,
    real_runs: dict[str, dict[str, Any]],
) -> dict[str, Batch]:
    if os.geteuid() != 0:
        pytest.skip("the corpus runs as root and as an unprivileged user: this test process must be root to do both")
    sources = _sources(world, humanevalpack_path)
    routes = _sources(world, humanevalpack_path, ROUTES)
    return {
        "cli-root": _cli(world, sources, humanevalpack_path, unprivileged=False),
        "cli-unprivileged": _cli(world, routes, humanevalpack_path, unprivileged=True),
        "frozen-v3": _frozen_v3(world, sources, problems[EXPECTED["problem"]]),
        **{
            f"rescore-{version}": _rescore(world, routes, real_runs[version], version, humanevalpack_path)
            for version in ("v1", "v2", "v3")
        },
    }


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS)
def test_the_host_is_left_as_it_was(batches: dict[str, Batch], path: str) -> None:
    batch = batches[path]
    assert batch.after == batch.before
    assert batch.connections == 0
    assert batch.victim_alive
    alive = {pid: _describe(pid) for pid in batch.new_processes if _running(pid)}
    assert alive == {}


def _classification(path: str, found: dict[str, Any]) -> dict[str, Any]:
    """A file's classification, from the classify output or from a rescored row (its re-scored row)."""
    if path.startswith("rescore-"):
        return dict(found["row"].get("classification") or {"status": found["row"].get("verdict"), "tests": []})
    return found


def _shown(found: dict[str, Any]) -> dict[str, Any]:
    shown: dict[str, Any] = {"status": found["status"]}
    if found.get("tests"):
        shown["tests"] = {t["id"].split("::", 1)[1]: [t["outcome"], t["buggy"], t["fixed"]] for t in found["tests"]}
    return shown


V3_PATHS = ("cli-root", "cli-unprivileged", "frozen-v3", "rescore-v3")


WHOLE_CORPUS = ("cli-root", "frozen-v3")
V3_FILES = [(path, name) for path in V3_PATHS for name in (FILES if path in WHOLE_CORPUS else ROUTES)]


@pytest.mark.slow
@pytest.mark.parametrize(("path", "name"), V3_FILES)
def test_under_v3_each_file_is_classified_as_expected(batches: dict[str, Batch], path: str, name: str) -> None:
    found = _classification(path, batches[path].by_file[name])
    assert _shown(found) == EXPECTED["files"][name], str(found.get("detail"))[:500]


@pytest.mark.slow
@pytest.mark.parametrize("path", ("rescore-v1", "rescore-v2"))
def test_frozen_executors_ran_in_the_jail_and_every_row_is_reported(batches: dict[str, Batch], path: str) -> None:
    rows = batches[path].by_file
    assert sorted(rows) == ROUTES  # no input dropped another's report
    for row in rows.values():
        assert row["prompt_verified"], row["problem"]
        assert row["jail"]["read_only_view"] and row["jail"]["missing"] == []


@pytest.mark.slow
@pytest.mark.parametrize("path", V3_PATHS)
def test_every_v3_row_records_its_layers(batches: dict[str, Batch], path: str) -> None:
    for name, found in batches[path].by_file.items():
        isolation = found["row"]["isolation"] if path.startswith("rescore-") else found["isolation"]
        if _classification(path, found).get("status") == "ok":
            assert isolation["fresh_instance_per_version"] is True, name
            for version in ("buggy", "fixed"):
                layers = isolation["versions"][version]
                assert layers["pid_namespace"] and layers["read_only_root"] and layers["landlock"]["files"], name
                assert layers["seccomp"]["refused_calls"] > 0 and layers["capabilities"] == "0x0", name


@pytest.mark.slow
@pytest.mark.parametrize("order", [("buggy", "fixed"), ("fixed", "buggy")])
def test_no_channel_moves_a_verdict_in_either_order(
    world: World, problems: dict[str, Problem], humanevalpack_path: Path, order: tuple[str, str]
) -> None:
    from hallubench.misled_tests.executor.host import Limits, run_jobs
    from hallubench.misled_tests.verdicts import combine, job_for

    sources = _sources(world, humanevalpack_path)
    problem = problems[EXPECTED["problem"]]
    prepared = [job_for(problem, sources[name]) for name in CHANNELS for _ in range(3)]  # three runs of each
    jobs = [dataclasses.replace(job, order=order) for job, _ in prepared]
    results = run_jobs(jobs, limits=Limits(item_timeout_s=TIMEOUT_S), workers=2)
    for (_, renames), result in zip(prepared, results, strict=True):
        assert result.order == list(order)
        found = combine(problem.task_id, result, renames)
        assert {test["outcome"] for test in found.tests} <= {"both-pass", "both-fail", "broken"}, found.as_dict()


def test_the_channel_routes_do_tell_the_runs_apart_where_nothing_isolates_them(tmp_path: Path) -> None:
    """The routes are real: run twice in one shared folder with plain pytest, each gives a different answer."""
    folder = tmp_path / "shared" / "work"
    folder.mkdir(parents=True)
    (folder / "solution.py").write_text("def get_positive(l):\n    return [e for e in l if e > 0]\n", encoding="utf-8")
    token = secrets.token_hex(6)
    source = (HOSTILE / "jail" / "channel_above_workdir.py").read_text(encoding="utf-8").replace("{TOKEN}", token)
    (folder / "test_channel.py").write_text(source, encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_channel.py"]
    first = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
    second = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
    assert (first.returncode, second.returncode) == (0, 1), first.stdout + second.stdout
