"""Give duplicate test names distinct names before pytest collects the file.

Python keeps only the last of two `def test_x` in one scope, so pytest collects one and the
other disappears without a trace (a failing test can be hidden behind a passing one). Every
earlier definition of a name pytest would collect (`test*` functions, `Test*` classes, in the
module or in a class) is renamed `<name>_dupN`; the last keeps its name, so code that refers to
the name still finds the definition it found before. Each rename is recorded.
Embedded into task files: standard library only.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ..pyparse import parse_python


def _collectable(node: ast.stmt) -> str | None:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
        return node.name
    if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
        return node.name
    return None


def _scopes(tree: ast.Module) -> list[list[ast.stmt]]:
    scopes: list[list[ast.stmt]] = [tree.body]
    scopes.extend(node.body for node in ast.walk(tree) if isinstance(node, ast.ClassDef))
    return scopes


def rename_duplicates(source: str) -> tuple[str, list[dict[str, Any]]]:
    """(source with earlier duplicates renamed, the renames); unparsable source is returned as is."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return source, []
    lines = source.splitlines(keepends=True)
    renames: list[dict[str, Any]] = []
    taken = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    taken |= {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.ClassDef)}
    for scope in _scopes(tree):
        by_name: dict[str, list[ast.stmt]] = {}
        for node in scope:
            name = _collectable(node)
            if name is not None:
                by_name.setdefault(name, []).append(node)
        for name, nodes in by_name.items():
            for number, node in enumerate(nodes[:-1], start=1):
                new = f"{name}_dup{number}"
                while new in taken:
                    new += "_"
                taken.add(new)
                index = node.lineno - 1
                pattern = re.compile(rf"^(\s*(?:async\s+def|def|class)\s+){re.escape(name)}\b")
                edited, count = pattern.subn(rf"\g<1>{new}", lines[index], count=1)
                if count:
                    lines[index] = edited
                    renames.append({"line": node.lineno, "from": name, "to": new})
    return "".join(lines), renames
