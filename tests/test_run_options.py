"""Run options reach `play` as a declared parameter, are recorded in every row, and rescoring replays them.

A small benchmark declares one option (`match`: how strictly the reply must equal the word). It runs
under the real kaggle-benchmarks against the loopback stub, once with the option changed the way
`hallubench run --option` changes it; rescore replays each row under the value the row recorded,
and `rescore --option` shows the same replies scored another way.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main
from hallubench.tooling.runner import ENV_RUN_OPTIONS

from support.hosted import run_like_kaggle

pytest.importorskip("kaggle_benchmarks")

DATA = Path(__file__).parent / "data" / "options"
PROJECT = Path(__file__).resolve().parents[1]
DECLARATION = '''"""A benchmark with one run option (tests)."""

from ..specs import Benchmark, ProtocolSpec, RunOption

BENCHMARKS = (
    Benchmark(
        name="optdemo",
        package="optdemo",
        summary="a word echo scored as the run option says",
        protocols=(
            ProtocolSpec(
                benchmark="optdemo",
                version=1,
                entry="optdemo/task_v1.py",
                title="optdemo v1",
                description="A word echo whose scoring is a run option.",
                run_options=(RunOption("match", "contains", "contains: the word anywhere; exact: the whole reply"),),
            ),
        ),
    ),
)
'''
CASES = [{"id": "w-apple", "word": "apple"}, {"id": "w-river", "word": "river"}]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("options") / "repo"
    for folder in ("shared", "frozen_cases", "tasks"):
        shutil.copytree(PROJECT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "shared" / "optdemo").mkdir()
    (root / "shared" / "optdemo" / "__init__.py").write_text('"""Run-option demo."""\n', encoding="utf-8")
    shutil.copyfile(DATA / "options_task_v1.py", root / "shared" / "optdemo" / "task_v1.py")
    (root / "shared" / "tooling" / "optdemo").mkdir()
    (root / "shared" / "tooling" / "optdemo" / "benchmark.py").write_text(DECLARATION, encoding="utf-8")
    cases = root / "frozen_cases" / "optdemo" / "v1"
    cases.mkdir(parents=True)
    (cases / "cases.json").write_text(json.dumps(CASES), encoding="utf-8")
    previous = os.environ.get("HALLUBENCH_ROOT")
    os.environ["HALLUBENCH_ROOT"] = str(root)
    try:
        assert main(["build", "optdemo"]) == 0
    finally:
        os.environ.pop("HALLUBENCH_ROOT") if previous is None else os.environ.update(HALLUBENCH_ROOT=previous)
    return root


def _replies(messages: list[dict[str, Any]]) -> str:
    return "Apple." if "'apple'" in messages[-1]["content"] else "river"


@pytest.fixture(scope="module")
def runs(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    run_like_kaggle(checkout / "tasks" / "optdemo_v1.py", out, _replies, env={ENV_RUN_OPTIONS: '{"match": "exact"}'})
    return out


def _rows(runs: Path) -> dict[str, dict[str, Any]]:
    (parent,) = runs.glob("optdemo-v1-*.run.json")
    data = json.loads(parent.read_text())
    return {sub["results"][0]["dictResult"]["case_id"]: sub["results"][0]["dictResult"] for sub in data["subruns"]}


def _rescore(checkout: Path, runs: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> int:
    monkeypatch.setenv("HALLUBENCH_ROOT", str(checkout))
    return main(["rescore", str(runs), "--task", str(checkout / "tasks" / "optdemo_v1.py"), "--quiet", *extra])


def test_the_option_reaches_play_and_every_row_records_it(runs: Path) -> None:
    rows = _rows(runs)
    assert {case: row["run_options"] for case, row in rows.items()} == {
        "w-apple": {"match": "exact"},
        "w-river": {"match": "exact"},
    }
    assert rows["w-apple"]["verdict"] == "fail" and rows["w-river"]["verdict"] == "pass"  # "Apple." is not exact


def test_a_hosted_run_uses_the_default(checkout: Path, tmp_path: Path) -> None:
    run_like_kaggle(checkout / "tasks" / "optdemo_v1.py", tmp_path, _replies)
    rows = _rows(tmp_path)
    assert rows["w-apple"]["run_options"] == {"match": "contains"} and rows["w-apple"]["verdict"] == "pass"


def test_rescore_replays_each_row_under_the_option_it_recorded(
    checkout: Path, runs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _rescore(checkout, runs, monkeypatch) == 0, capsys.readouterr().err


def test_rescore_option_scores_the_same_replies_another_way(
    checkout: Path, runs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _rescore(checkout, runs, monkeypatch, "--option", "match=contains") == 4
    scores = {line.split()[3]: line for line in capsys.readouterr().err.splitlines() if line.startswith("SCORE")}
    assert "verdict: re-scored 'pass' vs hosted 'fail'" in scores["w-apple"]
    assert "run_options.match: re-scored 'contains' vs hosted 'exact'" in scores["w-river"]
    assert "verdict" not in scores["w-river"]


def test_an_option_the_version_does_not_declare_is_refused(
    checkout: Path, runs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _rescore(checkout, runs, monkeypatch, "--option", "nosuch=1") == 2
    assert "optdemo/v1 has no run option nosuch (it declares: match)" in capsys.readouterr().err
    env = {**os.environ, ENV_RUN_OPTIONS: '{"nosuch": "1"}', "MODEL_PROXY_URL": "http://127.0.0.1:9/v1"}
    done = subprocess.run(
        [sys.executable, str(checkout / "tasks" / "optdemo_v1.py")], capture_output=True, text=True, env=env
    )
    assert done.returncode != 0 and "optdemo/v1 has no run option nosuch (it has: match)" in done.stderr
