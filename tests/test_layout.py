"""A benchmark is its folders: shared tooling names none, and every folder is named by the one convention.

The rescore engine and the report page serve every benchmark through the hooks it declares, so no
file of theirs may name one (not its name, its package or a command alias); each benchmark's
folders are its name with hyphens turned into underscores, and no module name reads like a
protocol version.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hallubench.tooling.specs import load_registry

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = load_registry(ROOT)
GENERIC = ("shared/tooling/report_html", "shared/tooling/rescore")


def _names() -> set[str]:
    """Every way a declared benchmark is named: its name, its package, its command aliases."""
    return {n.lower() for b in REGISTRY.benchmarks for n in (b.name, b.package, *b.cli_aliases)}


def _mentions(text: str, names: set[str]) -> list[str]:
    lowered = text.lower()
    return sorted(name for name in names if name in lowered)


def test_the_names_looked_for_are_the_declared_ones() -> None:
    assert {"hallumaze", "maze", "hallucinated-packages", "packages", "misled-tests", "misled"} <= _names()
    assert _mentions("a hallumaze row", _names()) == ["hallumaze", "maze"], "the check can fail"


@pytest.mark.parametrize("folder", GENERIC)
def test_shared_tooling_names_no_benchmark(folder: str) -> None:
    files = sorted(p for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    assert files, f"{folder} is empty"
    found = {
        str(path.relative_to(ROOT)): hits
        for path in files
        if (hits := _mentions(path.read_text(encoding="utf-8"), _names()))
    }
    assert found == {}, "these name a benchmark: move what they say into its folder and a hook it declares"


def test_each_benchmark_folder_is_named_after_a_benchmark_it_holds() -> None:
    packages = {b.package for b in REGISTRY.benchmarks}
    for package in packages:
        holders = [b.name for b in REGISTRY.benchmarks if b.package == package]
        assert package in {name.replace("-", "_") for name in holders}, (package, holders)
        for folder in (ROOT / "shared" / package, ROOT / "shared" / "tooling" / package, ROOT / "tests" / package):
            assert folder.is_dir(), folder


@pytest.mark.parametrize("package", sorted({b.package for b in REGISTRY.benchmarks}))
def test_no_module_name_reads_like_a_protocol_version(package: str) -> None:
    """`task_v3.py` is protocol v3's entry; `v11.py` (HalluMaze v1.1) would read as protocol v11."""
    modules = [p for p in (ROOT / "shared" / package).rglob("*.py") if "__pycache__" not in p.parts]
    misleading = [p.name for p in modules if re.fullmatch(r"v\d+\.py", p.name)]
    assert misleading == []
