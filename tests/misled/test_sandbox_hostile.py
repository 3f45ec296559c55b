"""Hostile test files are contained, and none of their items ever counts as a pass.

Each file in tests/data/misled/hostile/ tries one escape (infinite loop, memory bomb, fork
bomb, network, writes outside the working directory, os._exit(0) and sys.exit(0) in a test or
at import, killing the parent, patching pytest, deleting files, a hang at import). All run in
one batch, as the benchmark runs them, so a file that kills its session also exercises the
per-item fallback for the files after it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hallubench.misled.classify import FileClassification, classify_files
from hallubench.misled.data import Problem
from hallubench.misled.sandbox import Limits, namespaces_available

from support.processes import adopting_orphans, descendants
from support.tcp_counter import ConnectionCounter

HOSTILE = Path(__file__).resolve().parents[1] / "data" / "misled" / "hostile"
LIMITS = Limits(item_timeout_s=3.0, startup_s=6.0)


@pytest.fixture(scope="module")
def listener() -> Iterator[ConnectionCounter]:
    server = ConnectionCounter()
    yield server
    server.close()


@pytest.fixture(scope="module")
def marker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("outside") / "escaped.txt"


@pytest.fixture(scope="module")
def classified(problems: dict[str, Problem], listener: ConnectionCounter, marker: Path) -> Iterator[dict[str, Any]]:
    files = sorted(HOSTILE.glob("*.py"))
    sources = [
        path.read_text(encoding="utf-8").replace("{PORT}", str(listener.port)).replace("{MARKER}", str(marker))
        for path in files
    ]
    # Orphans the hostile files leave stay this process's descendants (and nobody else's processes are).
    with adopting_orphans():
        already_running = {info.pid for info in descendants()}
        started = time.monotonic()
        results = classify_files([(problems["Python/30"], source) for source in sources], limits=LIMITS)
        yield {
            "by_file": {path.stem: result for path, result in zip(files, results, strict=True)},
            "seconds": time.monotonic() - started,
            "already_running": already_running,
        }


def _file(classified: dict[str, Any], name: str) -> FileClassification:
    found: FileClassification = classified["by_file"][name]
    return found


@pytest.mark.parametrize("name", sorted(path.stem for path in HOSTILE.glob("*.py")))
def test_no_hostile_item_passes(classified: dict[str, Any], name: str) -> None:
    found = _file(classified, name)
    for test in found.tests:
        assert test["buggy"] != "pass" and test["fixed"] != "pass", test
    assert found.status != "ok" or found.tests, "a usable file must report its items"


def test_infinite_loop_times_out(classified: dict[str, Any]) -> None:
    (test,) = _file(classified, "infinite_loop").tests
    assert (test["buggy"], test["fixed"]) == ("timeout", "timeout")


def test_memory_bomb_hits_the_limit(classified: dict[str, Any]) -> None:
    (test,) = _file(classified, "memory_bomb").tests
    assert test["buggy_kind"] == test["fixed_kind"] == "MemoryError"


def test_fork_bomb_and_spawning_are_refused(classified: dict[str, Any]) -> None:
    kinds = {test["id"].split("::")[-1]: test["buggy_kind"] for test in _file(classified, "fork_bomb").tests}
    assert kinds == {"test_forks": "SandboxViolation", "test_spawns": "SandboxViolation"}


def test_network_is_unreachable(classified: dict[str, Any], listener: ConnectionCounter) -> None:
    (test,) = _file(classified, "network").tests
    assert test["buggy"] == "fail"
    assert listener.accepted == 0


def test_writes_outside_the_workdir_are_refused(classified: dict[str, Any], marker: Path) -> None:
    tests = _file(classified, "write_outside").tests
    assert {test["buggy_kind"] for test in tests} == {"SandboxViolation"}
    assert not marker.exists() and not Path(str(marker) + ".d").exists()


def test_exit_in_a_test_is_not_a_pass(classified: dict[str, Any]) -> None:
    outcomes = {
        test["id"].split("::")[-1]: (test["buggy"], test["buggy_kind"])
        for test in _file(classified, "exit_in_test").tests
    }
    assert outcomes["test_exits_cleanly_mid_test"] == ("error", "crashed: exit status 0 without a result")
    assert outcomes["test_sys_exit_zero"] == ("fail", "SystemExit")


@pytest.mark.parametrize("name", ["exit_at_import", "os_exit_at_import", "hang_at_import"])
def test_exit_or_hang_at_import_leaves_the_file_without_tests(classified: dict[str, Any], name: str) -> None:
    found = _file(classified, name)
    # sys.exit(0) at import: pytest collects nothing from the module (no_tests); os._exit(0)
    # kills the collecting process and a hang is killed by the watchdog (collection_error).
    assert found.status in ("collection_error", "no_tests") and found.tests == []


def test_killing_the_parent_is_refused_and_never_a_pass(classified: dict[str, Any]) -> None:
    tests = _file(classified, "kill_parent").tests
    assert len(tests) == 2
    assert {test["buggy"] for test in tests} == {"fail"}


def test_patched_pytest_cannot_turn_failures_into_passes(classified: dict[str, Any]) -> None:
    (test,) = _file(classified, "patch_pytest").tests
    assert (test["buggy"], test["fixed"], test["outcome"]) == ("fail", "fail", "both-fail")


def test_deleting_files_and_ctypes_are_contained(classified: dict[str, Any]) -> None:
    by_name = {test["id"].split("::")[-1]: test for test in _file(classified, "delete_files").tests}
    assert by_name["test_ctypes_escape"]["buggy_kind"] == "SandboxViolation"
    assert by_name["test_deletes_everything_it_can_see"]["buggy"] != "pass"


def test_no_process_outlives_the_batch(classified: dict[str, Any]) -> None:
    """The fork-bomb children and the `sleep` processes the batch started must all be gone.

    Only this test process's own descendants count (orphans included, see `support.processes`):
    another checkout running the same hostile files on this machine must not fail this test.
    """
    leftovers = [(p.pid, p.cmdline[:80]) for p in descendants() if p.pid not in classified["already_running"]]
    assert leftovers == []


def test_isolation_is_reported() -> None:
    assert isinstance(namespaces_available(), bool)
