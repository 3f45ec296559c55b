"""verify says "verified" only when it is true: one lock entry per protocol, history read without replace
objects or grafts, the freezing commit's own message, tags at their freezing commits, line endings named, and
hosted run files as an anchor outside the history."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hallubench.hashing import sha256_bytes
from hallubench.tooling.cli import main
from hallubench.tooling.lockfile import LockError, parse_lock
from hallubench.tooling.taskfile.reader import TaskFileError, read_task_file

LOCK = Path("frozen_cases") / "protocols.lock"
MAZE = "hallumaze/v2"
MAZE_TASK = Path("tasks") / "hallumaze_v2.py"


def _git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env)
    return done.stdout


def _commit_all(root: Path, message: str) -> str:
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", message)
    return _git(root, "rev-parse", "HEAD").strip()


def _verify(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["verify", *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _lock_text(root: Path) -> str:
    return (root / LOCK).read_text(encoding="utf-8")


def _changed_task(root: Path) -> bytes:
    changed = (root / MAZE_TASK).read_bytes().replace(b"never edited by hand", b"never edited by Hand", 1)
    assert changed != (root / MAZE_TASK).read_bytes()
    return changed


def test_a_second_entry_for_a_frozen_protocol_is_refused_everywhere(
    scratch_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(_lock_text(scratch_repo))
    data["protocols"]["hallumaze/v2 "] = dict(data["protocols"][MAZE], task_sha256="0" * 64)
    (scratch_repo / LOCK).write_text(json.dumps(data, indent=2), encoding="utf-8")
    _commit_all(scratch_repo, "another maze entry")
    code, out, err = _verify(capsys)
    assert code == 1 and "verified" not in out
    assert "'hallumaze/v2 ' is not a protocol id" in err
    capsys.readouterr()
    assert main(["freeze", "--restore-tags"]) == 1
    assert "no tag restored" in capsys.readouterr().err
    assert _git(scratch_repo, "tag", "-l") == ""


def test_an_entry_that_pins_another_protocols_file_is_refused(scratch_repo: Path) -> None:
    data = json.loads(_lock_text(scratch_repo))
    data["protocols"]["hallumaze/v3"] = dict(data["protocols"][MAZE], protocol="hallumaze/v3", tag="hallumaze/v3")
    with pytest.raises(LockError, match=r"pins 'tasks/hallumaze_v2\.py', not its own 'tasks/hallumaze_v3\.py'"):
        parse_lock(json.dumps(data).encode())


def test_a_key_written_twice_is_an_error_not_the_last_copy(
    scratch_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _lock_text(scratch_repo)
    data = json.loads(text)
    entry = json.dumps(data["protocols"][MAZE])
    doubled = text.replace('"protocols": {', '"protocols": {\n    "' + MAZE + '": ' + entry + ",", 1)
    (scratch_repo / LOCK).write_text(doubled, encoding="utf-8")
    code, _, err = _verify(capsys)
    assert code == 1 and "appears twice" in err


def test_a_replaced_task_blob_is_seen_through_and_named(scratch_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    changed = _changed_task(scratch_repo)
    original = _git(scratch_repo, "rev-parse", f"HEAD:{MAZE_TASK}").strip()
    replacement = (
        subprocess.run(
            ["git", "-C", str(scratch_repo), "hash-object", "-w", "--stdin"],
            input=changed,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    _git(scratch_repo, "replace", original, replacement)
    (scratch_repo / MAZE_TASK).write_bytes(changed)  # the checkout agrees with the replaced history
    code, out, err = _verify(capsys)
    assert code == 1 and f"{MAZE}: verified" not in out
    assert "replace ref(s)" in err and "git replace -d" in err
    assert f"{MAZE_TASK}: sha256" in err  # the bytes on disk, judged against the genuine history


def test_grafts_are_named(scratch_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _git(scratch_repo, "commit", "-q", "--allow-empty", "-m", "later")
    head = _git(scratch_repo, "rev-parse", "HEAD").strip()
    (scratch_repo / ".git" / "info").mkdir(exist_ok=True)
    (scratch_repo / ".git" / "info" / "grafts").write_text(f"{head}\n", encoding="ascii")
    code, _, err = _verify(capsys)
    assert code == 1 and "grafts file" in err


def test_a_history_rewritten_from_the_freeze_on_is_caught_by_the_freezing_message(
    scratch_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rewrite the one freezing commit: a changed task file and a lock entry to match, the message kept."""
    changed = _changed_task(scratch_repo)
    (scratch_repo / MAZE_TASK).write_bytes(changed)
    data = json.loads(_lock_text(scratch_repo))
    data["protocols"][MAZE]["task_sha256"] = sha256_bytes(changed)
    (scratch_repo / LOCK).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    _git(scratch_repo, "add", "-A")
    _git(scratch_repo, "commit", "-q", "--amend", "--no-edit")  # same message, other content: no later commit
    code, out, err = _verify(capsys)
    assert code == 1 and f"{MAZE}: verified" not in out
    assert "does not record the locked sha256" in err and "rewritten" in err


def test_a_tag_elsewhere_than_the_freezing_commit_is_a_problem_not_checked(
    scratch_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["freeze", "--restore-tags"]) == 0
    later = _git(scratch_repo, "commit", "-q", "--allow-empty", "-m", "later") or _git(
        scratch_repo, "rev-parse", "HEAD"
    )
    _git(scratch_repo, "tag", "-d", MAZE)
    message = _git(scratch_repo, "tag", "-l", "--format=%(contents)", "hallumaze/v3")
    _git(scratch_repo, "tag", "-a", MAZE, "-m", message.replace("hallumaze/v3", MAZE), later.strip())
    code, out, err = _verify(capsys)
    assert code == 1 and f"tag {MAZE} checked" not in out
    assert f"tag {MAZE} points at" in err and "not at the freezing commit" in err


def test_crlf_line_endings_are_named_by_verify_and_refused_by_the_reader(
    scratch_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = scratch_repo / MAZE_TASK
    task.write_bytes(task.read_bytes().replace(b"\n", b"\r\n"))
    code, _, err = _verify(capsys)
    assert code == 1 and "only in its line endings (CRLF)" in err and "core.autocrlf" in err
    with pytest.raises(TaskFileError, match="line endings were converted to CRLF"):
        read_task_file(task)


def test_the_report_says_what_anchors_each_freeze(scratch_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _verify(capsys)
    assert code == 0
    line = next(line for line in out.splitlines() if line.startswith(f"{MAZE}: verified"))
    payload = json.loads(_lock_text(scratch_repo))["protocols"][MAZE]["payload_sha256"]
    assert f"payload {payload}" in line and "outside anchors: none given" in line
    assert "History alone cannot prove it was not rewritten" in out and "verify --runs" in out


def _run_file(root: Path, out: Path, payload: str) -> Path:
    """A loose row run file of hallumaze/v2 whose row names `payload`."""
    row = {"protocol": MAZE, "payload_sha256": payload, "case_id": "x", "verdict": "pass"}
    data = {
        "taskVersion": {"name": "hallumaze_v2_row"},
        "modelVersion": {"slug": "m"},
        "state": "BENCHMARK_TASK_RUN_STATE_COMPLETED",
        "conversations": [],
        "results": [{"type": "AGGREGATED", "dictResult": row}],
    }
    path = out / f"row-{payload[:6]}.run.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_hosted_run_files_anchor_a_freeze_and_catch_another_payload(
    scratch_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = json.loads(_lock_text(scratch_repo))["protocols"][MAZE]["payload_sha256"]
    runs = tmp_path / "runs"
    runs.mkdir()
    _run_file(scratch_repo, runs, locked)
    code, out, err = _verify(capsys, "--runs", str(runs))
    assert code == 0, err
    assert f"{MAZE}: verified" in out and "1 hosted row(s) in 1 run file(s) ran the locked payload" in out
    _run_file(scratch_repo, runs, "f" * 64)
    code, out, err = _verify(capsys, "--runs", str(runs))
    assert code == 1 and f"{MAZE}: verified" not in out
    assert "the hosted task is not the frozen file" in err
    code, _, err = _verify(capsys, "--runs", str(tmp_path / "nothing-here"))
    assert code == 1 and "nothing-here" in err
