"""`hallubench rescore` reading files one at a time: progress, unreadable inputs, unknown tasks."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from hallubench.tooling.cli import main
from hallubench.tooling.rescore.progress import QUIET_BELOW_FILES, FileProgress

SYNTHETIC = Path(__file__).parent / "data" / "kaggle_runs" / "synthetic_features.run.json"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_line_per_tenth_of_the_files() -> None:
    stream = io.StringIO()
    progress = FileProgress(25, stream)
    for _ in range(25):
        progress.advance(rows=3)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert 5 <= len(lines) <= 10
    assert lines[-1].startswith("rescore: 25/25 files, 75 rows")
    assert "\r" not in stream.getvalue()


def test_a_log_gets_nothing_for_a_handful_of_files() -> None:
    stream = io.StringIO()
    progress = FileProgress(QUIET_BELOW_FILES - 1, stream)
    for _ in range(QUIET_BELOW_FILES - 1):
        progress.advance(rows=1)
    progress.close()
    assert stream.getvalue() == ""


def test_a_terminal_line_is_rewritten_in_place_and_ended() -> None:
    stream = Terminal()
    progress = FileProgress(2, stream)
    progress.advance(rows=240)
    progress.advance(rows=240)
    progress.close()
    text = stream.getvalue()
    assert text.count("\r") == 2 and text.endswith("\n")
    assert "rescore: 2/2 files, 480 rows" in text


def test_disabled_progress_writes_nothing() -> None:
    stream = Terminal()
    progress = FileProgress(50, stream, enabled=False)
    progress.advance(rows=1)
    progress.close()
    assert stream.getvalue() == ""


def test_only_unreadable_files_exit_5_and_name_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.run.json").write_text("{", encoding="utf-8")
    (tmp_path / "b.run.json").write_text("", encoding="utf-8")
    assert main(["rescore", str(tmp_path)]) == 5
    err = capsys.readouterr().err
    assert "a.run.json" in err and "truncated?" in err
    assert "b.run.json" in err and "file is empty" in err
    assert "no run file could be read" in err


def test_a_task_nobody_builds_needs_task_and_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copyfile(SYNTHETIC, tmp_path / "x.run.json")
    (tmp_path / "y.run.json").write_text("[]", encoding="utf-8")
    assert main(["rescore", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no task file known for task(s) synthetic features; pass --task TASK" in err


def test_the_feed_hands_on_what_it_read_while_looking_for_the_task(tmp_path: Path) -> None:
    from hallubench.tooling.rescore.feed import RunFileFeed

    for name in ("a.run.json", "c.run.json", "d.run.json"):
        shutil.copyfile(SYNTHETIC, tmp_path / name)
    (tmp_path / "b.run.json").write_text("{", encoding="utf-8")
    feed = RunFileFeed([tmp_path], io.StringIO())
    known = {"synthetic features": tmp_path / "task.py"}
    assert feed.find_task(known) == tmp_path / "task.py"
    assert feed.loaded == 1 and feed.file_errors == []  # stopped at the first file that names a known task
    sources = [Path(source).name for _, source in feed.runs()]
    assert sources == ["a.run.json", "c.run.json", "d.run.json"]  # each once, in order
    assert feed.loaded == 3 and len(feed.file_errors) == 1 and "b.run.json" in feed.file_errors[0]
    feed.close()
