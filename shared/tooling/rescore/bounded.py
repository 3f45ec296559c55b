"""Any text a run file supplies, shown within a stated bound: one line, at most about FIELD_LIMIT characters.

A run file is input from elsewhere: a model slug of 100 MB must not become gigabytes of report by
being repeated on every line. A longer text keeps its start and says its length and sha256, so two
long texts stay told apart.
"""

from __future__ import annotations

from ...hashing import sha256_text

FIELD_LIMIT = 300  # characters of any one field shown in a line of text or on the page
MODEL_LIMIT = 200  # characters of a model slug anywhere in a report


def shorten(text: str, limit: int = FIELD_LIMIT) -> str:
    """`text` as one printable line of at most about `limit` characters; a longer one says its length and sha256."""
    escaped = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if not escaped.isprintable():
        escaped = "".join(char if char.isprintable() else repr(char)[1:-1] for char in escaped)
    if len(escaped) <= limit:
        return escaped
    digest = sha256_text(text.encode("utf-8", "surrogatepass").decode("utf-8", "replace"))
    return f"{escaped[: limit // 2]}… ({len(text):,} characters, sha256 {digest[:16]})"
