"""The in-memory module loader that task files and rescore use."""

from __future__ import annotations

import sys

import pytest

from hallubench.embedding import EmbeddedModules

SOURCES = {
    "__init__.py": "ROOT = 'root'\n",
    "core.py": "VALUE = 41\n",
    "bench/task.py": "from ..core import VALUE\nfrom . import helper\n\nANSWER = VALUE + helper.ONE\n",
    "bench/helper.py": "ONE = 1\n",
}


def test_relative_imports_resolve_inside_the_chosen_package() -> None:
    finder = EmbeddedModules("_hb_test_pkg_a", SOURCES)
    try:
        task = finder.load("bench.task")
        assert task.ANSWER == 42
        assert task.__name__ == "_hb_test_pkg_a.bench.task"
        assert sys.modules["_hb_test_pkg_a"].ROOT == "root"
        assert finder.get_source("_hb_test_pkg_a.bench.helper") == "ONE = 1\n"
        assert finder.get_source("_hb_test_pkg_a.bench") == ""  # a folder without __init__: empty package
        assert finder.get_source("elsewhere") is None
    finally:
        finder.uninstall()
    assert not [name for name in sys.modules if name.startswith("_hb_test_pkg_a")]


def test_two_versions_of_the_same_module_stay_apart() -> None:
    old = EmbeddedModules("_hb_test_old", {**SOURCES, "core.py": "VALUE = 1\n"})
    new = EmbeddedModules("_hb_test_new", SOURCES)
    try:
        assert old.load("bench.task").ANSWER == 2
        assert new.load("bench.task").ANSWER == 42
    finally:
        old.uninstall()
        new.uninstall()


def test_tracebacks_name_the_embedded_file() -> None:
    finder = EmbeddedModules("_hb_test_tb", {"boom.py": "def f():\n    raise ValueError('x')\n"})
    try:
        module = finder.load("boom")
        with pytest.raises(ValueError) as info:
            module.f()
        assert "<_hb_test_tb/boom.py>" in str(info.traceback[-1].path)
    finally:
        finder.uninstall()
