"""Python source of a newer version, read on this interpreter: `ast` plus what 3.12 and later added.

Published stubs adopt new syntax before the benchmark's interpreter does (numpy 2.x's
`__init__.pyi` uses PEP 695 `type X = ...` and `def f[T]()`), and a module that does not parse
leaves every name in it unverified. Three steps, each only when the one before failed:

1. the interpreter's own parser;
2. the same text rewritten token by token into 3.11 syntax that binds the same names: type
   parameter lists dropped (`def f[T]`, `class C[T]`), `type X[T] = v` read as `X = v`, PEP 758
   `except A, B:` parenthesised, PEP 750 t-strings read as plain strings. Line numbers are kept;
3. statement by statement: every statement that parses is kept, a class whose body does not
   parse keeps the members that do, and a statement that still does not parse is reported with
   the name its header binds (`def f`, `class C`, `X = ...`) when there is one, or as a
   statement that could bind anything.

The tokenizer is the interpreter's own pure-Python one, so no grammar is needed for versions
it does not know. Embedded: standard library only.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from dataclasses import dataclass
from typing import Any

from ..pyparse import parse_python

_NESTING = 4  # compound statements recovered inside compound statements, at most
_OPEN, _CLOSE = "([{", ")]}"
_T_STRING_PREFIXES = frozenset({"t", "T", "tr", "tR", "Tr", "TR", "rt", "rT", "Rt", "RT"})
_COMPOUND = frozenset({"if", "try", "with", "for", "while", "async", "match"})
_SOFT_BREAKS = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
_CLAUSES = frozenset({"else", "elif", "except", "finally"})


@dataclass(frozen=True)
class Unreadable:
    """A statement that no step could parse: where it is and, if its header says, what it binds."""

    line: int
    binds: str | None  # the name bound by `def NAME`, `class NAME`, `NAME = ...`; None: unknown
    kind: str  # "function" | "class" | "value" | "statement"
    owner: str | None = None  # the class whose body holds it; None at module level

    def describe(self) -> str:
        where = f"line {self.line}" + (f" in class {self.owner}" if self.owner else "")
        if self.binds is None:
            return f"{where} does not parse and could bind any name"
        return f"{where} does not parse ({self.kind} {self.binds} kept by name only)"


@dataclass(frozen=True)
class ParsedSource:
    """The module as far as it could be read, how it was read, and what was left out."""

    module: ast.Module
    how: str  # "parsed" | "rewritten" | "partial"
    unreadable: tuple[Unreadable, ...] = ()


def parse_source(text: str, filename: str = "<unknown>") -> ParsedSource:
    """Read `text` as well as this interpreter can; never raises SyntaxError.

    Published code is full of what this interpreter only warns about (invalid escape sequences
    in old releases); those warnings say nothing about the answer being scored, so they are muted.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return _parse_source(text, filename)


def _parse_source(text: str, filename: str) -> ParsedSource:
    try:
        return ParsedSource(parse_python(text, filename=filename), "parsed")
    except (SyntaxError, ValueError, RecursionError):
        pass
    rewritten = rewrite_newer_syntax(text)
    if rewritten is not None and rewritten != text:
        try:
            return ParsedSource(parse_python(rewritten, filename=filename), "rewritten")
        except (SyntaxError, ValueError, RecursionError):
            pass
    body, unreadable = _recover(rewritten if rewritten is not None else text, 1, owner=None, nesting=0)
    return ParsedSource(ast.Module(body=body, type_ignores=[]), "partial", tuple(unreadable))


# ---------------------------------------------------------------------- step 2: token rewrite
def _tokens(text: str) -> list[tokenize.TokenInfo] | None:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None


def _offsets(text: str) -> list[int]:
    starts = [0, 0]  # tokenize rows are 1-based
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _drop(
    text: str, tokens: list[tokenize.TokenInfo], index: int, start: int, end: int, keep: str, at: Any
) -> list[tuple[int, int, str]]:
    """text[start:end] replaced by `keep`; its line breaks go after the statement, so later lines keep their numbers."""
    breaks = text.count("\n", start, end)
    edits = [(start, end, keep)]
    if breaks:
        newline = next((t for t in tokens[index:] if t.type == tokenize.NEWLINE and at(t) >= end), None)
        if newline is not None:
            edits.append((at(newline, True), at(newline, True), "\n" * breaks))
    return edits


def _significant(tokens: list[tokenize.TokenInfo]) -> list[int]:
    return [i for i, t in enumerate(tokens) if t.type not in (tokenize.NL, tokenize.COMMENT)]


def _statement_starts(tokens: list[tokenize.TokenInfo], order: list[int]) -> set[int]:
    """Indexes of tokens that begin a simple statement (after NEWLINE, INDENT, DEDENT, `;` or a block `:`)."""
    starts: set[int] = set()
    previous: tokenize.TokenInfo | None = None
    depth = 0
    for index in order:
        token = tokens[index]
        if token.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE, tokenize.ENDMARKER):
            previous = token
            continue
        after_break = previous is None or previous.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
        if after_break or (previous is not None and previous.string == ";" and depth == 0):
            starts.add(index)
        if token.type == tokenize.OP and token.string in _OPEN:
            depth += 1
        elif token.type == tokenize.OP and token.string in _CLOSE:
            depth = max(0, depth - 1)
        previous = token
    return starts


def _matching(tokens: list[tokenize.TokenInfo], order: list[int], at: int) -> int | None:
    """Position in `order` of the bracket closing the one at position `at`."""
    depth = 0
    for position in range(at, len(order)):
        token = tokens[order[position]]
        if token.type == tokenize.OP and token.string in _OPEN:
            depth += 1
        elif token.type == tokenize.OP and token.string in _CLOSE:
            depth -= 1
            if depth == 0:
                return position
    return None


def rewrite_newer_syntax(text: str) -> str | None:
    """`text` with 3.12+ constructs rewritten as 3.11 syntax binding the same names; None if untokenizable."""
    tokens = _tokens(text)
    if tokens is None:
        return None
    offsets = _offsets(text)

    def at(token: tokenize.TokenInfo, end: bool = False) -> int:
        row, col = token.end if end else token.start
        return offsets[row] + col

    order = _significant(tokens)
    starts = _statement_starts(tokens, order)
    edits: list[tuple[int, int, str]] = []
    for position, index in enumerate(order):
        token = tokens[index]
        following = [tokens[i] for i in order[position + 1 : position + 3]]
        if token.type == tokenize.NAME and token.string == "type" and index in starts and len(following) == 2:
            name, after = following
            if name.type == tokenize.NAME and after.type == tokenize.OP and after.string in ("[", "="):
                end = at(name, end=True)
                if after.string == "[":
                    close = _matching(tokens, order, position + 2)
                    if close is None:
                        continue
                    end = at(tokens[order[close]], end=True)
                edits.extend(_drop(text, tokens, index, at(token), end, name.string, at))
        elif token.type == tokenize.NAME and token.string in ("def", "class") and len(following) == 2:
            name, bracket = following
            if name.type == tokenize.NAME and bracket.type == tokenize.OP and bracket.string == "[":
                close = _matching(tokens, order, position + 2)
                if close is not None:
                    end = at(tokens[order[close]], end=True)
                    edits.extend(_drop(text, tokens, index, at(bracket), end, "", at))
        elif token.type == tokenize.NAME and token.string == "except" and index in starts:
            edits.extend(_except_group(tokens, order, position, at))
        elif token.type == tokenize.NAME and token.string in _T_STRING_PREFIXES and following:
            string = following[0]
            if string.type == tokenize.STRING and string.start == token.end:
                edits.append((at(token), at(token, end=True), " " * len(token.string)))
    if not edits:
        return text
    out = text
    for start, end, replacement in sorted(edits, reverse=True):
        out = out[:start] + replacement + out[end:]
    return out


def _except_group(
    tokens: list[tokenize.TokenInfo], order: list[int], position: int, at: Any
) -> list[tuple[int, int, str]]:
    """PEP 758 `except A, B:` -> `except (A, B):` (an `as` clause keeps the old meaning and is left alone)."""
    first = position + 1
    if first < len(order) and tokens[order[first]].string == "*":
        first += 1
    depth, comma, colon = 0, False, None
    for scan in range(first, len(order)):
        token = tokens[order[scan]]
        if token.type == tokenize.OP and token.string in _OPEN:
            depth += 1
        elif token.type == tokenize.OP and token.string in _CLOSE:
            depth -= 1
        elif depth == 0 and token.type == tokenize.OP and token.string == ",":
            comma = True
        elif depth == 0 and token.type == tokenize.NAME and token.string == "as":
            return []
        elif depth == 0 and token.type == tokenize.OP and token.string == ":":
            colon = scan
            break
        elif token.type == tokenize.NEWLINE:
            return []
    if not comma or colon is None or colon == first:
        return []
    opening = at(tokens[order[first]])
    closing = at(tokens[order[colon]])
    return [(closing, closing, ")"), (opening, opening, "(")]


# ---------------------------------------------------------------------- step 3: statement by statement
def _recover(text: str, first_line: int, *, owner: str | None, nesting: int) -> tuple[list[ast.stmt], list[Unreadable]]:
    """Statements of a block (its lines at one indentation) that parse; the others described."""
    tokens = _tokens(text)
    if tokens is None:
        return [], [Unreadable(first_line, None, "statement", owner)]
    lines = text.splitlines(keepends=True)
    body: list[ast.stmt] = []
    unreadable: list[Unreadable] = []
    for start, end in _chunks(tokens):
        chunk = "".join(lines[start - 1 : end - 1])
        line = first_line + start - 1
        try:
            parsed = parse_python(chunk)
        except (SyntaxError, ValueError, RecursionError):
            stmts, lost = _salvage(chunk, line, owner=owner, nesting=nesting)
            body.extend(stmts)
            unreadable.extend(lost)
            continue
        for stmt in parsed.body:
            ast.increment_lineno(stmt, line - 1)
        body.extend(parsed.body)
    return body, unreadable


def _chunks(tokens: list[tokenize.TokenInfo]) -> list[tuple[int, int]]:
    """(first row, row after the last) of each top-level statement, decorators kept with their def."""
    depth = 0
    starts: list[int] = []
    at_line_start = True
    decorated = False
    for token in tokens:
        if token.type == tokenize.INDENT:
            depth += 1
            continue
        if token.type == tokenize.DEDENT:
            depth -= 1
            continue
        if token.type in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER):
            continue
        if token.type == tokenize.NEWLINE:
            at_line_start = True
            continue
        if at_line_start and depth == 0:
            continues = token.type == tokenize.NAME and token.string in _CLAUSES
            if not decorated and not continues:
                starts.append(token.start[0])
            decorated = token.type == tokenize.OP and token.string == "@"
        at_line_start = False
    last = tokens[-1].start[0] + 1 if tokens else 1
    return [(row, starts[i + 1] if i + 1 < len(starts) else last) for i, row in enumerate(starts)]


def _header(chunk: str) -> list[tokenize.TokenInfo]:
    """The significant tokens of the chunk's first logical line after its decorators."""
    out: list[tokenize.TokenInfo] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(chunk).readline):
            if token.type in _SOFT_BREAKS:
                continue
            if token.type == tokenize.NEWLINE:
                if out and out[0].string == "@":
                    out = []
                    continue
                break
            out.append(token)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def _salvage(chunk: str, line: int, *, owner: str | None, nesting: int) -> tuple[list[ast.stmt], list[Unreadable]]:
    header = _header(chunk)
    words = [t.string for t in header[:3]]
    if words[:1] == ["async"]:
        words = words[1:]
        header = header[1:]
    if len(header) >= 2 and words[0] == "def" and header[1].type == tokenize.NAME:
        return [], [Unreadable(line, header[1].string, "function", owner)]
    if len(header) >= 2 and words[0] == "class" and header[1].type == tokenize.NAME:
        return _salvage_class(chunk, line, header[1].string, owner=owner, nesting=nesting)
    if header and words[0] in _COMPOUND and nesting < _NESTING:
        body = _block_body(chunk)
        if body is not None:
            return _recover(body[0], line + body[1], owner=owner, nesting=nesting + 1)
    if len(header) >= 2 and header[0].type == tokenize.NAME and header[1].string in ("=", ":"):
        return [], [Unreadable(line, header[0].string, "value", owner)]
    return [], [Unreadable(line, None, "statement", owner)]


def _salvage_class(
    chunk: str, line: int, name: str, *, owner: str | None, nesting: int
) -> tuple[list[ast.stmt], list[Unreadable]]:
    """A class whose body does not parse: its readable members, and a note that it is incomplete."""
    body = _block_body(chunk) if nesting < _NESTING else None
    if body is None:
        return [], [Unreadable(line, name, "class", owner)]
    members, lost = _recover(body[0], line + body[1], owner=name, nesting=nesting + 1)
    node = ast.ClassDef(
        name=name, bases=[], keywords=[], body=members or [ast.Pass()], decorator_list=[], lineno=line, col_offset=0
    )
    return [node], lost


def _block_body(chunk: str) -> tuple[str, int] | None:
    """The clause bodies of a compound statement, dedented, and their row offset in the chunk.

    Rows after the header are kept except the clause headers (`else:`, `except E:`, ...) at the
    statement's own indentation; rows inside multi-line strings are kept as they are.
    """
    tokens = _tokens(chunk)
    if tokens is None:
        return None
    lines = chunk.splitlines(keepends=True)
    header_rows = _header_rows(tokens)
    if header_rows is None or header_rows >= len(lines):
        return None
    base = _indent(lines[0])
    in_string: set[int] = set()
    clause_rows: set[int] = set()
    line_start = True
    clause = False
    for token in tokens:
        if token.type == tokenize.STRING and token.end[0] > token.start[0]:
            in_string.update(range(token.start[0] + 1, token.end[0] + 1))
        if token.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            continue
        if line_start:
            clause = token.type == tokenize.NAME and token.string in _CLAUSES and token.start[1] == base
            line_start = False
        if clause:
            clause_rows.update(range(token.start[0], token.end[0] + 1))
        if token.type == tokenize.NEWLINE:
            line_start = True
    kept = [
        (row, "\n" if row in clause_rows else ln) for row, ln in enumerate(lines[header_rows:], start=header_rows + 1)
    ]
    inner = [ln for row, ln in kept if ln.strip() and row not in in_string]
    if not inner:
        return None
    prefix = inner[0][: _indent(inner[0])]
    if len(prefix) <= base:
        return None
    text = "".join(ln if row in in_string else ln.removeprefix(prefix) for row, ln in kept)
    return text, header_rows


def _header_rows(tokens: list[tokenize.TokenInfo]) -> int | None:
    """How many physical lines the header spans: decorators, then up to the block's own `:`."""
    depth = 0
    decorator = False
    line_start = True
    for token in tokens:
        if token.type in _SOFT_BREAKS:
            continue
        if token.type == tokenize.NEWLINE:
            line_start = True
            decorator = False
            continue
        if line_start:
            decorator = token.type == tokenize.OP and token.string == "@"
            line_start = False
        if token.type == tokenize.OP and token.string in _OPEN:
            depth += 1
        elif token.type == tokenize.OP and token.string in _CLOSE:
            depth -= 1
        elif token.type == tokenize.OP and token.string == ":" and depth == 0 and not decorator:
            return int(token.end[0])
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))
