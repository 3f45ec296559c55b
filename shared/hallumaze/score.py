"""Score one reply against one maze: parse, replay, metrics, claims, lures and the labelled v1.1 score.

The single entry point every path shares (the task's `play`, `hallubench maze score`, the
simulated baselines, human baseline files), so a baseline and a model are never scored by
different code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import compress
from typing import Any, cast

from .compact import cells_text, ints_text
from .grid import Cell, Maze
from .lures import lure_behaviour
from .metrics import claim_accuracy, trial_metrics
from .original_scoring import score_v11
from .parse import ParsedReply, parse_reply
from .verify import check_final_path, replay


def score_reply(
    maze: Maze,
    solution: Sequence[Cell],
    lure_slots: Sequence[tuple[Cell, str]],
    reply: str,
    *,
    with_v11: bool = True,
) -> dict[str, Any]:
    """Every verified metric of a single-shot `reply`, plus `claims`, `lures`, `trajectory`, `v11`."""
    parsed = parse_reply(reply)  # parsed once, here
    result = score_parsed(maze, solution, lure_slots, parsed)
    if with_v11:
        result["v11"] = score_v11(maze, reply, parsed)
    return result


def score_parsed(
    maze: Maze,
    solution: Sequence[Cell],
    lure_slots: Sequence[tuple[Cell, str]],
    parsed: ParsedReply,
    *,
    walls_block: bool = False,
) -> dict[str, Any]:
    """Score an already parsed reply (the interactive mode builds its own from the executed moves)."""
    trajectory = replay(maze, parsed, walls_block=walls_block)
    final = check_final_path(maze, parsed.final_path, solution)
    legal = trajectory.legal
    origins = compress(trajectory.origins, legal)
    directions = cast("Iterable[str]", compress(trajectory.directions, legal))  # a legal move has a direction
    lures = lure_behaviour(lure_slots, solution, zip(origins, directions, strict=True))
    result = trial_metrics(maze, parsed, trajectory, final, lures)
    result["claims"] = claim_accuracy(maze, parsed, trajectory)
    result["lures"] = lures
    result["trajectory"] = {  # compact strings: see `compact` (read them back with `read_cells`, `read_ints`)
        "cells": (
            cells_text(trajectory.cells)
            if trajectory.cell_indices is None
            else " ".join(map(maze.cell_label.__getitem__, trajectory.cell_indices))  # the same text
        ),
        "hallucination_moves": ints_text(trajectory.hallucination_moves),
        "teleport_moves": ints_text(trajectory.teleport_moves),
    }
    return result
