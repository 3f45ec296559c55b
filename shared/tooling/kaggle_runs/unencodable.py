"""Text in a run file that no program can hash, print or write: lone UTF-16 surrogates.

JSON allows the escape `"\\ud800"` on its own, and Python decodes it to a string holding a lone
surrogate, which every later `encode("utf-8")` refuses. Such text cannot have come from a model
or a prompt (neither is UTF-16), so it marks a damaged file. The reader finds it once, where it
is, and says so; nothing after the reader ever meets it.

Speed: a file with no `\\ud8..`-`\\udf..` escape in its bytes holds no lone surrogate, which one
scan of the raw bytes proves; only a file that has such an escape is walked (a valid surrogate
*pair* decodes to one character and is not reported).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class UnencodableText:
    """Where a lone surrogate sits (a JSON path such as `subruns[3].conversations[0]...text`) and what it is."""

    location: str
    message: str

    @property
    def subrun(self) -> int | None:
        """The index of the top-level subrun the text belongs to, None when it is the run's own field."""
        if not self.location.startswith("subruns["):
            return None
        return int(self.location[len("subruns[") : self.location.index("]")])


def printable(text: str) -> str:
    """`text` with lone surrogates written as `\\udXXX` escapes, safe to encode, print or hash."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8") if _LONE_SURROGATE.search(text) else text


def made_printable(value: object) -> object:
    """A copy of decoded JSON with every string (and key) passed through `printable`."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(key): made_printable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [made_printable(item) for item in value]
    return value


def find_unencodable(data: object, raw: bytes) -> list[UnencodableText]:
    """Every string (dict keys included) of the decoded `data` that holds a lone surrogate."""
    if _SURROGATE_ESCAPE.search(raw) is None:
        return []
    return list(_walk(data, ""))


def _walk(value: object, path: str) -> Iterator[UnencodableText]:
    if isinstance(value, str):
        found = _describe(value)
        if found is not None:
            yield UnencodableText(path, f"text holds {found}")
    elif isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{printable(key)}" if path else printable(key)
            found = _describe(key)
            if found is not None:
                yield UnencodableText(where, f"a key holds {found}")
            yield from _walk(item, where)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, f"{path}[{index}]")


def _describe(text: str) -> str | None:
    found = _LONE_SURROGATE.search(text)
    if found is None:
        return None
    return f"a lone surrogate U+{ord(found.group()):04X} at character {found.start()}"
