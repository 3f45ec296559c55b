"""Which source files of `shared/` a protocol's entry module needs, found by following relative imports.

Embedded modules may only import hallubench code relatively; an absolute `hallubench`
import, or a module-level import of a third-party package outside the allowed set, is a
build error, because the task file must run on Kaggle where hallubench is not installed.
So is any import of `shared/tooling/`: what may be embedded and what never is are apart.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path, PurePosixPath

from ...errors import HallubenchError

ALLOWED_THIRD_PARTY = frozenset({"numpy", "httpx"})
TOOLING = "tooling"  # shared/tooling/: never embedded


class EmbeddingError(HallubenchError):
    """An entry module (or one it imports) breaks the embedding rules."""


def _package_of(path: PurePosixPath) -> PurePosixPath:
    return path.parent


def _resolve(root: Path, package: PurePosixPath, dotted: str) -> PurePosixPath | None:
    base = package.joinpath(*dotted.split(".")) if dotted else package
    as_module = base.with_suffix(".py") if dotted else None
    if as_module is not None and (root / as_module).is_file():
        return as_module
    as_package = base / "__init__.py"
    if (root / as_package).is_file():
        return as_package
    if (root / base).is_dir():
        return base / "__init__.py"  # namespace folder: synthesised empty by the loader
    return None


def _ancestor_inits(root: Path, path: PurePosixPath) -> list[PurePosixPath]:
    found: list[PurePosixPath] = []
    for parent in reversed(path.parents):
        init = parent / "__init__.py" if str(parent) != "." else PurePosixPath("__init__.py")
        if (root / init).is_file():
            found.append(init)
    return found


def _module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Imports executed when the module is imported (top level, including inside top-level try/if)."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.Try):
            stack.extend(node.body)
            stack.extend(node.orelse)
            stack.extend(node.finalbody)
            for handler in node.handlers:
                stack.extend(handler.body)
        elif isinstance(node, ast.If):
            stack.extend(node.body)
            stack.extend(node.orelse)
    return found


def _check_absolute(path: PurePosixPath, node: ast.Import | ast.ImportFrom, module_level: bool) -> None:
    names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
    for name in names:
        top = name.split(".")[0]
        if top == "hallubench":
            raise EmbeddingError(f"{path}:{node.lineno}: absolute import of {name!r}; use a relative import")
        if module_level and top not in sys.stdlib_module_names and top not in ALLOWED_THIRD_PARTY:
            raise EmbeddingError(
                f"{path}:{node.lineno}: module-level import of {name!r}, which the Kaggle image may lack; "
                "import it inside the function that needs it"
            )


def module_closure(root: Path, entry: PurePosixPath) -> list[PurePosixPath]:
    """Sorted paths (relative to `root`, the `shared/` folder) of every file the entry needs."""
    if not (root / entry).is_file():
        raise EmbeddingError(f"entry module {entry} does not exist under {root}")
    seen: set[PurePosixPath] = set()
    queue: list[PurePosixPath] = [entry, *_ancestor_inits(root, entry)]
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        if not (root / path).is_file():
            continue
        source = (root / path).read_text(encoding="utf-8")
        try:
            tree = ast.parse(source, filename=str(path))
        except SyntaxError as exc:
            raise EmbeddingError(f"{path}: syntax error: {exc}") from exc
        module_level = set(map(id, _module_level_imports(tree)))
        package = _package_of(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) or (isinstance(node, ast.ImportFrom) and node.level == 0):
                _check_absolute(path, node, id(node) in module_level)
                continue
            if not isinstance(node, ast.ImportFrom):
                continue
            base = package
            for _ in range(node.level - 1):
                if base == PurePosixPath("."):
                    raise EmbeddingError(f"{path}:{node.lineno}: relative import goes above the hallubench package")
                base = base.parent
            target = _resolve(root, base, node.module or "")
            if target is None:
                raise EmbeddingError(f"{path}:{node.lineno}: cannot resolve relative import {node.module!r}")
            if target.parts[0] == TOOLING:
                raise EmbeddingError(
                    f"{path}:{node.lineno}: imports {target}, which is tooling (shared/{TOOLING}/ is never embedded "
                    "into a task file); move what the protocol needs out of tooling/"
                )
            queue.append(target)
            queue.extend(_ancestor_inits(root, target))
            for alias in node.names:
                sub = _resolve(root, base, f"{node.module}.{alias.name}" if node.module else alias.name)
                if sub is not None and (root / sub).is_file():
                    queue.append(sub)
    return sorted((p for p in seen if (root / p).is_file()), key=str)
