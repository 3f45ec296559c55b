"""Suite-wide options and fixtures: the repository root, scratch copies, and the `live` switch.

The suite tests this checkout, installed or not: `hallubench` is imported from this checkout's
`shared/` (a link named `hallubench` in a scratch folder put first on `sys.path` and on the
children's `PYTHONPATH`), so a fresh clone, CI and an editable install of another checkout all
test the same code. Nothing is written into the real home directory: caches go to a scratch
folder for the session.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
HUMANEVALPACK_HINT = (
    "HumanEvalPack is not available here (it is never committed): set HALLUBENCH_HUMANEVALPACK=path/to/"
    "humanevalpack.jsonl, or let the loader download it once from its pinned source"
)


def _import_hallubench_from_this_checkout() -> Path:
    scratch = Path(tempfile.mkdtemp(prefix="hallubench-tests-"))
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)
    (scratch / "hallubench").symlink_to(REPO_ROOT / "shared", target_is_directory=True)
    sys.path.insert(0, str(scratch))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(scratch), os.environ.get("PYTHONPATH")]))
    (scratch / "cache").mkdir()
    os.environ["XDG_CACHE_HOME"] = str(scratch / "cache")  # e.g. the verified HumanEvalPack copy
    return scratch


SCRATCH = _import_hallubench_from_this_checkout()


def pytest_configure(config: pytest.Config) -> None:
    # A bug inside a command raises in tests (the CLI otherwise turns it into one "internal error" line).
    os.environ.setdefault("HALLUBENCH_DEBUG", "1")


_HUMANEVALPACK: list[Path | None] = []


def humanevalpack() -> Path | None:
    """A verified HumanEvalPack file, through the project's own loader: $HALLUBENCH_HUMANEVALPACK, else the pinned
    download (once per session, cached); None where neither can be had. Tests never read it from beside the clone."""
    if not _HUMANEVALPACK:
        from hallubench.misled_tests.data import ENV_VAR, DataError, default_cache_path, fetch_pinned, load_problems

        found: Path | None = None
        given = os.environ.get(ENV_VAR)
        try:
            if given:
                load_problems(given)
                found = Path(given)
            else:
                fetch_pinned(default_cache_path(), timeout_s=15.0)
                found = default_cache_path()
                os.environ[ENV_VAR] = str(found)  # for every task file and command a test starts
        except (DataError, OSError):
            found = None
        _HUMANEVALPACK.append(found)
    return _HUMANEVALPACK[0]


def require_humanevalpack() -> Path:
    """The data, or a skip with one line saying how to get it; in CI (`CI` set) its absence fails the test."""
    found = humanevalpack()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{HUMANEVALPACK_HINT} (CI must provide it)")
        pytest.skip(HUMANEVALPACK_HINT)
    return found


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--live", action="store_true", help="also run tests that query the live PyPI and npm registries")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--live"):
        return
    skip_live = pytest.mark.skip(reason="needs the live registries; run with --live")
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip_live)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def humanevalpack_path() -> Path:
    """HumanEvalPack for the tests that need it (see `require_humanevalpack`)."""
    return require_humanevalpack()


@pytest.fixture(scope="session")
def require_benchmark_data() -> Callable[[str], None]:
    """`require(benchmark)`: for a benchmark whose versions load external data (it declares `data_help`), the
    data or a skip (a failure in CI), as `require_humanevalpack`; for the others, nothing. For parametrized tests."""
    from hallubench.tooling.specs import load_registry

    registry = load_registry(REPO_ROOT)

    def require(benchmark: str) -> None:
        declared = registry.benchmark(benchmark)
        if declared is not None and declared.data_help:
            require_humanevalpack()  # the one external data set any benchmark loads

    return require


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def scratch_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A throwaway git checkout of this repository's shared/, frozen_cases/ and tasks/, as HALLUBENCH_ROOT."""
    root = tmp_path / "repo"
    root.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("shared", "frozen_cases", "tasks"):
        source = REPO_ROOT / folder
        if source.exists():
            shutil.copytree(source, root / folder, ignore=ignore)
        else:
            (root / folder).mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "tests@hallubench.invalid")
    _git(root, "config", "user.name", "hallubench tests")
    _git(root, "add", "-A")
    # One commit freezes every locked protocol here, so its message records each locked hash, as `freeze` writes it.
    lock = root / "frozen_cases" / "protocols.lock"
    protocols = json.loads(lock.read_text(encoding="utf-8"))["protocols"] if lock.exists() else {}
    records = "".join(f"task {e['task_file']} sha256 {e['task_sha256']}\n" for e in protocols.values())
    _git(root, "commit", "-q", "-m", f"scratch copy\n\n{records}")
    monkeypatch.setenv("HALLUBENCH_ROOT", str(root))
    yield root
