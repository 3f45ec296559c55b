"""hallumaze on the report page (its `page_view` hook): the table `rescore` prints, each row's walk over its maze.

The leaderboard is the very table the text report prints (`page_board`), every metric name is
explained by the glossary of the protocol whose scorer made the rows, and a row's drill-down draws
its walk over the maze layer `page_mazes` draws once per maze (`page_view.js`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from ..report_html.rowset import PageRow
from ..report_html.view import PageView
from . import glossary
from .page_board import glossary_protocol, page_board
from .page_mazes import legend, maze_layers


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def page_view(result: Mapping[str, Any], rows: Sequence[PageRow]) -> PageView:
    """The board (None for a result without the table: the generic leaderboard), glossary and maze layers."""
    protocol = glossary_protocol(result)
    benchmark = result.get("benchmark")
    layers, keys = maze_layers(rows)
    return PageView(
        board=page_board(benchmark, protocol) if isinstance(benchmark, Mapping) else None,
        glossary=glossary.titles(protocol),
        words=glossary.WORD,
        script=_asset("page_view.js"),
        style=_asset("page_view.css"),
        data={"mazes": layers, "legend": legend()},
        row_data={index: {"maze": key} for index, key in keys.items()},
    )
