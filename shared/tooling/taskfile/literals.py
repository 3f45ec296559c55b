"""Python string literals that evaluate to exactly the given text.

Embedded sources must come back byte for byte, so every literal is checked with
`ast.literal_eval` and falls back to `repr` when a readable raw triple-quoted form cannot
hold the text (it contains the quote sequence, a carriage return or ends in a backslash).
"""

from __future__ import annotations

import ast


def _raw_triple(text: str, quote: str) -> str | None:
    if quote in text or "\r" in text or text.endswith("\\") or text.endswith(quote[0]):
        return None
    return f"r{quote}{text}{quote}"


def string_literal(text: str) -> str:
    """A literal for `text`: raw triple-quoted when that is exact, else `repr`."""
    for quote in ("'''", '"""'):
        candidate = _raw_triple(text, quote)
        if candidate is not None:
            try:
                if ast.literal_eval(candidate) == text:
                    return candidate
            except (SyntaxError, ValueError):
                pass
    return repr(text)
