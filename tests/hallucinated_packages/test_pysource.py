"""Python source of newer versions read on 3.11: the token rewrite keeps names and line numbers,
and what still does not parse is kept statement by statement, with what its header binds."""

from __future__ import annotations

import ast

import pytest

from hallubench.hallucinated_packages.pysource import parse_source, rewrite_newer_syntax

NEWER = """\
import os
type Alias[T: (int, str)] = list[T] | dict[str, T]
def f[T: dict[str, int]](x: T) -> T: ...
class C[T = int](Base[T]):
    def m[U](self) -> U: ...
def reshape[
    AnyShapeT: (
        tuple[()],  # a comment inside the brackets
        tuple[int],
    )
](self, shape: AnyShapeT) -> None: ...
try:
    pass
except ValueError, TypeError:
    pass
x = t"hello {name}"
after = 1
"""


def _bound(module: ast.Module) -> dict[str, int]:
    names: dict[str, int] = {}
    for stmt in module.body:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            names[stmt.name] = stmt.lineno
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            names[stmt.targets[0].id] = stmt.lineno
    return names


def test_pep_695_758_750_are_rewritten_with_names_and_line_numbers_kept() -> None:
    with pytest.raises(SyntaxError):
        ast.parse(NEWER)
    parsed = parse_source(NEWER, "new.pyi")
    assert parsed.how == "rewritten" and parsed.unreadable == ()
    assert _bound(parsed.module) == {"Alias": 2, "f": 3, "C": 4, "reshape": 6, "x": 16, "after": 17}
    handler = next(s for s in parsed.module.body if isinstance(s, ast.Try)).handlers[0]
    assert isinstance(handler.type, ast.Tuple) and len(handler.type.elts) == 2


def test_the_interpreter_parser_comes_first() -> None:
    parsed = parse_source("x: int = 1\n")
    assert parsed.how == "parsed"
    assert rewrite_newer_syntax("type = 3\nprint(type)\n") == "type = 3\nprint(type)\n"  # `type` as a name


def test_what_still_fails_is_kept_statement_by_statement() -> None:
    source = (
        "import os\n"
        "def broken():\n"
        '    return f"{x["a"]}"\n'  # PEP 701 quote reuse: no rewrite for it on 3.11
        "class Half:\n"
        '    """doc\n'
        "text at column zero\n"
        '"""\n'
        "    def ok(self): ...\n"
        "    def bad(self):\n"
        '        return f"{y["b"]}"\n'
        "if True:\n"
        "    inner_ok = 1\n"
        '    inner_bad = f"{q["c"]}"\n'
        "else:\n"
        "    other = 2\n"
        'print(f"{v["e"]}")\n'
        "last = 3\n"
    )
    parsed = parse_source(source)
    assert parsed.how == "partial"
    half = next(s for s in parsed.module.body if isinstance(s, ast.ClassDef) and s.name == "Half")
    assert [m.name for m in half.body if isinstance(m, ast.FunctionDef)] == ["ok"]
    assert _bound(parsed.module) == {"Half": 4, "inner_ok": 12, "other": 15, "last": 17}
    lost = [(u.line, u.binds, u.kind, u.owner) for u in parsed.unreadable]
    assert lost == [
        (2, "broken", "function", None),
        (9, "bad", "function", "Half"),
        (13, "inner_bad", "value", None),
        (16, None, "statement", None),
    ]
    assert "could bind any name" in parsed.unreadable[-1].describe()


def test_untokenizable_text_is_one_unreadable_statement() -> None:
    parsed = parse_source('x = """never closed\n')
    assert parsed.how == "partial" and [(u.line, u.binds) for u in parsed.unreadable] == [(1, None)]
