"""`ast.parse` that is safe to call from several threads on CPython 3.11.

CPython 3.11's AST constructor keeps its recursion-depth counter in interpreter-wide state,
so two threads parsing at once can fail with `SystemError: AST constructor recursion depth
mismatch` (python/cpython gh-106905) on perfectly valid code. kaggle-benchmarks runs rows on
threads, and the misled-tests executor classifies on threads, so every parse of model-written
code goes through one lock. Embedded into task files: standard library only.
"""

from __future__ import annotations

import ast
import threading

_PARSE_LOCK = threading.Lock()


def parse_python(
    source: str, filename: str = "<unknown>", feature_version: int | tuple[int, int] | None = None
) -> ast.Module:
    """`ast.parse(source, filename, feature_version=...)`, one thread at a time."""
    with _PARSE_LOCK:
        return ast.parse(source, filename=filename, feature_version=feature_version)
