"""Every exception class hallubench defines sits under `HallubenchError`, and its docstring tree says where.

The classes are found by importing every module of the package, so a new class is caught the day it
is written; the tree in the docstring is compared both ways, so it cannot go stale.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import pkgutil
import re

import pytest

import hallubench
from hallubench.errors import HallubenchError

# Not yet under the root: none left; this set may only shrink.
NOT_YET_ROOTED: frozenset[str] = frozenset()
# Never under the root: the file runs as a script (`python -s -P sandbox_child.py`) with no package to import.
STANDALONE = frozenset({"misled_tests.sandbox_child.SandboxViolation"})

_TREE_LINE = re.compile(r"^(?P<indent> *)(?P<name>[\w.]+)(?: \(also (?P<also>[\w, ]+)\))?$")


def _qualified(cls: type) -> str:
    return f"{cls.__module__.removeprefix('hallubench.')}.{cls.__qualname__}"


def _exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined at the top level of a hallubench module, by qualified name."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(hallubench.__path__, "hallubench."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue  # importing it would run the command
        try:
            module = importlib.import_module(info.name)
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] == "hallubench":
                raise
            continue  # an optional extra (tree-sitter, kaggle, ...) is not installed here
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == info.name:
                found[_qualified(value)] = value
    return found


@pytest.fixture(scope="module")
def classes() -> dict[str, type[BaseException]]:
    return _exception_classes()


def _tree() -> dict[str, tuple[str, frozenset[str]]]:
    """The docstring tree: each class's parent in it and the built-ins it names as "also"."""
    doc = inspect.cleandoc(HallubenchError.__doc__ or "")
    lines = doc.splitlines()
    start = lines.index("HallubenchError")
    tree: dict[str, tuple[str, frozenset[str]]] = {}
    stack: list[tuple[int, str]] = [(0, "HallubenchError")]
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        match = _TREE_LINE.match(line)
        assert match, f"not a tree line: {line!r}"
        indent = len(match["indent"])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        assert stack, f"{line!r} is not indented under HallubenchError"
        also = frozenset(part.strip() for part in (match["also"] or "").split(",") if part.strip())
        assert match["name"] not in tree, f"{match['name']} is listed twice"
        tree[match["name"]] = (stack[-1][1], also)
        stack.append((indent, match["name"]))
    return tree


def test_every_exception_class_derives_from_the_root(classes: dict[str, type[BaseException]]) -> None:
    outside = {name for name, cls in classes.items() if not issubclass(cls, HallubenchError)}
    assert outside - NOT_YET_ROOTED - STANDALONE == set(), "derive these from hallubench.errors.HallubenchError"


def test_the_not_yet_rooted_set_only_shrinks(classes: dict[str, type[BaseException]]) -> None:
    rooted = {name for name, cls in classes.items() if issubclass(cls, HallubenchError)}
    assert rooted & NOT_YET_ROOTED == set(), "these are under the root now: delete them from NOT_YET_ROOTED"
    assert set(classes) >= STANDALONE, "a standalone class is gone: delete it from STANDALONE"


def test_the_docstring_tree_is_the_class_tree(classes: dict[str, type[BaseException]]) -> None:
    rooted = {name: c for name, c in classes.items() if issubclass(c, HallubenchError) and c is not HallubenchError}
    tree = _tree()
    assert set(tree) - set(rooted) == set(), "the tree lists classes that no longer exist"
    assert set(rooted) - set(tree) == set(), "add these to the tree in HallubenchError's docstring"
    for name, cls in rooted.items():
        parent_in_tree, also = tree[name]
        nearest = next(base for base in cls.__mro__[1:] if base is HallubenchError or _qualified(base) in tree)
        expected_parent = "HallubenchError" if nearest is HallubenchError else _qualified(nearest)
        assert parent_in_tree == expected_parent, f"{name} belongs under {expected_parent}"
        builtin_bases = {base.__name__ for base in cls.__bases__ if getattr(builtins, base.__name__, None) is base}
        assert also == builtin_bases, f"{name}: the tree says also {sorted(also)}, its bases {sorted(builtin_bases)}"


def test_a_builtin_second_base_still_catches_as_the_builtin() -> None:
    """Callers that catch ValueError or OSError keep working: the root was added, nothing taken away."""
    from hallubench.confine.errors import ConfinementError
    from hallubench.tooling.lockfile import LockError

    with pytest.raises(OSError):
        raise ConfinementError("landlock", "not offered by this kernel")
    with pytest.raises(ValueError):
        raise LockError("bad lock")
    with pytest.raises(HallubenchError):
        raise ConfinementError("seccomp", "refused")
