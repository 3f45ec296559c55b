"""`hallubench rescore --scorer`: hosted runs of one version scored again by a newer version's scorer,
for the rows whose conversation that version sends identically (the demo protocol, v1 then v2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main

from spine_demo import built_demo_checkout
from support.hosted import run_like_kaggle

pytest.importorskip("kaggle_benchmarks")


def _replies(messages: list[dict[str, Any]]) -> str:
    last = [m for m in messages if m["role"] == "user"][-1]["content"]
    return "APPLE" if "capital letters" in last else "Sure: apple"  # v1 accepts it for w-apple, v2 does not


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """Task files of demo v1 and v2, and the run files of one hosted-style run of v1."""
    base = tmp_path_factory.mktemp("newer")
    root = built_demo_checkout(base / "repo", with_v2=True)
    runs = base / "runs"
    run_like_kaggle(root / "tasks" / "demo_v1.py", runs, _replies)
    return root / "tasks" / "demo_v1.py", root / "tasks" / "demo_v2.py", runs


def test_a_newer_scorer_rescores_the_rows_it_can_replay(
    demo: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    v1, v2, runs = demo
    report = tmp_path / "report.json"
    assert main(["rescore", str(runs), "--task", str(v1), "--scorer", str(v2), "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "every prompt verified and every score agrees" in out  # the hosted run, under v1
    assert "scored again with demo/v2" in out
    assert "stub/model-a: 2/3 rows scored, 1 verdict(s) changed; pass rate 0.333 -> 0.000" in out
    assert "NOT SCORED case w-0" in out and "demo/v2 sends a different conversation" in out

    data = json.loads(report.read_text())
    (summary,) = data["newer_scorer"]["summary"]
    assert summary["changed_cases"] == ["w-apple"]
    rows = {row["case_id"]: row for row in data["models"]["stub/model-a"]["rows"]}
    assert rows["w-apple"]["row"]["verdict"] == "pass" and rows["w-apple"]["newer_row"]["verdict"] == "fail"
    assert rows["w-apple"]["newer_row"]["protocol"] == "demo/v2"
    assert rows["w-0"]["newer_row"] is None and "message 2" in rows["w-0"]["newer_problem"]


def test_the_scorer_must_be_another_version_of_the_same_benchmark(
    demo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    v1, _, runs = demo
    assert main(["rescore", str(runs), "--task", str(v1), "--scorer", str(v1)]) == 2
    assert "is the frozen task file itself" in capsys.readouterr().err
    maze = Path(__file__).resolve().parents[1] / "tasks" / "hallumaze_v2.py"
    assert main(["rescore", str(runs), "--task", str(v1), "--scorer", str(maze)]) == 2
    assert "--scorer hallumaze/v2 is not a version of demo" in capsys.readouterr().err


def test_a_fixed_scorer_recovers_the_rows_a_crashed_one_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DESIGN: a newer version's scorer recovers what a crashed one lost, where the prompts verify."""

    def crash_on_river(root: Path) -> None:
        entry = root / "shared" / "demo" / "task_v1.py"
        text = entry.read_text(encoding="utf-8")
        scoring = "    first, second = converse(case, conv)\n    return verdict("
        assert scoring in text
        crash = '    if case["word"] == "river":\n        raise KeyError("a scorer bug")\n'
        entry.write_text(
            text.replace(scoring, scoring.replace("    return verdict(", crash + "    return verdict("), 1)
        )

    root = built_demo_checkout(tmp_path / "repo", with_v2=True, before_build=crash_on_river)
    runs = tmp_path / "runs"
    run_like_kaggle(root / "tasks" / "demo_v1.py", runs, _river)
    report = tmp_path / "report.json"
    v1, v2 = root / "tasks" / "demo_v1.py", root / "tasks" / "demo_v2.py"
    assert main(["rescore", str(runs), "--task", str(v1), "--scorer", str(v2), "--json", str(report)]) == 0
    assert "every prompt verified and every score agrees" in capsys.readouterr().out  # the crash, reproduced
    rows = {row["case_id"]: row for row in json.loads(report.read_text())["models"]["stub/model-a"]["rows"]}
    assert rows["w-river"]["row"]["verdict"] == "error" and "a scorer bug" in rows["w-river"]["row"]["detail"]
    assert rows["w-river"]["newer_row"]["verdict"] == "pass"
    assert rows["w-apple"]["newer_row"]["verdict"] == "fail"  # v2 scores every verified row, not only the lost ones


def _river(messages: list[dict[str, Any]]) -> str:
    return "RIVER" if "capital letters" in messages[-1]["content"] else "river"


def test_a_newer_version_that_asks_more_is_not_scored_on_a_complete_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def one_more_turn(root: Path) -> None:
        entry = root / "shared" / "demo" / "task_v2.py"
        text = entry.read_text(encoding="utf-8")
        turns = "    first, second = converse(case, conv)\n"
        assert turns in text
        entry.write_text(text.replace(turns, turns + '    conv.ask("And once more?")\n'), encoding="utf-8")

    root = built_demo_checkout(tmp_path / "repo", with_v2=True, before_build=one_more_turn)
    runs = tmp_path / "runs"
    run_like_kaggle(root / "tasks" / "demo_v1.py", runs, _river)
    v1, v2 = root / "tasks" / "demo_v1.py", root / "tasks" / "demo_v2.py"
    assert main(["rescore", str(runs), "--task", str(v1), "--scorer", str(v2)]) == 0
    out = capsys.readouterr().out
    assert "stub/model-a: 0/3 rows scored" in out
    assert out.count("demo/v2 sends more messages than the run holds") == 2  # w-0 already differs in its prompt
    assert "NOT SCORED case w-0" in out and "sends a different conversation" in out


def test_a_run_cut_short_by_failed_calls_is_an_error_row_for_the_newer_scorer_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = built_demo_checkout(tmp_path / "repo", with_v2=True)
    runs = tmp_path / "runs"
    run_like_kaggle(root / "tasks" / "demo_v1.py", runs, _river, faults=40)  # every model call fails
    report = tmp_path / "report.json"
    v1, v2 = root / "tasks" / "demo_v1.py", root / "tasks" / "demo_v2.py"
    assert main(["rescore", str(runs), "--task", str(v1), "--scorer", str(v2), "--json", str(report)]) == 0
    rows = {row["case_id"]: row for row in json.loads(report.read_text())["models"]["stub/model-a"]["rows"]}
    assert all(rows[case]["row"]["verdict"] == "error" for case in ("w-apple", "w-river", "w-0"))
    assert all(rows[case]["newer_row"]["verdict"] == "error" for case in ("w-apple", "w-river"))
    assert rows["w-0"]["newer_row"] is None  # its first prompt was logged, and v2's differs
