"""`hallubench new NAME` writes a benchmark that builds, runs, rescores and passes the contract suite as written.

Everything happens in a scratch copy of this checkout, and nothing outside what `new` wrote is
edited: the new benchmark is registered by its own declaration file.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hallubench.tooling.cli import main

NAME, PACKAGE = "demo-bench", "demo_bench"


@pytest.fixture
def checkout(repo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "artefacts")
    for folder in ("shared", "frozen_cases", "tasks", "tests"):
        shutil.copytree(repo_root / folder, root / folder, ignore=ignore)
    shutil.copyfile(repo_root / "pyproject.toml", root / "pyproject.toml")
    monkeypatch.setenv("HALLUBENCH_ROOT", str(root))
    return root


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_new_writes_only_its_own_files_and_the_result_builds(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _tree(checkout)
    assert main(["new", NAME]) == 0
    after = _tree(checkout)
    assert {path for path in before if before[path] != after.get(path)} == set(), "new edited an existing file"
    written = sorted(set(after) - set(before))
    assert written == sorted(
        [
            f"shared/{PACKAGE}/README.md",
            f"shared/{PACKAGE}/__init__.py",
            f"shared/{PACKAGE}/cases.py",
            f"shared/{PACKAGE}/task_v1.py",
            f"shared/tooling/{PACKAGE}/__init__.py",
            f"shared/tooling/{PACKAGE}/benchmark.py",
            f"tests/{PACKAGE}/test_{PACKAGE}_v1.py",
        ]
    )
    assert main(["build", NAME]) == 0
    assert (checkout / "tasks" / f"{PACKAGE}_v1.py").is_file()
    new_files = [str(checkout / path) for path in written if path.endswith(".py")]
    for tool in (["ruff", "check", "--no-cache"], ["ruff", "format", "--check", "--no-cache"]):
        done = subprocess.run([sys.executable, "-m", *tool, *new_files], capture_output=True, text=True, cwd=checkout)
        assert done.returncode == 0, done.stdout + done.stderr
    typed = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", *new_files[:-1]],
        capture_output=True,
        text=True,
        cwd=checkout,
    )
    assert typed.returncode == 0, typed.stdout


@pytest.mark.slow
def test_the_new_benchmark_passes_its_own_tests_and_the_contract_suite(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the very pytest line `new` prints, which must select the benchmark's own tests and its contract tests."""
    assert main(["new", NAME]) == 0
    printed = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("pytest "))
    assert main(["build", NAME]) == 0
    suites = shlex.split(printed.split("#")[0])[1:]
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *suites],
        capture_output=True,
        text=True,
        cwd=checkout,
    ).stdout
    assert f"tests/{PACKAGE}/test_{PACKAGE}_v1.py::" in listed, listed[-2000:]
    assert "tests/test_protocol_contract.py::" in listed and f"{NAME}/v1" in listed, listed[-2000:]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *suites],
        capture_output=True,
        text=True,
        cwd=checkout,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout


@pytest.mark.slow
@pytest.mark.model
def test_the_new_benchmark_runs_on_the_embedded_model_and_rescores(
    checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("kaggle_benchmarks")
    pytest.importorskip("xllamacpp")
    assert main(["new", NAME]) == 0 and main(["build", NAME]) == 0
    out = tmp_path / "run"
    assert main(["run", NAME, "--limit", "2", "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["rescore", str(out)]) == 0
    text = capsys.readouterr().out
    assert "2/2" in text and "every prompt verified and every score agrees" in text


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Demo_Bench", "lower-case words joined by hyphens"),
        ("hallumaze", "already a benchmark or a command"),
        ("maze", "already a benchmark or a command"),
        ("rescore", "already a benchmark or a command"),
    ],
)
def test_an_unusable_name_writes_nothing(
    checkout: Path, capsys: pytest.CaptureFixture[str], name: str, message: str
) -> None:
    before = _tree(checkout)
    assert main(["new", name]) == 2
    assert message in capsys.readouterr().err
    assert _tree(checkout) == before
