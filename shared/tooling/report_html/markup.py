"""The few helpers every section uses to write HTML text: escaping, numbers, tables, abbreviations."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping
from typing import Any


def esc(value: Any) -> str:
    """`value` as HTML text (quotes escaped too, so the result is safe in attributes)."""
    return html.escape("" if value is None else str(value), quote=True)


def number(value: Any, digits: int = 3) -> str:
    """A score or rate for reading: fixed decimals, `n/a` when undefined; integers as they are."""
    if value is None or isinstance(value, bool):
        return "n/a" if value is None else str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}f}" if math.isfinite(value) else "n/a"
    return esc(value)


def interval(low: Any, high: Any, digits: int = 3) -> str:
    """`[0.120, 0.480]`, or an empty string when there is no interval."""
    if low is None or high is None:
        return ""
    return f"[{number(low, digits)}, {number(high, digits)}]"


def table(headers: list[str], rows: list[list[str]], *, css: str = "", numeric: frozenset[int] = frozenset()) -> str:
    """A plain table; cells are HTML already (escape text before passing it)."""
    head = "".join(f'<th scope="col"{_num(i, numeric)}>{h}</th>' for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f"<td{_num(i, numeric)}>{c}</td>" for i, c in enumerate(row)) + "</tr>" for row in rows
    )
    klass = f' class="{esc(css)}"' if css else ""
    return f'<div class="wide"><table{klass}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def abbr(label: str, titles: Mapping[str, str]) -> str:
    """`label` as HTML, inside `<abbr title="...">` when the glossary explains it."""
    title = titles.get(label)
    return f'<abbr title="{esc(title)}">{esc(label)}</abbr>' if title else esc(label)


def abbreviate(text: str, titles: Mapping[str, str], words: re.Pattern[str] | None) -> str:
    """`text` as HTML with every glossary abbreviation that stands as a word (`words`) inside `<abbr>`."""
    if words is None or not titles:
        return esc(text)
    out, last = [], 0
    for match in words.finditer(text):
        if match.group(0) in titles:
            out += [esc(text[last : match.start()]), abbr(match.group(0), titles)]
            last = match.end()
    return "".join([*out, esc(text[last:])])


def _num(index: int, numeric: frozenset[int]) -> str:
    return ' class="num"' if index in numeric else ""
