"""The maze layer of every hallumaze case on the page, drawn once per maze, so each row's walk can go on top.

A row keeps its condition (size, seed, mirage) and its walk, never the maze: the maze is rebuilt
from the seed (deterministic) and drawn by `hallubench.tooling.hallumaze.draw.maze_layer`; the page's script
draws the walk, wall crossings, teleports and backtracks over it in the same coordinates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..report_html.rowset import PageRow


def maze_layers(rows: Sequence[PageRow]) -> tuple[dict[str, dict[str, Any]], dict[int, str]]:
    """(layer per maze key, maze key per row index); rows whose condition names no valid maze get none."""
    from ...hallumaze.trial import load_trial
    from .draw import maze_layer

    layers: dict[str, dict[str, Any]] = {}
    keys: dict[int, str] = {}
    for row in rows:
        condition = row.row.get("condition")
        if not isinstance(condition, Mapping):
            continue
        key = f"{condition.get('size')}-{condition.get('seed')}-{int(bool(condition.get('mirage', True)))}"
        if key not in layers:
            try:
                trial = load_trial({**condition, "id": "page"})
            except (ValueError, TypeError, KeyError):
                continue
            layer = maze_layer(trial.maze, trial.solution, [(lure.cell, lure.direction) for lure in trial.shown_lures])
            layers[key] = {"svg": layer.svg, "unit": layer.unit, "margin": layer.margin, "side": layer.side}
        keys[row.index] = key
    return layers, keys


def legend() -> list[list[str]]:
    from .draw import LEGEND

    return [list(item) for item in LEGEND]
