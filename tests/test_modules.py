"""`hallubench modules`: for every module of a benchmark's folder, the frozen versions that embed it, and what is
superseded (only older frozen versions use it) or gone from shared/ (only frozen task files hold it)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from hallubench.tooling.cli import main
from hallubench.tooling.module_use import ModuleUse, module_use
from hallubench.tooling.specs import load_registry

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def uses() -> dict[str, ModuleUse]:
    return {m.path: m for package in module_use(ROOT, load_registry(ROOT)) for m in package.modules}


def test_a_superseded_entry_is_flagged_and_the_newest_is_not(uses: dict[str, ModuleUse]) -> None:
    old, new = uses["hallumaze/task_v2.py"], uses["hallumaze/task_v3.py"]
    assert [e.protocol_id for e in old.frozen] == ["hallumaze/v2"] and old.superseded and old.current == ()
    assert [e.protocol_id for e in new.frozen] == ["hallumaze/v3"] and not new.superseded
    assert new.current == ("hallumaze/v3",)
    for path in ("misled_tests/sandbox.py", "misled_tests/task_v1.py", "hallucinated_packages/task_v7.py"):
        assert uses[path].superseded, path


def test_frozen_paths_map_to_the_renamed_folder_and_changed_bytes_are_marked(uses: dict[str, ModuleUse]) -> None:
    """Every version froze under maze/ (its task file says so); its modules count under hallumaze/ today."""
    trial = uses["hallumaze/trial.py"]
    assert [(e.protocol_id, e.changed_since) for e in trial.frozen] == [
        ("hallumaze/v2", False),
        ("hallumaze/v3", False),
    ]
    assert [(e.protocol_id, e.changed_since) for e in uses["hallumaze/task_v2.py"].frozen] == [("hallumaze/v2", True)]
    assert not any(path.startswith("maze/") for path in uses)


def test_a_module_only_frozen_files_hold_is_listed_apart(uses: dict[str, ModuleUse]) -> None:
    gone = uses["hallumaze/v11.py"]  # HalluMaze v1.1's scoring, original_scoring.py today
    assert not gone.in_shared and not gone.superseded and len(gone.frozen) == 2
    assert uses["hallumaze/original_scoring.py"].current == ("hallumaze/v3",), "a cases factory or entry uses it"
    assert uses["hallumaze/cases.py"].current == ("hallumaze/v3",) and uses["hallumaze/cases.py"].frozen == ()


def test_the_command_lists_and_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["modules", "maze"]) == 0  # an alias names the benchmark
    out = capsys.readouterr().out
    assert out.startswith("hallumaze (shared/hallumaze/; hallumaze): 25 modules, 1 superseded, 1 embedded by no")
    assert any(line.split()[:2] == ["task_v2.py", "v2*"] and "superseded" in line for line in out.splitlines())
    # result types no version embeds yet (the tooling reads them) are not "superseded": no version ever ran them
    assert any(line.split()[:2] == ["result_types.py", "-"] and "embedded by no version" in line
               for line in out.splitlines())  # fmt: skip
    assert "misled_tests" not in out
    assert main(["modules", "--superseded"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]
    assert "task_v2.py" in listed and "task_v3.py" not in listed and "sandbox.py" in listed


def test_an_unknown_benchmark_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["modules", "no-such-bench"]) == 2
    assert "unknown benchmark(s): no-such-bench" in capsys.readouterr().err


def _imported_modules(text: str) -> set[str]:
    """The `hallubench.x.y` modules a test file imports (`from hallubench.x import y` counts as both)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hallubench."):
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("hallubench."))
    return found


def test_no_test_imports_a_superseded_module_from_shared(uses: dict[str, ModuleUse]) -> None:
    """Today's copy of a superseded module is not what its versions ran: their tests load the frozen task file."""
    superseded = {
        "hallubench." + path.removesuffix(".py").replace("/", ".") for path, m in uses.items() if m.superseded
    }
    assert "hallubench.hallumaze.task_v2" in superseded & _imported_modules("from hallubench.hallumaze import task_v2")
    offenders = {
        str(path.relative_to(ROOT)): sorted(hits)
        for path in (ROOT / "tests").rglob("*.py")
        if "data" not in path.relative_to(ROOT).parts
        and (hits := _imported_modules(path.read_text(encoding="utf-8")) & superseded)
    }
    assert offenders == {}
