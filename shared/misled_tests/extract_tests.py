"""From a model's reply to a test file we can run, or a recorded reason why there is none.

Replies are read with `hallubench.extract` (fenced or bare code, any Python tag: the
replication lost replies whose fence was tagged in a way its extractor did not expect). The
reply cannot be capped through kaggle-benchmarks, so a reply cut at the token cap is
recognised from its shape instead, by this rule:

* **truncated**: a code fence that is still open at the end of the reply, or code whose only
  syntax error is at its end (an unexpected end of file, a bracket or string never closed,
  a block missing its body on the last line);
* **syntax_error**: code that does not parse for another reason;
* **no_code**: nothing that looks like Python.

All three are unusable replies: they stay in every denominator as replies with zero tests and
are counted per reason, never dropped. `approx_tokens` (characters / 4) and `near_cap` are
recorded beside them so a reader can check the rule against the cap.
Embedded into task files: standard library only.
"""

from __future__ import annotations

import ast
from dataclasses import asdict, dataclass
from typing import Any

from ..extract import extract_code
from ..pyparse import parse_python

TOKEN_CAPS = {"off": 4096, "on": 16384}
CHARS_PER_TOKEN = 4
NEAR_CAP_SHARE = 0.85
USABLE = "ok"
_EOF_MESSAGES = ("unexpected EOF", "was never closed", "unterminated", "EOF while", "expected an indented block")


@dataclass(frozen=True)
class ExtractedTests:
    """The test file taken from a reply, and whether it can be run."""

    code: str
    status: str
    detail: str
    provenance: str
    reply_chars: int
    approx_tokens: int
    near_cap: bool

    @property
    def usable(self) -> bool:
        return self.status == USABLE

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _syntax_status(code: str) -> tuple[str, str]:
    try:
        parse_python(code)
    except SyntaxError as exc:
        lines = code.rstrip("\n").splitlines()
        at_end = exc.lineno is not None and exc.lineno >= len(lines)
        message = str(exc.msg)
        if at_end or any(text in message for text in _EOF_MESSAGES):
            return "truncated", f"code ends mid-statement: {message} (line {exc.lineno})"
        return "syntax_error", f"{message} (line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError) as exc:
        return "syntax_error", f"{type(exc).__name__}: {exc}"
    return USABLE, ""


def extract_tests(reply: str, thinking: str) -> ExtractedTests:
    """Apply the rule in the module doc to one reply; `thinking` ("off"/"on") selects the cap."""
    cap = TOKEN_CAPS[thinking]
    approx_tokens = -(-len(reply) // CHARS_PER_TOKEN)
    near_cap = approx_tokens >= NEAR_CAP_SHARE * cap
    extracted = extract_code(reply, "python")
    code, provenance = extracted.code, extracted.provenance
    if extracted.found and extracted.truncated:
        status, detail = "truncated", "a code fence is still open at the end of the reply"
    elif extracted.found:
        status, detail = _syntax_status(code)
    else:
        # A bare reply cut mid-code does not parse, so the extractor rejects it; look again.
        bare = reply.strip("\n") + "\n" if reply.strip() and "```" not in reply and "~~~" not in reply else ""
        status, detail = ("no_code", provenance)
        if bare and any(word in bare for word in ("def test", "import ", "assert ")):
            bare_status, bare_detail = _syntax_status(bare)
            if bare_status == "truncated":
                status, detail, code = bare_status, "unfenced code " + bare_detail, bare
    if status == USABLE and not code.strip():
        status, detail = "no_code", "the code block is empty"
    return ExtractedTests(code, status, detail, provenance, len(reply), approx_tokens, near_cap)


def spec_from_reply(reply: str, entry_point: str) -> str:
    """The docstring text a stage-1 reply gives, however it is wrapped (fence, quotes, a whole function)."""
    extracted = extract_code(reply, "python")
    text = reply.strip()
    if extracted.found:
        try:
            tree = parse_python(extracted.code)
        except SyntaxError:
            tree = None
        if tree is not None:
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == entry_point:
                    found = ast.get_docstring(node)
                    if found:
                        return found
            body = tree.body
            if len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                value = body[0].value.value
                if isinstance(value, str):
                    return value.strip()
        else:
            text = extracted.code.strip()
    for quote in ('"""', "'''"):
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 6:
            return text[3:-3].strip()
    return text
