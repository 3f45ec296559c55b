"""One rule for what a task name on the command line means (run, push, download, rescore)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hallubench.tooling.cli import main
from hallubench.tooling.task_lookup import AmbiguousTask, MissingTaskFile, TaskNotFound, find_task

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("name", "protocol"),
    [
        ("hallumaze", "hallumaze/v3"),  # the newest of several
        ("hallumaze/v2", "hallumaze/v2"),
        ("hallumaze/v3", "hallumaze/v3"),
        ("hallumaze_v2", "hallumaze/v2"),
        ("hallumaze-v2", "hallumaze/v2"),
        ("hallucinated-packages", "hallucinated-packages/v9"),  # the newest of several
        ("hallucinated-packages/v6", "hallucinated-packages/v6"),
    ],
)
def test_protocol_spellings_find_their_task_file(name: str, protocol: str) -> None:
    found = find_task(name)
    assert found.spec is not None and found.spec.protocol_id == protocol
    assert found.require_built() == ROOT / found.spec.task_path


def test_a_path_is_taken_as_it_is(tmp_path: Path) -> None:
    task = tmp_path / "mine.py"
    task.write_text("pass\n", encoding="utf-8")
    assert find_task(str(task)).path == task and find_task(str(task)).spec is None
    with pytest.raises(MissingTaskFile, match=r"task file not found: .*nope\.py"):
        find_task(str(tmp_path / "nope.py"))


def test_several_versions_are_refused_where_one_is_needed() -> None:
    with pytest.raises(
        AmbiguousTask, match=r"hallucinated-packages/v6, hallucinated-packages/v7, hallucinated-packages/v8"
    ):
        find_task("hallucinated-packages", newest_of_several=False)


def test_an_unknown_name_lists_the_known_benchmarks() -> None:
    with pytest.raises(TaskNotFound, match=r"unknown task 'mazehallu'.*\(hallucinated-packages, hallumaze,") as raised:
        find_task("mazehallu")
    assert type(raised.value) is TaskNotFound  # not a missing file, not ambiguous: download may take it as a slug


def test_push_asks_for_one_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["push", "hallucinated-packages", "--dry-run"]) == 2
    assert (
        "matches several protocols (hallucinated-packages/v6, hallucinated-packages/v7, hallucinated-packages/v8, "
        "hallucinated-packages/v9)" in capsys.readouterr().err
    )


def test_rescore_takes_a_protocol_name_for_task(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.run.json").write_text("{", encoding="utf-8")
    assert main(["rescore", str(tmp_path), "--task", "hallumaze/v9"]) == 2
    assert "unknown task 'hallumaze/v9'" in capsys.readouterr().err
    assert main(["rescore", str(tmp_path), "--task", "hallumaze/v2"]) == 5  # found; the run file is broken
    assert "no run file could be read" in capsys.readouterr().err
