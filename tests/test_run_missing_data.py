"""`hallubench run` of a task whose data cannot be loaded says so before anything starts, and how to provide it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hallubench.tooling.cli import main

pytest.importorskip("kaggle_benchmarks")


def test_a_run_without_its_data_is_bad_usage_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HALLUBENCH_HUMANEVALPACK", str(tmp_path / "missing.jsonl"))
    out = tmp_path / "run"
    code = main(
        [
            "run",
            "misled-tests",
            "--limit",
            "1",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model-name",
            "m",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2, err
    assert "cannot start" in err and "set HALLUBENCH_HUMANEVALPACK=" in err
    assert "task file failed" not in err and not out.exists()  # nothing ran, nothing was written
