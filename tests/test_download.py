"""`hallubench download`: hosted runs fetched through the real kaggle 2.2.5 client from a
loopback fake of the Kaggle API, extracted into `<out>/<slug>/<version>/<model>/<run id>/`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hallubench.tooling.cli import main
from hallubench.tooling.download import format_summary, summarize_downloads

from support_kaggle.fake_kaggle_api import RUN_COMPLETED, RUN_ERRORED, RUN_RUNNING, FakeKaggleApi, make_zip
from support_kaggle.harness import kaggle_test_env, run_hallubench, running_fake

DATA = Path(__file__).parent / "data" / "publish"
GOOD_TASK = DATA / "good_task.py"
RUN_FILE = (DATA / "riddle_check.run.json").read_bytes()
TASK_FILE = (DATA / "riddle_check.task.json").read_bytes()


def _hosted_runs(fake: FakeKaggleApi) -> None:
    """Version 3 of riddle-check with a completed, an errored and a still-running run."""
    fake.add_task("riddle-check", version=3)
    fake.add_run(
        "riddle-check",
        101,
        "gemma-3-27b",
        RUN_COMPLETED,
        {"riddle_check.run.json": RUN_FILE, "riddle_check.task.json": TASK_FILE},
    )
    fake.add_run("riddle-check", 102, "claude-sonnet-4-6-default", RUN_ERRORED, {"stderr.txt": b"Traceback"})
    fake.add_run("riddle-check", 103, "gpt-5", RUN_RUNNING, {"riddle_check.run.json": b"{}"})


@pytest.mark.slow
def test_download_extracts_finished_runs_into_the_kaggle_layout(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    with running_fake() as fake:
        _hosted_runs(fake)
        result = run_hallubench(["download", str(GOOD_TASK), "-o", str(out)], kaggle_test_env(tmp_path, fake))
        methods = [call.method for call in fake.calls]
        downloads = [call.body for call in fake.calls_to("DownloadBenchmarkTaskRunOutput")]
    assert result.returncode == 0, result.stderr
    # the slug comes from the file's stored task; three runs arrive over two pages
    assert fake.calls_to("GetBenchmarkTask")[0].body == {"slug": {"taskSlug": "riddle-check"}}
    assert methods.count("ListBenchmarkTaskRuns") == 2
    assert downloads == [{"runId": 101}, {"runId": 102}]  # the running one is not fetched
    run_dir = out / "riddle-check" / "3" / "gemma-3-27b" / "101"
    assert (run_dir / "riddle_check.run.json").read_bytes() == RUN_FILE
    assert (run_dir / "riddle_check.task.json").read_bytes() == TASK_FILE
    assert (out / "riddle-check" / "3" / "claude-sonnet-4-6-default" / "102" / "stderr.txt").is_file()
    assert not (out / "riddle-check" / "3" / "gpt-5").exists()
    assert sorted(p.name for p in (out / "riddle-check" / "3").iterdir()) == [
        "claude-sonnet-4-6-default",
        "gemma-3-27b",
    ]
    assert not list(out.rglob("*.zip"))
    summary_lines = result.stdout.split("On disk under", 1)[1].splitlines()
    assert any(line.split()[:4] == ["3", "gemma-3-27b", "1", "1"] for line in summary_lines)
    assert any("no *.run.json in run 102" in line for line in summary_lines)
    assert f"hallubench rescore {out / 'riddle-check'} --task {GOOD_TASK}" in result.stdout


@pytest.mark.slow
def test_download_filters_models_as_kaggle_normalizes_them(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    with running_fake() as fake:
        _hosted_runs(fake)
        result = run_hallubench(
            ["download", "riddle-check", "-o", str(out), "-m", "google/gemma-3-27b"],
            kaggle_test_env(tmp_path, fake),
        )
        listed = fake.calls_to("ListBenchmarkTaskRuns")[0].body
    assert result.returncode == 0, result.stderr
    assert listed["modelVersionSlugs"] == ["gemma-3-27b"]
    assert [p.name for p in (out / "riddle-check" / "3").iterdir()] == ["gemma-3-27b"]
    assert f"hallubench rescore {out / 'riddle-check'}\n" in result.stdout  # no task file known


@pytest.mark.slow
def test_existing_runs_are_kept_unless_forced(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    run_file = out / "riddle-check" / "3" / "gemma-3-27b" / "101" / "riddle_check.run.json"
    with running_fake() as fake:
        _hosted_runs(fake)
        env = kaggle_test_env(tmp_path, fake)
        assert run_hallubench(["download", "riddle-check", "-o", str(out)], env).returncode == 0
        assert run_file.read_bytes() == RUN_FILE
        fake.runs[0].output_zip = make_zip({"riddle_check.run.json": b'{"rerun": true}'})
        again = run_hallubench(["download", "riddle-check", "-o", str(out)], env)
        assert again.returncode == 0, again.stderr
        assert "Cached" in again.stdout
        assert run_file.read_bytes() == RUN_FILE
        forced = run_hallubench(["download", "riddle-check", "-o", str(out), "--force"], env)
        assert forced.returncode == 0, forced.stderr
    assert run_file.read_bytes() == b'{"rerun": true}'
    assert not (run_file.parent / "riddle_check.task.json").exists()  # replaced, not merged


@pytest.mark.slow
def test_no_finished_runs_is_an_error_for_scripts(tmp_path: Path) -> None:
    with running_fake() as fake:
        fake.add_task("riddle-check", version=1)
        fake.add_run("riddle-check", 7, "gpt-5", RUN_RUNNING, {"x.run.json": b"{}"})
        result = run_hallubench(
            ["download", "riddle-check", "-o", str(tmp_path / "runs")], kaggle_test_env(tmp_path, fake)
        )
    assert result.returncode == 1
    assert "still in progress" in result.stdout
    assert "nothing to rescore" in result.stderr


@pytest.mark.slow
def test_unknown_task_reports_kaggles_answer(tmp_path: Path) -> None:
    with running_fake() as fake:
        result = run_hallubench(
            ["download", "no-such-task", "-o", str(tmp_path / "runs")], kaggle_test_env(tmp_path, fake)
        )
    assert result.returncode == 1
    assert "download of no-such-task failed" in result.stderr
    assert "not found" in result.stderr


def test_download_without_credentials_says_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in [name for name in os.environ if name.startswith("KAGGLE_")]:
        monkeypatch.delenv(name)
    assert main(["download", "riddle-check", "-o", str(tmp_path / "runs")]) == 3
    err = capsys.readouterr().err
    assert "cannot download: no Kaggle credentials found" in err
    assert "KAGGLE_API_TOKEN" in err
    assert not (tmp_path / "runs").exists()


def test_task_that_is_not_a_slug_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["download", "/", "-o", str(tmp_path)]) == 2
    assert "is not a task slug" in capsys.readouterr().err


def test_task_file_without_a_stored_task_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["download", str(DATA / "two_stored_tasks.py"), "-o", str(tmp_path)]) == 2
    assert "[several-stored-tasks]" in capsys.readouterr().err


def test_summary_counts_run_files_per_version_and_model(tmp_path: Path) -> None:
    layout = {
        "2/gemma-3-27b/11/riddle_check.run.json": "{}",
        "3/gemma-3-27b/21/riddle_check.run.json": "{}",
        "3/gemma-3-27b/21/nested/riddle_row.run.json": "{}",
        "3/gemma-3-27b/22/riddle_check.run.json": "{}",
        "3/gpt-5/23/stderr.txt": "boom",
    }
    for relative, text in layout.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    summary = summarize_downloads(tmp_path)
    assert [(s.version, s.model, s.runs, s.run_files, s.runs_without_run_file) for s in summary] == [
        ("2", "gemma-3-27b", 1, 1, ()),
        ("3", "gemma-3-27b", 2, 3, ()),
        ("3", "gpt-5", 1, 0, ("23",)),
    ]
    assert "no *.run.json in run 23" in format_summary(summary)[-1]
    assert summarize_downloads(tmp_path / "missing") == []
