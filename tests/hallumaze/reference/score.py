"""Score one reply against one maze: parse, replay, metrics, claims, lures and the labelled v1.1 score.

The single entry point every path shares (the task's `play`, `hallubench maze score`, the
simulated baselines, human baseline files), so a baseline and a model are never scored by
different code.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, repeat
from operator import attrgetter, eq, or_
from typing import Any

from hallubench.hallumaze.grid import Cell, Maze

from .compact import cells_text, ints_text
from .lures import lure_behaviour
from .metrics import claim_accuracy, trial_metrics
from .original_scoring import score_v11
from .parse import ParsedReply, parse_reply
from .verify import check_final_path, replay

# Move fields read column-wise (C-level maps instead of a Python loop per move)
_INDEX, _ORIGIN, _DIRECTION, _OUTCOME, _TELEPORT, _LEGAL, _HALLUCINATION = (
    attrgetter(name) for name in ("move", "origin", "direction", "outcome", "teleport", "legal", "hallucination")
)


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
    result = trial_metrics(maze, parsed, trajectory, final, solution)
    result["claims"] = claim_accuracy(maze, parsed, trajectory)
    moves = trajectory.moves
    legal = list(compress(moves, map(_LEGAL, moves)))
    result["lures"] = lure_behaviour(
        lure_slots, solution, zip(map(_ORIGIN, legal), map(_DIRECTION, legal), strict=True)
    )
    teleported = map(or_, map(_TELEPORT, moves), map(eq, map(_OUTCOME, moves), repeat("jump")))
    result["trajectory"] = {  # compact strings: see `compact` (read them back with `read_cells`, `read_ints`)
        "cells": cells_text(trajectory.cells),
        "hallucination_moves": ints_text(compress(map(_INDEX, moves), map(_HALLUCINATION, moves))),
        "teleport_moves": ints_text(compress(map(_INDEX, moves), teleported)),
    }
    return result
