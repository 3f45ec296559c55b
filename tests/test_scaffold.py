"""`hallubench new NAME` writes a benchmark that builds, runs, rescores and passes the contract suite as written.

Everything happens in a scratch copy of this checkout, and nothing outside what `new` wrote is
edited: the new benchmark is registered by its own declaration file.
"""

from __future__ import annotations

import json
import os
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


# -- done when: a new benchmark with a leaderboard and a page of its own touches only its own folders -------------

REPORT = '''"""demo-bench's report for `hallubench rescore`: accuracy per model, ranked with intervals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..leaderboard import Entry, leaderboard, units_from


def rescore_report(rows_by_model: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
    entries = [
        Entry(model, "model", units_from((str(r["case_id"]), r["verdict"] == "pass", 1.0) for r in rows))
        for model, rows in rows_by_model.items()
    ]
    board = leaderboard("accuracy", entries, higher_is_better=True)
    text = "\\n".join(f"{line['name']}: {line['value']}" for line in board["entries"])
    return {"text": text + "\\n", "markdown": text, "json": {"leaderboard": board}, "csv": ""}
'''
PAGE = '''"""demo-bench on the report page: a column beside the leaderboard and the evidence of each row."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..report_html.rowset import PageRow
from ..report_html.view import PageView

SCRIPT = (
    "window.hallubenchView = function (entry, hb) {"
    ' return hb.el("p", "demo-evidence", "scored: " + (entry.row || {}).detail); };'
)


def page_view(result: Mapping[str, Any], rows: Sequence[PageRow]) -> PageView:
    models = (result.get("models") or {}).keys()
    return PageView(columns={"demo column": {m: "<i>demo cell</i>" for m in models}}, script=SCRIPT)
'''


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def git_copy(repo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This checkout's tracked layout in a fresh git repository, committed, as HALLUBENCH_ROOT."""
    root = tmp_path / "copy"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "artefacts")
    for folder in ("shared", "frozen_cases", "tasks", "tests", "scripts"):
        shutil.copytree(repo_root / folder, root / folder, ignore=ignore)
    for name in ("pyproject.toml", "README.md", ".gitignore"):
        shutil.copyfile(repo_root / name, root / name)
    _git(root.parent, "init", "-q", "-b", "main", str(root))
    _git(root, "add", "-A")
    _git(root, "-c", "user.email=t@hallubench.invalid", "-c", "user.name=t", "commit", "-q", "-m", "copy")
    monkeypatch.setenv("HALLUBENCH_ROOT", str(root))
    return root


@pytest.mark.slow
@pytest.mark.kbench
def test_a_new_benchmark_with_a_leaderboard_and_a_page_view_touches_only_its_own_folders(
    git_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("kaggle_benchmarks")
    from support.hosted import run_like_kaggle

    assert main(["new", NAME]) == 0
    tooling = git_copy / "shared" / "tooling" / PACKAGE
    (tooling / "report.py").write_text(REPORT, encoding="utf-8")
    (tooling / "page.py").write_text(PAGE, encoding="utf-8")
    declaration = tooling / "benchmark.py"
    hooks = (
        f'        report="hallubench.tooling.{PACKAGE}.report:rescore_report",\n'
        f'        page_view="hallubench.tooling.{PACKAGE}.page:page_view",\n'
    )
    text = declaration.read_text(encoding="utf-8")
    declaration.write_text(text.replace("        protocols=(\n", hooks + "        protocols=(\n", 1), encoding="utf-8")
    assert main(["build", NAME]) == 0

    # The copy's own hallubench rescores a run of the new task file and writes its page, through the two hooks.
    runs = tmp_path / "runs"
    run_like_kaggle(
        git_copy / "tasks" / f"{PACKAGE}_v1.py", runs, lambda messages: "It is 42.", env={"HALLUBENCH_LIMIT": "3"}
    )
    link = tmp_path / "py"
    link.mkdir()
    (link / "hallubench").symlink_to(git_copy / "shared", target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": str(link), "HALLUBENCH_ROOT": str(git_copy), "PYTHONDONTWRITEBYTECODE": "1"}
    page, result = tmp_path / "page.html", tmp_path / "result.json"
    done = subprocess.run(
        [sys.executable, "-m", "hallubench", "rescore", str(runs), "--json", str(result), "--html", str(page)],
        capture_output=True, text=True, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert json.loads(result.read_text(encoding="utf-8"))["benchmark"]["leaderboard"]["metric"] == "accuracy"
    html = page.read_text(encoding="utf-8")
    assert 'class="leaderboard' in html and "demo column" in html and "<i>demo cell</i>" in html
    assert 'hb.el("p", "demo-evidence"' in html and f'data-benchmark="{NAME}"' in html

    changed = [line[3:] for line in _git(git_copy, "status", "--porcelain", "--untracked-files=all").splitlines()]
    own = (f"shared/{PACKAGE}/", f"shared/tooling/{PACKAGE}/", f"tests/{PACKAGE}/")
    built = (f"tasks/{PACKAGE}_v1.py", f"frozen_cases/{NAME}/")  # what `build` writes for it, documented
    assert changed and all(path.startswith(own + built) for path in changed), changed
    assert {f"shared/tooling/{PACKAGE}/report.py", f"shared/tooling/{PACKAGE}/page.py"} <= set(changed)
