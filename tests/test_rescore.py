"""End to end: build the demo protocol, run its task file under the real kaggle-benchmarks
against a loopback OpenAI-compatible stub (as Kaggle would, through MODEL_PROXY_URL), then
rescore the run files it wrote, intact and tampered with."""

from __future__ import annotations

import gc
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main
from hallubench.tooling.kaggle_runs import load_runs
from hallubench.tooling.rescore.engine import rescore_runs
from hallubench.tooling.taskfile.reader import read_task_file

from spine_demo import built_demo_checkout
from support.hosted import run_like_kaggle

pytest.importorskip("kaggle_benchmarks")

PARENT = "demo-v1-run_id_Run_1_stub_model-a.run.json"


def _echo(messages: list[dict[str, Any]]) -> str:
    last = [m for m in messages if m["role"] == "user"][-1]["content"]
    if "capital letters" in last:
        return "APPLE"
    return "apple"


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A built demo checkout and the run files of one run of its task file."""
    base = tmp_path_factory.mktemp("hosted")
    root = built_demo_checkout(base / "repo")
    runs = base / "runs"
    stub = run_like_kaggle(root / "tasks" / "demo_v1.py", runs, _echo)
    sent = [m for request in stub.chat_messages() for m in request if m["role"] == "user"]
    assert any("reply with the single word 'river'" in m["content"] for m in sent)
    return root / "tasks" / "demo_v1.py", runs


@pytest.fixture
def runs_copy(hosted: tuple[Path, Path], tmp_path: Path) -> Path:
    copy = tmp_path / "runs"
    shutil.copytree(hosted[1], copy)
    return copy


def _edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def test_hosted_runs_verify_and_rescore(hosted: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    task, runs = hosted
    assert main(["rescore", str(runs), "--task", str(task)]) == 0
    out = capsys.readouterr().out
    assert "3/3" in out and "every prompt verified and every score agrees" in out
    assert "0.333 (agrees)" in out


def test_the_frozen_protocols_share_of_the_time_is_measured_apart(hosted: tuple[Path, Path]) -> None:
    """`protocol_cpu_s` (what scripts/bench/rescore.py reports beside the total) is part of the whole."""
    task, runs = hosted
    loaded, errors = load_runs(runs)
    assert errors == []
    started = time.process_time()
    report = rescore_runs(read_task_file(task), [(item.run, str(item.path)) for item in loaded])
    total = time.process_time() - started
    assert len(report.rows) == 3
    assert 0 < report.protocol_cpu_s < total


def test_rescoring_leaves_the_garbage_collector_as_it_found_it(hosted: tuple[Path, Path]) -> None:
    """Rescore parks the results it keeps out of the collector's way (gc.freeze) only while it runs."""
    task, runs = hosted
    loaded, _ = load_runs(runs)
    pairs = [(item.run, str(item.path)) for item in loaded]
    assert gc.get_freeze_count() == 0
    assert len(rescore_runs(read_task_file(task), pairs).rows) == 3
    assert gc.get_freeze_count() == 0
    gc.freeze()  # a process that froze objects of its own keeps them frozen, and rescore leaves them be
    try:
        frozen = gc.get_freeze_count()
        assert len(rescore_runs(read_task_file(task), pairs).rows) == 3
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_one_changed_character_is_named(
    hosted: tuple[Path, Path], runs_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def change(data: dict[str, Any]) -> None:
        for sub in data["subruns"]:
            contents = sub["conversations"][0]["requests"][1]["contents"]
            if "river" in json.dumps(sub["results"]):
                contents[0]["parts"][0]["text"] = contents[0]["parts"][0]["text"].replace("capital", "Capital")

    _edit(runs_copy / PARENT, change)
    code = main(["rescore", str(runs_copy / PARENT), "--task", str(hosted[0])])
    out = capsys.readouterr().out
    assert code == 3
    assert "case w-river" in out
    assert "model call 2" in out
    assert "'… with the same word again, in Capital letters.'" in out


def test_a_changed_hosted_score_is_reported(
    hosted: tuple[Path, Path], runs_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def change(data: dict[str, Any]) -> None:
        row = data["subruns"][0]["results"][0]["dictResult"]
        row["verdict"] = "fail" if row["verdict"] == "pass" else "pass"

    _edit(runs_copy / PARENT, change)
    code = main(["rescore", str(runs_copy / PARENT), "--task", str(hosted[0])])
    out = capsys.readouterr().out
    assert code == 4
    assert "verdict: re-scored" in out


def test_a_truncated_file_is_reported_and_the_rest_still_rescored(
    hosted: tuple[Path, Path], runs_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row_file = next(runs_copy.glob("demo_v1_row-*w-river*.run.json"))
    row_file.write_text(row_file.read_text()[:500])
    code = main(["rescore", str(runs_copy), "--task", str(hosted[0])])
    out = capsys.readouterr().out
    assert code == 5
    assert "FILE" in out and row_file.name in out
    assert "3/3" in out  # the parent's embedded rows still verified


def test_runs_of_another_task_are_named_and_left_alone(
    hosted: tuple[Path, Path], runs_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    synthetic = Path(__file__).parent / "data" / "kaggle_runs" / "synthetic_features.run.json"
    shutil.copyfile(synthetic, runs_copy / "other.run.json")
    assert main(["rescore", str(runs_copy), "--task", str(hosted[0])]) == 0
    out = capsys.readouterr().out
    assert "runs of other tasks: 1" in out and "every prompt verified and every score agrees" in out
    assert "note: runs of other tasks (synthetic features) were left alone; rescore them with their own --task" in out


def test_loose_row_files_alone_verify(hosted: tuple[Path, Path], runs_copy: Path) -> None:
    (runs_copy / PARENT).unlink()
    assert main(["rescore", str(runs_copy), "--task", str(hosted[0])]) == 0


def test_download_layout_and_task_lookup(
    hosted: tuple[Path, Path], runs_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = runs_copy.parent / "download" / "demo-v1" / "1" / "stub-model-a" / "run-123"
    tree.mkdir(parents=True)
    shutil.copy(runs_copy / PARENT, tree / PARENT)
    monkeypatch.setenv("HALLUBENCH_ROOT", str(hosted[0].parents[1]))
    assert main(["rescore", str(runs_copy.parent / "download")]) == 0


def test_a_failed_model_call_is_an_error_row_that_still_verifies(
    hosted: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # openai retries a 500 twice: three faults make the first call of the first case fail for good
    run_like_kaggle(hosted[0], tmp_path / "faulty", _echo, faults=3)
    json_out = tmp_path / "report.json"
    assert main(["rescore", str(tmp_path / "faulty"), "--task", str(hosted[0]), "--json", str(json_out)]) == 0
    report = json.loads(json_out.read_text())
    rows = report["models"]["stub/model-a"]["rows"]
    errors = [r for r in rows if r["row"]["verdict"] == "error"]
    assert len(errors) == 1 and errors[0]["row"]["error_kind"] == "model_call"
    assert errors[0]["prompt_verified"] is True
    assert report["models"]["stub/model-a"]["metrics"]["metrics"]["errors"] == 1


def test_local_case_selection_runs_only_matching_cases(hosted: tuple[Path, Path], tmp_path: Path) -> None:
    stub = run_like_kaggle(hosted[0], tmp_path / "some", _echo, env={"HALLUBENCH_CASES": "w-r*,w-0"})
    first_prompts = [m["content"] for request in stub.chat_messages() for m in request[1:2]]
    assert sorted({p.split(":")[0] for p in first_prompts}) == ["Case w-0", "Case w-river"]
    assert main(["rescore", str(tmp_path / "some"), "--task", str(hosted[0])]) == 0


def test_undefined_rates_do_not_stop_kbench_from_storing_the_run(tmp_path: Path) -> None:
    """A NaN in a row or headline used to make kaggle-benchmarks drop the whole run file."""

    def undefined_rates(root: Path) -> None:
        entry = root / "shared" / "demo" / "task_v1.py"
        text = entry.read_text()
        chars = '"reply_chars": len(first) + len(second)'
        assert chars + "}" in text and "rate = passed / len(scored) if scored else 0.0" in text
        text = text.replace(chars + "}", chars + ', "ratio": float("nan")}')
        entry.write_text(text.replace("rate = passed / len(scored) if scored else 0.0", 'rate = float("nan")'))

    root = built_demo_checkout(tmp_path / "repo", before_build=undefined_rates)
    runs = tmp_path / "runs"
    run_like_kaggle(root / "tasks" / "demo_v1.py", runs, _echo)
    parent = json.loads((runs / PARENT).read_text())
    assert parent["results"][0]["numericResult"] == {}  # stored as 0.0
    assert parent["subruns"][0]["results"][0]["dictResult"]["scores"]["ratio"] is None
    assert main(["rescore", str(runs), "--task", str(root / "tasks" / "demo_v1.py")]) == 0
