"""The freeze is anchored in history: verify finds each freezing commit, names every commit that broke a freeze,
refuses a shallow clone, and restores missing tags from history without ever moving one."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hallubench.hashing import sha256_bytes
from hallubench.tooling.cli import main

LOCK = Path("frozen_cases") / "protocols.lock"


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def _commit_all(root: Path, message: str) -> str:
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", message)
    return _git(root, "rev-parse", "HEAD").strip()


def _locked(root: Path) -> dict[str, dict[str, object]]:
    protocols: dict[str, dict[str, object]] = json.loads((root / LOCK).read_text(encoding="utf-8"))["protocols"]
    return protocols


def _write_lock(root: Path, protocols: dict[str, dict[str, object]]) -> None:
    data = {"format": 1, "protocols": protocols}
    (root / LOCK).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _verify(capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["verify"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _is_shallow(root: Path) -> bool:
    return _git(root, "rev-parse", "--is-shallow-repository").strip() == "true"


@pytest.fixture
def fresh_clone(repo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `git clone` of this repository, as a new user gets it: the history of the branch, no tags."""
    if _is_shallow(repo_root):
        pytest.skip("this checkout is a shallow clone: its own freezing commits are not here to clone")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-tags", str(repo_root), str(clone)], check=True, capture_output=True)
    _git(clone, "config", "user.email", "tests@hallubench.invalid")
    _git(clone, "config", "user.name", "hallubench tests")
    monkeypatch.setenv("HALLUBENCH_ROOT", str(clone))
    return clone


def _first_commit_mentioning(root: Path, protocol: str) -> str:
    """The oldest commit whose lock diff adds or removes the protocol's key (git's pickaxe, not verify's walk)."""
    found = _git(root, "log", "--reverse", "--format=%H", "-S", f'"{protocol}": {{', "--", str(LOCK)).split()
    return found[0]


def test_a_fresh_clone_verifies_from_history_and_reports_missing_tags(
    fresh_clone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _git(fresh_clone, "tag", "-l") == ""
    code, out, err = _verify(capsys)
    assert code == 0, err
    protocols = _locked(fresh_clone)
    assert len(protocols) >= 5
    for protocol in protocols:
        freezing = _first_commit_mentioning(fresh_clone, protocol)
        line = next(line for line in out.splitlines() if line.startswith(f"{protocol}: "))
        assert "verified" in line and f"frozen in commit {freezing[:10]}" in line, line
        assert f"tag {protocol} missing" in line, line
    assert "freeze --restore-tags" in out


def test_restoring_tags_creates_annotated_tags_at_the_freezing_commits_once(
    fresh_clone: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["freeze", "--restore-tags"]) == 0
    protocols = _locked(fresh_clone)
    tags = set(_git(fresh_clone, "tag", "-l").split())
    assert tags == {str(entry["tag"]) for entry in protocols.values()}
    objects = {}
    for protocol, entry in protocols.items():
        tag = str(entry["tag"])
        assert _git(fresh_clone, "cat-file", "-t", f"refs/tags/{tag}").strip() == "tag"  # annotated
        assert _git(fresh_clone, "rev-parse", f"{tag}^{{commit}}").strip() == _first_commit_mentioning(
            fresh_clone, protocol
        )
        message = _git(fresh_clone, "tag", "-l", "--format=%(contents)", tag)
        for key in ("task_sha256", "payload_sha256", "cases_sha256", "golden_sha256"):
            assert f"{key} {entry[key]}" in message
        objects[tag] = _git(fresh_clone, "rev-parse", f"refs/tags/{tag}").strip()
    code, out, err = _verify(capsys)
    assert code == 0, err
    assert out.count(" checked") == len(protocols) and "missing" not in out
    # idempotent: a second restore creates nothing and moves nothing
    capsys.readouterr()
    assert main(["freeze", "--restore-tags"]) == 0
    assert "created" not in capsys.readouterr().out
    assert {tag: _git(fresh_clone, "rev-parse", f"refs/tags/{tag}").strip() for tag in objects} == objects


def test_an_existing_tag_is_never_moved(scratch_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _git(scratch_repo, "commit", "-q", "--allow-empty", "-m", "later work")
    _git(scratch_repo, "tag", "-a", "hallumaze/v2", "-m", "made by hand", "HEAD")
    before = _git(scratch_repo, "rev-parse", "refs/tags/hallumaze/v2").strip()
    assert main(["freeze", "--restore-tags"]) == 0
    assert "hallumaze/v2 exists" in capsys.readouterr().out
    assert _git(scratch_repo, "rev-parse", "refs/tags/hallumaze/v2").strip() == before
    # ... and verify checks it as it is: its message does not carry the hash
    code, _, err = _verify(capsys)
    assert code == 1 and "tag hallumaze/v2 message does not carry the locked sha256" in err


def test_a_commit_that_edits_a_frozen_file_and_its_lock_entry_is_named(
    scratch_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = scratch_repo / "tasks" / "hallumaze_v2.py"
    edited = task.read_bytes().replace(b"never edited by hand", b"never edited by Hand", 1)
    task.write_bytes(edited)
    protocols = _locked(scratch_repo)
    protocols["hallumaze/v2"]["task_sha256"] = sha256_bytes(edited)
    _write_lock(scratch_repo, protocols)
    sha = _commit_all(scratch_repo, "tidy the maze task")
    code, out, err = _verify(capsys)
    assert code == 1
    assert f'commit {sha[:10]} ("tidy the maze task") changes its lock entry (task_sha256' in err
    assert f'commit {sha[:10]} ("tidy the maze task") changes tasks/hallumaze_v2.py after it was frozen' in err
    assert "hallumaze/v2: verified" not in out
    assert "hallucinated-packages/v7: verified" in out  # the others still verify and say so


def test_a_commit_that_deletes_a_lock_entry_is_named(scratch_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    protocols = _locked(scratch_repo)
    del protocols["misled-tests/v1"]
    _write_lock(scratch_repo, protocols)
    sha = _commit_all(scratch_repo, "drop an old version")
    code, _, err = _verify(capsys)
    assert code == 1
    assert f'misled-tests/v1: commit {sha[:10]} ("drop an old version") removes its lock entry' in err


def test_a_later_commit_may_not_touch_frozen_cases_even_if_a_still_later_one_restores_them(
    scratch_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = scratch_repo / "frozen_cases" / "hallumaze" / "v2" / "cases.json"
    original = cases.read_bytes()
    cases.write_bytes(original.replace(b'"id"', b'"id" ', 1))
    bad = _commit_all(scratch_repo, "reformat cases")
    cases.write_bytes(original)
    _commit_all(scratch_repo, "put them back")
    code, _, err = _verify(capsys)  # the files on disk match the lock again: only history tells
    assert code == 1
    assert f'commit {bad[:10]} ("reformat cases") changes frozen_cases/hallumaze/v2/cases.json' in err


def test_the_freezing_commit_must_hold_the_locked_bytes(scratch_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A lock entry committed before the file it pins (a freeze that did not commit the task file).
    task = scratch_repo / "tasks" / "hallumaze_v2.py"
    protocols = _locked(scratch_repo)
    entry = dict(
        protocols["hallumaze/v2"], protocol="hallumaze/v9", tag="hallumaze/v9", task_file="tasks/hallumaze_v9.py"
    )
    protocols["hallumaze/v9"] = entry
    shutil.copytree(
        scratch_repo / "frozen_cases" / "hallumaze" / "v2", scratch_repo / "frozen_cases" / "hallumaze" / "v9"
    )
    _write_lock(scratch_repo, protocols)
    freezing = _commit_all(scratch_repo, "lock v9")
    shutil.copy(task, scratch_repo / "tasks" / "hallumaze_v9.py")
    later = _commit_all(scratch_repo, "add the v9 file")
    code, _, err = _verify(capsys)
    assert code == 1
    assert f'the freezing commit {freezing[:10]} ("lock v9") does not contain tasks/hallumaze_v9.py' in err
    assert f'commit {later[:10]} ("add the v9 file") changes tasks/hallumaze_v9.py' in err


def test_a_merge_is_checked_against_each_parent(scratch_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = scratch_repo / "tasks" / "hallumaze_v2.py"
    original = task.read_bytes()
    _git(scratch_repo, "switch", "-q", "-c", "side")
    task.write_bytes(original + b"\n# side branch\n")
    _commit_all(scratch_repo, "side edit")
    _git(scratch_repo, "switch", "-q", "main")
    _git(scratch_repo, "commit", "-q", "--allow-empty", "-m", "main moves on")
    _git(scratch_repo, "merge", "-q", "--no-edit", "side")
    merge = _git(scratch_repo, "rev-parse", "HEAD").strip()
    code, _, err = _verify(capsys)
    assert code == 1
    assert "side edit" in err  # the branch commit that changed it
    assert f"commit {merge[:10]}" in err  # and the merge that brought it into main


def test_an_uncommitted_lock_entry_is_not_anchored(scratch_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    protocols = _locked(scratch_repo)
    entry = protocols.pop("hallumaze/v2")
    _write_lock(scratch_repo, protocols)
    _commit_all(scratch_repo, "forget the maze")  # (itself a violation, named)
    protocols["hallumaze/v2"] = entry
    _write_lock(scratch_repo, protocols)
    code, _, err = _verify(capsys)
    assert code == 1
    assert "hallumaze/v2: locked in the working tree but not committed" in err


def test_a_shallow_clone_is_an_error_that_says_what_is_needed(
    scratch_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _git(scratch_repo, "commit", "-q", "--allow-empty", "-m", "second")
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{scratch_repo}", str(shallow)], check=True, capture_output=True
    )
    monkeypatch.setenv("HALLUBENCH_ROOT", str(shallow))
    code, out, err = _verify(capsys)
    assert code == 2
    assert "shallow clone" in err and "git fetch --unshallow" in err
    assert "verified" not in out


def test_a_copy_without_git_is_an_error(
    scratch_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(scratch_repo, copy, ignore=shutil.ignore_patterns(".git"))
    monkeypatch.setenv("HALLUBENCH_ROOT", str(copy))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    code, out, err = _verify(capsys)
    assert code == 2 and "not a git checkout" in err and "verified" not in out
