"""`hallubench rescore --jobs N` gives the report `--jobs 1` gives, row for row and in the same order.

The run files are real (the demo task file run under kaggle-benchmarks against the loopback stub),
mixed the way a downloaded folder mixes them: several runs of two models, the row run files kbench
writes beside each parent run, a byte-identical copy, an edited copy (a conflict), a run of another
task, an unreadable file and a row whose prompt was changed. Every problem, count, conflict, row and
headline of the `--json` report must be the same for 1, 2 and 3 jobs (only timings may differ), and so
must the exit code and the printed report.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main

from spine_demo import built_demo_checkout
from support.hosted import run_like_kaggle
from support.run_copies import another_run

pytest.importorskip("kaggle_benchmarks")

PARENT = "demo-v1-run_id_Run_1_stub_model-a.run.json"
TIMING = re.compile(r"(_s|_seconds|_ms)$")


def _texts(row: dict[str, Any]) -> list[dict[str, Any]]:
    return [part for request in row["conversations"][0]["requests"] for c in request["contents"] for part in c["parts"]]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The demo task file and a folder of run files with every kind of copy and problem."""
    base = tmp_path_factory.mktemp("parallel")
    root = built_demo_checkout(base / "repo")
    hosted = base / "hosted"

    def replies(messages: list[dict[str, Any]]) -> str:
        return "APPLE" if "capital letters" in messages[-1]["content"] else "apple"

    run_like_kaggle(root / "tasks" / "demo_v1.py", hosted, replies)
    folder = base / "runs"
    folder.mkdir()
    parent = json.loads((hosted / PARENT).read_text())
    for path in sorted(hosted.glob("*.run.json")):  # the parent run and the row run files beside it
        (folder / path.name).write_bytes(path.read_bytes())
    for number in range(1, 7):
        model = "stub/model-b" if number % 2 else None
        (folder / f"run{number}.run.json").write_text(json.dumps(another_run(parent, number, model)))
    (folder / "same-as-run1.run.json").write_bytes((folder / "run1.run.json").read_bytes())
    edited = another_run(parent, 2)
    _texts(edited["subruns"][0])[2]["text"] = "Apple"
    (folder / "edited-run2.run.json").write_text(json.dumps(edited))
    changed_prompt = another_run(parent, 9)
    _texts(changed_prompt["subruns"][1])[1]["text"] += " "
    (folder / "changed-prompt.run.json").write_text(json.dumps(changed_prompt))
    other_task = another_run(parent, 10)
    other_task["taskVersion"]["name"] = "some-other-task"
    (folder / "other-task.run.json").write_text(json.dumps(other_task))
    (folder / "broken.run.json").write_text('{"taskVersion": ')
    return root / "tasks" / "demo_v1.py", folder


def _without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_timings(item) for key, item in value.items() if not TIMING.search(str(key))}
    if isinstance(value, list):
        return [_without_timings(item) for item in value]
    return value


def _rescore(task: Path, folder: Path, jobs: int, out: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    capsys.readouterr()
    report = out / f"jobs{jobs}.json"
    code = main(["rescore", str(folder), "--task", str(task), "--jobs", str(jobs), "--json", str(report)])
    printed = capsys.readouterr().out.replace(str(report), "REPORT")
    return code, printed, _without_timings(json.loads(report.read_text()))


def test_every_number_of_jobs_gives_the_one_process_report(
    mixed: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task, folder = mixed
    code, printed, report = _rescore(task, folder, 1, tmp_path, capsys)
    assert code not in (0, 2), "the folder holds problems the report must name"
    assert "CONFLICT" in printed and "broken.run.json" in printed and "some-other-task" in printed
    for jobs in (2, 3):
        assert _rescore(task, folder, jobs, tmp_path, capsys) == (code, printed, report)


def test_jobs_must_be_positive(mixed: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    task, folder = mixed
    assert main(["rescore", str(folder), "--task", str(task), "--jobs", "0"]) == 2
    assert "--jobs must be at least 1" in capsys.readouterr().err
