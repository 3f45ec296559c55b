"""What a benchmark adds to the report page: its `page_view` hook returns a PageView.

The page itself knows no benchmark: it shows verification, a leaderboard and the rows the same way
for every protocol, and asks the benchmark the rescored protocol belongs to (its declared
`page_view` hook, `hallubench.tooling.specs`) for the rest: a leaderboard of its own or extra
columns, what follows the leaderboard, its metric names explained, and the evidence a row's
drill-down shows. A protocol no declaration knows, or a benchmark without the hook, gets the
generic page.

The drill-down's evidence is drawn by the benchmark's `script`, which assigns one function:
`window.hallubenchView = function (entry, hb) { ...; return node; }`. `entry` is the row as the
page holds it (`entry.row` the re-scored row, `entry.view` its part of `row_data`), and `hb` the
page's helpers: `el(tag, className, text)`, `fmt(value, digits)`, `facts([[label, value], ...])`,
`simpleTable(headers, rows)`, `abbr(label)`, `withAbbr(text)` and `data()` (the view's `data`).
Model-written text reaches the page only through `textContent`, in the benchmark's script too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..specs import Registry, installed_registry, load_hook
from .rowset import PageRow


@dataclass(frozen=True)
class PageView:
    """A benchmark's part of the page; every field has a neutral default, so a view says only what it adds."""

    board: str | None = None  # the leaderboard section's body, instead of the generic leaderboard
    columns: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # generic board: header -> entry -> HTML
    after_board: str = ""  # HTML under the leaderboard (flags, condition tables, registry changes)
    glossary: Mapping[str, str] = field(default_factory=dict)  # metric name -> what it means (<abbr title>)
    words: re.Pattern[str] | None = None  # finds the glossary's names in a line of text
    script: str = ""  # JavaScript assigning window.hallubenchView (see the module docstring)
    style: str = ""  # CSS for what `board` and `script` draw
    data: Mapping[str, Any] = field(default_factory=dict)  # JSON the script reads through hb.data()
    row_data: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)  # page row index -> its `entry.view`


ViewFunction = Callable[[Mapping[str, Any], Sequence[PageRow]], PageView]


def view_hook(protocol: str, registry: Registry | None = None) -> tuple[str, ViewFunction | None]:
    """The benchmark of `protocol` (its name, or the protocol's first part when none declares it) and its hook.

    `registry` defaults to the installed package's (hooks are installed code). Raises HookError when
    the declared hook is missing or does not import.
    """
    registry = registry or installed_registry()
    benchmark = registry.benchmark_of(protocol) or registry.benchmark(protocol.split("/")[0])
    if benchmark is None:
        return protocol.split("/")[0], None
    if benchmark.page_view is None:
        return benchmark.name, None
    function: ViewFunction = load_hook(benchmark.page_view, f"the page view of {benchmark.name}")
    return benchmark.name, function
