"""Every reference in one model answer: code blocks, install lines, manifests, bare code files.

The answer is split into fenced blocks with `hallubench.extract.find_blocks`; each block goes to
the extractor for its language (an untagged block is tried as Python, then as JavaScript), and
install commands are read from every line, inside blocks or in prose. Modules the answer itself
defines (`utils.py` named in a heading, a file comment or a fence title; `pkg/__init__.py`) are
`local`, the largest false-positive source in earlier checkers. An answer without fences is
read as one code file in the requested language. Embedded: standard library only at module
level (tree-sitter loads lazily inside `extract_js`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..extract import CodeBlock, find_blocks
from .extract_js import ParserUnavailable, extract_js, extract_js_fallback
from .extract_python import extract_python
from .install_lines import (
    install_references,
    looks_like_requirements,
    package_json_references,
    pyproject_references,
    requirements_references,
)
from .references import Reference, UntypedUse

LANGS = ("python", "javascript", "auto")
_SHELL_TAGS = frozenset({"bash", "sh", "shell", "console", "zsh", "powershell", "ps", "cmd", "bat", "terminal"})
_TEXT_TAGS = frozenset({"text", "txt", "plaintext", "requirements", "requirements.txt", "pip", "ini", "cfg"})
_PY_FILE = re.compile(r"(?<![\w./-])((?:[A-Za-z_]\w*/)*[A-Za-z_]\w*)\.pyi?\b")
_JS_HEADER = re.compile(
    r"^\s*(?://|/\*|#)\s*(?:file(?:name)?\s*:\s*)?(?:\./)?((?:[\w.-]+/)*([\w-]+))\.(?:m?[jt]sx?|cjs)\b",
    re.IGNORECASE,
)
_JS_DIALECT = {"ts": "typescript", "mts": "typescript", "cts": "typescript", "tsx": "tsx", "jsx": "javascript"}


@dataclass(frozen=True)
class AnswerExtraction:
    """All references of one answer, and what could not be read."""

    references: tuple[Reference, ...]
    local_modules: tuple[str, ...]
    partially_parsed: bool
    js_parser_unavailable: bool = False
    problems: tuple[str, ...] = field(default=())
    blocks_read: int = 0
    untyped_uses: tuple[UntypedUse, ...] = ()  # uses on values of unknown origin (see `UntypedUse`)


def python_local_modules(text: str) -> set[str]:
    """Top-level names and dotted paths of every `*.py` file the answer names."""
    modules: set[str] = set()
    for match in _PY_FILE.finditer(text):
        parts = [p for p in match.group(1).split("/") if p]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        while parts and parts[0] in ("src", "app_src", "lib") and len(parts) > 1:
            modules.add(parts[0])
            parts = parts[1:]
        if parts:
            modules.add(parts[0])
            modules.add(".".join(parts))
    return modules


def _js_local_modules(blocks: list[CodeBlock], text_lines: list[str]) -> set[str]:
    """Bare names of JS files the answer writes (first-line file comments and fence titles)."""
    names: set[str] = set()
    for block in blocks:
        first = block.code.splitlines()[0] if block.code.strip() else ""
        opening = text_lines[block.start_line - 1] if 0 < block.start_line <= len(text_lines) else ""
        for candidate in (first, opening.replace("`", " ").replace("~", " ")):
            match = _JS_HEADER.match(candidate) or re.search(
                r"(?:title|file(?:name)?)=\"?((?:[\w.-]+/)*([\w-]+))\.(?:m?[jt]sx?|cjs)", candidate
            )
            if match:
                names.add(match.group(2))
                names.add(match.group(1))
    return names


def _prose_context(text_lines: list[str], block: CodeBlock, span: int = 3) -> str:
    start = max(0, block.start_line - 1 - span)
    return "\n".join(text_lines[start : block.start_line])


def _block_lines(block: CodeBlock) -> range:
    return range(block.start_line + 1, block.start_line + 1 + len(block.code.splitlines()))


def _guess_language(code: str) -> str | None:
    """'python', 'javascript' or None for an untagged block."""
    from ..extract import javascript_problem, python_problem

    if not python_problem(code):
        return "python"
    if not javascript_problem(code):
        return "javascript"
    if re.search(r"^\s*(?:import\s+[\w.]+|from\s+[\w.]+\s+import)\b", code, re.MULTILINE):
        return "python"
    if re.search(r"\brequire\(\s*['\"]|^\s*import\s.+\sfrom\s+['\"]", code, re.MULTILINE):
        return "javascript"
    return None


class _Reader:
    def __init__(self, text: str, lang: str) -> None:
        self.text = text
        self.lang = lang
        self.lines = text.splitlines()
        self.references: list[Reference] = []
        self.problems: list[str] = []
        self.partial = False
        self.js_unavailable = False
        self.untyped: list[UntypedUse] = []

    def read_python(self, code: str, offset: int, local: set[str]) -> None:
        result = extract_python(code, local_modules=local, line_offset=offset)
        self.references.extend(result.references)
        self.untyped.extend(result.untyped_uses)
        self.partial |= result.partially_parsed
        self.problems.extend(result.problems)

    def read_js(self, code: str, offset: int, dialect: str, local: set[str]) -> None:
        try:
            result = extract_js(code, dialect=dialect, line_offset=offset)
        except ParserUnavailable as exc:
            if not self.js_unavailable:
                self.problems.append(f"JavaScript read line by line (no tree-sitter): {exc}")
            self.js_unavailable = True
            result = extract_js_fallback(code, line_offset=offset)
        for reference in result.references:
            if reference.classification == "third-party" and reference.package in local:
                reference = reference.with_changes(classification="local", note="file defined in the answer")
            self.references.append(reference)
        self.untyped.extend(result.untyped_uses)
        self.partial |= result.partially_parsed
        self.problems.extend(result.problems)


def _wanted(language: str, lang: str) -> bool:
    return lang == "auto" or (lang == "python") == (language == "python")


def extract_answer(text: str, *, lang: str = "auto") -> AnswerExtraction:
    """References of an answer (markdown with fences, or a bare code file of language `lang`)."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, not {lang!r}")
    blocks = find_blocks(text)
    reader = _Reader(text, lang)
    py_local = python_local_modules(text)
    js_local = _js_local_modules(blocks, reader.lines)
    code_lines: set[int] = set()
    if not blocks:
        whole = lang if lang != "auto" else _guess_language(text)
        if whole == "python":
            reader.read_python(text, 0, py_local)
        elif whole == "javascript":
            reader.read_js(text, 0, "tsx", js_local)
        # otherwise prose without code: only its install commands count
    for block in blocks:
        code_lines.update(_block_lines(block))
        offset = block.start_line
        language: str | None = block.language
        tag = (block.tag or "").lower().strip("{}.")
        if language is None:
            if looks_like_requirements(block.code) or "requirements" in _prose_context(reader.lines, block):
                reader.references.extend(requirements_references(block.code, line_offset=offset))
                continue
            language = _guess_language(block.code)
        if language == "python":
            if _wanted("python", lang):
                reader.read_python(block.code, offset, py_local)
        elif language in ("javascript", "typescript"):
            if _wanted("javascript", lang):
                dialect = _JS_DIALECT.get(tag, "typescript" if language == "typescript" else "javascript")
                reader.read_js(block.code, offset, dialect, js_local)
        elif language == "json":
            reader.references.extend(package_json_references(block.code, line_offset=offset))
        elif language == "toml":
            reader.references.extend(pyproject_references(block.code, line_offset=offset))
        elif language in _TEXT_TAGS:
            context = _prose_context(reader.lines, block) + "\n" + tag
            if looks_like_requirements(block.code) or "requirements" in context:
                reader.references.extend(requirements_references(block.code, line_offset=offset))
        elif language not in _SHELL_TAGS:
            reader.problems.append(f"{block.label()}: language {language!r} not read")
    references = reader.references + install_references(text, code_lines=code_lines)
    if lang != "auto":
        wanted = "pypi" if lang == "python" else "npm"
        references = [r for r in references if r.ecosystem == wanted]
    return AnswerExtraction(
        references=tuple(references),
        local_modules=tuple(sorted(py_local | js_local)),
        partially_parsed=reader.partial,
        js_parser_unavailable=reader.js_unavailable,
        problems=tuple(reader.problems),
        blocks_read=len(blocks),
        untyped_uses=tuple(reader.untyped),
    )
