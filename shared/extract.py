"""Find the Python or JavaScript/TypeScript code in a model's reply, and say how it was found.

Benchmarks that run or inspect model-written code (misled-tests extracts pytest files,
hallucinated-packages reads imports) score whatever this module returns, so an extractor that
misses code silently scores a model 0: the known failures are a tag it does not know
(```` ```py ````, ```` ```js ````), a bare fence, or prose taken for code (inspect_ai #581,
can-ai-code #5, lm-eval-harness #3710). Every result therefore carries a `provenance` line
naming the blocks used and the rule that chose them.

Fences follow CommonMark: an opening line of 3+ backticks or 3+ tildes indented at most 3
spaces, an info string whose first word is the tag (a backtick fence's info string may not
contain a backtick), and a closing line of the same character at least as long, with nothing
but spaces after it. So a 4-backtick fence can hold ```` ``` ```` lines, and the first matching
closing line ends a block. Content lines lose up to as many leading spaces as the opening fence
was indented. CRLF and CR line ends are read as LF. A fence still open at the end of the reply
is a block with `closed=False` (usually a truncated reply), flagged in the provenance.
Not recognised: fences indented 4+ spaces (inside list items), indented code blocks, fences in
block quotes.

Policy of `extract_code(text, language)`, first rule that finds something wins:

1. **tagged**: blocks whose tag names the language (python: python, py, python3, py3;
   javascript: javascript, js, jsx, mjs, cjs, node, nodejs; typescript: typescript, ts, tsx,
   mts, cts; any case; `{.python}` and `python:file.py` decorations are read too), joined in
   order with a blank line between them.
2. **sibling-tagged** (javascript/typescript only): blocks tagged with the other of the two,
   because a JavaScript question answered in TypeScript (or back) still names npm packages.
3. **untagged**: untagged blocks that look like the language. Python: `ast.parse` succeeds
   (grammar of Python 3.11, so the choice does not depend on the interpreter that runs it), the
   code is not only bare non-call expressions (`42`, `{"a": 1}`, `numpy` are output or data),
   and it has none of the identifiers that only JavaScript uses (`require('`, `console.log(`).
   JavaScript/TypeScript: a cheap heuristic, since this module is embedded and stdlib-only:
   JS-only identifiers (`require('x')`, `console.x(`, `module.exports`, `process.env`), or
   JS syntax (`const`/`let`/`var`, `import ... from '...'`, `export`, `function`, `=>`, a
   `class X {`, `interface`/`type`/`enum`) in code that does not parse as Python; never a
   block that starts like a shell command (`$ `, `npm `, `node `, `> `).
4. **whole-reply** (python only): with no fences at all, the whole reply if it passes the
   Python test of rule 3 (models asked for "only code" often send it bare). A lone untagged
   fence line with nothing after it is a closing fence whose opening was never written (code
   continued from a prefilled fence); it is dropped, not read as an empty block that hides
   the code (lm-evaluation-harness #3710, benchlocal-cli #120).

Blocks tagged as anything else (bash, sh, console, shell, json, text, pycon, python-repl, ...)
are never taken, whatever they contain. Embedded into task files: standard library only.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field
from typing import Literal

from .pyparse import parse_python

Language = Literal["python", "javascript", "typescript"]
LANGUAGES: tuple[Language, ...] = ("python", "javascript", "typescript")

_TAG_LANGUAGE: dict[str, Language] = {
    **dict.fromkeys(("python", "py", "python3", "py3"), "python"),
    **dict.fromkeys(("javascript", "js", "jsx", "mjs", "cjs", "node", "nodejs"), "javascript"),
    **dict.fromkeys(("typescript", "ts", "tsx", "mts", "cts"), "typescript"),
}
_SIBLING: dict[str, Language] = {"javascript": "typescript", "typescript": "javascript"}
_DISPLAY = {"python": "Python", "javascript": "JavaScript", "typescript": "TypeScript"}
PYTHON_GRAMMAR = (3, 11)

_LINE_END = re.compile(r"\r\n|\r|\n")
_OPENING = re.compile(r"(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)")
_CLOSING = re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})[ \t]*")

_JS_ONLY_IDENTIFIERS = re.compile(
    r"""\brequire\(\s*['"`]|\bconsole\.\w+\(|\bmodule\.exports\b|\bexports\.[\w$]+\s*="""
    r"""|\bprocess\.(?:env|argv|exit)\b|\bdocument\.\w+|\bwindow\.\w+"""
)
_JS_SYNTAX = re.compile(
    r"""^\s*(?:
        import\s+(?:type\s+)?(?:[\w$*{},\s]+?\s+from\s+)?['"]
      | export\s+(?:default\b|const\b|let\b|var\b|function\b|class\b|async\b|interface\b|type\b|enum\b|\{|\*)
      | (?:const|let|var)\s+[\w$\[{]
      | (?:async\s+)?function\b\s*\*?\s*[\w$]*\s*\(
      | class\s+[\w$]+(?:\s+extends\s+[\w$.]+)?\s*\{
      | (?:interface|enum)\s+[\w$]+\s*\{
      | type\s+[\w$]+(?:<[^>]*>)?\s*=
    )
    |=>""",
    re.VERBOSE | re.MULTILINE,
)
_SHELL_START = re.compile(r"(?:[$%>]\s|(?:npm|npx|yarn|pnpm|bun|deno|node|pip|pip3|python|python3|uv)\s+[\w./-])")


@dataclass(frozen=True)
class CodeBlock:
    """One fenced block: its code (LF line ends, a final newline when not empty) and where it was.

    `tag` is the raw first word of the info string (None when untagged); `language` is its
    normalised name ("python", "javascript", "typescript", another tag lower-cased, or None).
    `index` counts blocks from 0 in reply order; `start_line` is the 1-based line of the
    opening fence; `closed` is False for a fence still open at the end of the reply.
    """

    code: str
    language: str | None
    tag: str | None
    index: int
    fence: str
    start_line: int
    closed: bool

    def label(self) -> str:
        """How the provenance names the block: "```python block at line 3"."""
        opening = f"{self.fence}{self.tag}" if self.tag else f"untagged {self.fence}"
        return f"{opening} block at line {self.start_line}"


@dataclass(frozen=True)
class ExtractedCode:
    """The code for one language, the blocks it came from and which rule chose them.

    `rule` is one of "tagged", "sibling-tagged", "untagged", "whole-reply", "none".
    """

    code: str
    blocks: list[CodeBlock] = field(default_factory=list)
    provenance: str = ""
    found: bool = False
    language: str = ""
    rule: str = "none"

    @property
    def truncated(self) -> bool:
        """True when a block used was never closed: the reply probably ended mid-code."""
        return any(not block.closed for block in self.blocks)


def normalize_language(tag: str | None) -> str | None:
    """ "py" -> "python", "TS" -> "typescript", "{.python}" -> "python", "Bash" -> "bash", "" -> None."""
    if not tag:
        return None
    key = tag.lower().strip("{}").lstrip(".").split(":", 1)[0]
    if not key:
        return None
    return _TAG_LANGUAGE.get(key, key)


def _split_lines(text: str) -> list[str]:
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # the line end that closes the last line does not start another one
    return lines


def _dedent(line: str, indent: int) -> str:
    stripped = len(line) - len(line.lstrip(" "))
    return line[min(indent, stripped) :]


def find_blocks(text: str) -> list[CodeBlock]:
    """Every fenced code block in the reply, in order (CommonMark fences; see the module doc)."""
    lines = _split_lines(text)
    blocks: list[CodeBlock] = []
    position = 0
    while position < len(lines):
        opening = _OPENING.fullmatch(lines[position])
        if opening is None or (opening.group("fence")[0] == "`" and "`" in opening.group("info")):
            position += 1
            continue
        fence, indent = opening.group("fence"), len(opening.group("indent"))
        words = opening.group("info").split()
        tag = words[0] if words else None
        content: list[str] = []
        closed = False
        cursor = position + 1
        while cursor < len(lines):
            closing = _CLOSING.fullmatch(lines[cursor])
            if closing and closing.group("fence")[0] == fence[0] and len(closing.group("fence")) >= len(fence):
                closed = True
                break
            content.append(_dedent(lines[cursor], indent))
            cursor += 1
        code = "".join(line + "\n" for line in content)
        blocks.append(CodeBlock(code, normalize_language(tag), tag, len(blocks), fence, position + 1, closed))
        position = cursor + 1
    return blocks


def python_problem(code: str) -> str:
    """Why `code` is not a Python program ("" when it is); see rule 3 of the module doc."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences etc. are not our concern
            tree = parse_python(code, feature_version=PYTHON_GRAMMAR)
    except SyntaxError as exc:
        return f"does not parse as Python: {exc.msg} (line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"does not parse as Python: {type(exc).__name__}"
    if not tree.body:
        return "holds no Python statements"
    if all(isinstance(stmt, ast.Expr) and not isinstance(stmt.value, ast.Call) for stmt in tree.body):
        return "is only bare expressions: output or data, not a program"
    found = _JS_ONLY_IDENTIFIERS.search(code)
    if found:
        return f"uses {found.group(0).strip()!r}, which only JavaScript uses"
    return ""


def javascript_problem(code: str) -> str:
    """Why `code` does not look like JavaScript/TypeScript ("" when it does); a heuristic, see rule 3."""
    first = next((line.strip() for line in code.splitlines() if line.strip()), "")
    if not first:
        return "is empty"
    if _SHELL_START.match(first):
        return "starts like a shell command"
    if _JS_ONLY_IDENTIFIERS.search(code):
        return ""
    if _JS_SYNTAX.search(code) is None:
        return "has no JavaScript declarations, imports, exports or arrows"
    if not python_problem(code):
        return "parses as Python"
    return ""


def _problem(code: str, language: Language) -> str:
    return python_problem(code) if language == "python" else javascript_problem(code)


def _used(blocks: list[CodeBlock], why: str) -> str:
    names = ", ".join(block.label() for block in blocks)
    joined = ", joined in order" if len(blocks) > 1 else ""
    unclosed = [block for block in blocks if not block.closed]
    text = f"{names}: {why}{joined}"
    if unclosed:
        text += f"; the {unclosed[0].label()} is never closed (the reply may be truncated)"
    return text


def _describe(blocks: list[CodeBlock], language: Language) -> str:
    """Each block's label, with the reason an untagged one was not taken."""
    reasons = []
    for block in blocks:
        problem = _problem(block.code, language) if block.tag is None else ""
        reasons.append(f"{block.label()} ({problem})" if problem else block.label())
    return ", ".join(reasons)


def extract_code(text: str, language: str) -> ExtractedCode:
    """The `language` code in a reply, chosen by the policy in the module doc; never raises on odd text."""
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {language!r}")
    wanted: Language = language
    name = _DISPLAY[wanted]
    blocks = find_blocks(text)
    stray = next((block for block in blocks if _is_stray_closer(block)), None)
    if stray is not None:
        blocks = [block for block in blocks if block is not stray]

    def result(used: list[CodeBlock], rule: str, why: str) -> ExtractedCode:
        code = "\n".join(block.code for block in used)
        rest = [block for block in blocks if block not in used]
        provenance = _used(used, why) + (f"; ignored: {_describe(rest, wanted)}" if rest else "")
        return ExtractedCode(code, used, provenance, True, wanted, rule)

    tagged = [block for block in blocks if block.language == wanted]
    if tagged:
        return result(tagged, "tagged", f"tagged {wanted}")
    sibling = _SIBLING.get(wanted)
    sibling_tagged = [block for block in blocks if sibling and block.language == sibling]
    if sibling_tagged:
        return result(sibling_tagged, "sibling-tagged", f"tagged {sibling}, no block tagged {wanted}")
    untagged = [block for block in blocks if block.tag is None and not _problem(block.code, wanted)]
    if untagged:
        return result(untagged, "untagged", f"looks like {name} (no block tagged {wanted})")
    if blocks:
        return _not_found(wanted, f"none of the {len(blocks)} code blocks is {name}: {_describe(blocks, wanted)}")
    if wanted != "python":
        return _not_found(wanted, "the reply has no code fences")
    lines = _split_lines(text)
    if stray is not None:
        lines = lines[: stray.start_line - 1]
    code = "".join(line + "\n" for line in lines).strip("\n")
    code = code + "\n" if code else ""
    whole = "the whole reply"
    if stray is not None:
        whole = f"the reply before a stray closing {stray.fence} at line {stray.start_line}"
    problem = python_problem(code)
    if problem:
        return _not_found(wanted, f"no code fences, and {whole} {problem}")
    return ExtractedCode(code, [], f"no code fences; {whole} parses as Python", True, wanted, "whole-reply")


def _is_stray_closer(block: CodeBlock) -> bool:
    """An untagged fence with nothing after it: a closing fence whose opening the model never wrote."""
    return block.tag is None and not block.closed and not block.code.strip()


def _not_found(language: Language, why: str) -> ExtractedCode:
    return ExtractedCode("", [], f"no {_DISPLAY[language]} code: {why}", False, language, "none")
