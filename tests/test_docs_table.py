"""README.md's table of benchmarks and versions is the one the registry and the lock give, row for row."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hallubench.tooling.docs_table import BEGIN, END, SCRIPT, MarkersMissing, benchmark_table, with_table
from hallubench.tooling.lockfile import read_lock
from hallubench.tooling.specs import load_registry

ROOT = Path(__file__).resolve().parents[1]
FIX = f"run `.venv/bin/python {SCRIPT}` and commit README.md"


def _table(root: Path) -> str:
    return benchmark_table(load_registry(root), read_lock(root), root)


def test_the_readme_table_is_the_one_the_registry_gives() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert BEGIN in text and END in text, f"README.md lacks the benchmark table's markers; {FIX}"
    assert with_table(text, _table(ROOT)) == text, f"README.md's benchmark table differs from the registry: {FIX}"


def test_every_declared_version_has_a_row_saying_whether_it_is_frozen() -> None:
    registry, lock = load_registry(ROOT), read_lock(ROOT)
    rows = [line for line in _table(ROOT).splitlines()[2:]]
    assert len(rows) == len(registry.protocols)
    for spec in registry.protocols:
        (row,) = [line for line in rows if f"[`{spec.protocol_id}`]({spec.task_path})" in line]
        frozen = spec.protocol_id in lock.protocols
        assert ("| frozen" in row) == frozen and ("| not frozen" in row) == (not frozen), row
        if frozen:
            assert f"| {lock.protocols[spec.protocol_id].cases} |" in row
    for benchmark in registry.benchmarks:
        assert sum(f"[{benchmark.name}](shared/{benchmark.package}/README.md)" in row for row in rows) == 1


def test_the_table_replaces_only_what_stands_between_the_markers() -> None:
    text = f"intro\n{BEGIN}\nold table\n{END}\nafter\n"
    assert with_table(text, "| new |\n") == f"intro\n{BEGIN}\n| new |\n{END}\nafter\n"
    for broken in ("no markers", f"{END}\n{BEGIN}", f"{BEGIN}{BEGIN}{END}"):
        with pytest.raises(MarkersMissing):
            with_table(broken, "| new |\n")


def test_the_script_checks_and_writes(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / SCRIPT), "--check"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "up to date" in done.stdout
