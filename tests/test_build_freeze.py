"""build, freeze and verify on a scratch checkout with the demo protocol."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hallubench.hashing import sha256_text
from hallubench.tooling.cli import main
from hallubench.tooling.taskfile.reader import TaskFileError, read_task_file

from spine_demo import install_demo


@pytest.fixture
def demo_repo(scratch_repo: Path) -> Path:
    install_demo(scratch_repo)
    return scratch_repo


def _task(root: Path) -> Path:
    return root / "tasks" / "demo_v1.py"


def test_build_writes_task_cases_and_goldens(demo_repo: Path) -> None:
    assert main(["build", "demo"]) == 0
    task = read_task_file(_task(demo_repo))
    assert task.protocol_id == "demo/v1"
    assert [case["id"] for case in task.cases] == ["w-apple", "w-river", "w-0"]
    shared = demo_repo / "shared"
    for path, text in task.modules.items():
        assert (shared / path).read_text(encoding="utf-8") == text, f"{path} not embedded byte-exact"
    assert {"demo/task_v1.py", "rows.py", "embedding.py", "checks.py", "hashing.py"} <= set(task.modules)
    goldens = (demo_repo / "frozen_cases" / "demo" / "v1" / "prompts.sha256.json").read_text()
    expected = sha256_text("Case w-river: reply with the single word 'river' and nothing else.")
    assert expected in goldens


def test_building_twice_gives_identical_bytes(demo_repo: Path) -> None:
    assert main(["build", "demo"]) == 0
    first = _task(demo_repo).read_bytes()
    _task(demo_repo).unlink()
    assert main(["build", "demo"]) == 0
    assert _task(demo_repo).read_bytes() == first


def test_build_check_detects_a_stale_task_file(demo_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "demo"]) == 0
    assert main(["build", "--check", "demo"]) == 0
    entry = demo_repo / "shared" / "demo" / "task_v1.py"
    entry.write_text(entry.read_text().replace("nothing else", "nothing more"), encoding="utf-8")
    capsys.readouterr()
    assert main(["build", "--check", "demo"]) == 1
    out = capsys.readouterr().out
    assert "stale tasks/demo_v1.py" in out
    assert "stale frozen_cases/demo/v1/prompts.sha256.json" in out


def test_an_edited_task_file_is_rejected_by_the_reader(demo_repo: Path) -> None:
    assert main(["build", "demo"]) == 0
    path = _task(demo_repo)
    path.write_text(path.read_text().replace("nothing else", "nothing Else"), encoding="utf-8")
    with pytest.raises(TaskFileError, match="edited after it was built"):
        read_task_file(path)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("import hallubench.hashing\n", "absolute import"),
        ("import pandas\n", "Kaggle image may lack"),
        ("from .missing_module import thing\n", "cannot resolve"),
        ("from ..tooling.specs import ProtocolSpec\n", "which is tooling"),
        ("def f():\n    from ..tooling.rescore import engine\n", "which is tooling"),
    ],
)
def test_embedding_rules_are_enforced(
    demo_repo: Path, capsys: pytest.CaptureFixture[str], line: str, message: str
) -> None:
    entry = demo_repo / "shared" / "demo" / "task_v1.py"
    entry.write_text(line + entry.read_text(), encoding="utf-8")
    assert main(["build", "demo"]) == 2
    assert message in capsys.readouterr().err


def test_freeze_locks_tags_and_verify_guards(demo_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "demo"]) == 0
    assert main(["freeze", "demo"]) == 0
    lock = (demo_repo / "frozen_cases" / "protocols.lock").read_text()
    task_sha = sha256_text(_task(demo_repo).read_text(encoding="utf-8"))
    assert task_sha in lock
    message = subprocess.run(
        ["git", "-C", str(demo_repo), "tag", "-l", "--format=%(contents)", "demo/v1"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert task_sha in message
    assert main(["verify"]) == 0
    capsys.readouterr()
    assert main(["build", "--check", "demo"]) == 0
    assert capsys.readouterr().out == "demo/v1: frozen, not rebuilt\n"
    # frozen protocols are never rebuilt, even when their sources change; the change is named
    entry = demo_repo / "shared" / "demo" / "task_v1.py"
    entry.write_text(entry.read_text().replace("nothing else", "nothing more"), encoding="utf-8")
    assert main(["build", "--check", "demo"]) == 0
    out = capsys.readouterr().out
    assert "demo/v1: frozen, not rebuilt; shared/ has changed 1 of its embedded modules since (demo/task_v1.py)" in out
    assert "only a new version ships the change" in out
    assert main(["freeze", "demo"]) == 2
    # one changed byte in the locked file fails verify and names the file
    path = _task(demo_repo)
    path.write_bytes(path.read_bytes().replace(b"never edited by hand", b"never edited by Hand"))
    capsys.readouterr()
    assert main(["verify"]) == 1
    assert "tasks/demo_v1.py" in capsys.readouterr().err


def test_verify_compares_with_the_tagged_commit(demo_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "demo"]) == 0
    assert main(["freeze", "demo"]) == 0
    # rewrite the file AND the lock consistently: only the tag still knows the original bytes
    path = _task(demo_repo)
    original = path.read_bytes()
    changed = original.replace(b"never edited by hand", b"never edited by Hand")
    path.write_bytes(changed)
    lock_path = demo_repo / "frozen_cases" / "protocols.lock"
    lock_path.write_text(
        lock_path.read_text().replace(sha256_text(original.decode()), sha256_text(changed.decode())),
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main(["verify"]) == 1
    assert "under tag demo/v1" in capsys.readouterr().err


def _declare(root: Path, **fields: str) -> None:
    declaration = root / "shared" / "tooling" / "demo" / "benchmark.py"
    text = declaration.read_text(encoding="utf-8")
    extra = "".join(f"{name}={value}, " for name, value in fields.items())
    declaration.write_text(text.replace('title="', f'{extra}title="', 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("entry_addition", "declared", "message"),
    [
        ("\n\ndef preflight(cases):\n    return {}\n", {}, "defines preflight() but the spec does not declare it"),
        ("", {"comparable": "True"}, "has no comparable() function"),
        ("", {"prepare": "True"}, "has no prepare() function"),
        ("\n\ndef prepare(cases):\n    return cases[1:]\n", {"prepare": "True"}, "must keep every case, in order"),
        (
            "",
            {"run_options": '(RunOption("url", "x", "where"),)'},
            "play() takes 2 positional argument(s), the contract says 3",
        ),
        (
            "\n\ndef render(case, extra):\n    return ''\n",
            {},
            "render() takes 2 positional argument(s), the contract says 1",
        ),
    ],
)
def test_the_entry_must_provide_exactly_what_its_spec_declares(
    demo_repo: Path, capsys: pytest.CaptureFixture[str], entry_addition: str, declared: dict[str, str], message: str
) -> None:
    entry = demo_repo / "shared" / "demo" / "task_v1.py"
    entry.write_text(entry.read_text(encoding="utf-8") + entry_addition, encoding="utf-8")
    _declare(demo_repo, **declared)
    declaration = demo_repo / "shared" / "tooling" / "demo" / "benchmark.py"
    declaration.write_text(
        declaration.read_text().replace("import Benchmark, ProtocolSpec", "import Benchmark, ProtocolSpec, RunOption")
    )
    assert main(["build", "demo"]) == 2
    assert message in capsys.readouterr().err
