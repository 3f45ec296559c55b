"""`verify.replay` for well-formed walks, in a few C-level passes: same Trajectory, fewer Python steps.

Most replies, and every simulated baseline, declare a walk in which each step starts where the
last one ended and every move exists. There the replay's rules reduce to: no teleport, no
hallucination, every target one lookup in `Maze.step_table`, and only the stack of the
backtrack and loop rules needs a loop over the moves. `well_formed_walk` checks those
conditions on whole columns and returns None for any other walk, which `verify._walk` (the
definition) replays instead. `tests/maze/test_verify_fast.py` holds the two to the same
Trajectory on generated walks.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, repeat
from operator import add, itemgetter, mul
from typing import Any, cast

from .grid import CODE, Maze
from .parse_lines import PERCENT_OF, ParsedReply, StepColumns, StepLine

_NUMBER, _CELL, _DIRECTION, _CONFIDENCE = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(4)


def walk_of_columns(maze: Maze, columns: StepColumns) -> dict[str, Any] | None:
    """`well_formed_walk` for canonical STEP lines read as columns (labels and percents: one lookup each)."""
    at = list(map(maze.label_index.get, columns.cells))
    confidences: list[float | None] = list(map(PERCENT_OF.__getitem__, columns.percents))
    return well_formed_walk(maze, at, list(columns.directions), confidences, "steps")


def walk_of_steps(maze: Maze, parsed: ParsedReply, steps: Sequence[StepLine], source: str) -> dict[str, Any] | None:
    """`well_formed_walk` for StepLines (a confidence they lack comes from CONFIDENCE_LOG, as the replay takes it)."""
    if any(step.target is not None for step in steps):
        return None  # a jump
    directions: list[str | None] = list(map(_DIRECTION, steps))
    confidences: list[float | None] = list(map(_CONFIDENCE, steps))
    log = parsed.confidence_log if source == "steps" and None in confidences else {}
    if log:
        numbers = map(_NUMBER, steps)
        confidences = [log.get(number) if c is None else c for number, c in zip(numbers, confidences, strict=True)]
    return well_formed_walk(maze, list(map(maze.cell_index.get, map(_CELL, steps))), directions, confidences, source)


def well_formed_walk(
    maze: Maze, at: list[int | None], directions: list[str | None], confidences: list[float | None], source: str
) -> dict[str, Any] | None:
    """The Trajectory's fields (but `replayed`) of moves declared from cells `at` (flat indices, None outside
    the grid) when they walk from the start, each from where the last one ended, all legal; else None."""
    codes = (
        [CODE.get(d) if d is not None else None for d in directions]
        if None in directions
        else [*map(CODE.__getitem__, cast("list[str]", directions))]
    )
    if not at or at[0] != 0 or None in at or None in codes:
        return None
    starts, moves = cast("list[int]", at), cast("list[int]", codes)
    targets = list(map(maze.step_table.__getitem__, map(add, map(mul, starts, repeat(4)), moves)))
    if min(targets) < 0 or starts[1:] != targets[:-1]:
        return None  # a wall, the edge of the grid, or a step that does not start where the last one ended
    backtracks, backtrack_moves, loops, loop_moves, revisits = _stack_counts(targets, maze.size * maze.size)
    cell_at = maze.cell_at.__getitem__
    dead_ends = dict.fromkeys(compress(targets, map(maze.dead_end_at.__getitem__, targets)))
    return {
        "source": source,
        "move_count": len(targets),
        "teleports": 0,
        "hallucinations": 0,
        "first_hallucination": None,
        "backtracks": backtracks,
        "backtrack_moves": backtrack_moves,
        "loops": loops,
        "loop_moves": loop_moves,
        "revisits": revisits,
        "dead_ends_reached": tuple(map(cell_at, dead_ends)),
        "reached_exit": maze.size * maze.size - 1 in targets,
        "cells": [(0, 0), *map(cell_at, targets)],
        "origins": list(map(cell_at, starts)),
        "directions": directions,
        "legal": [True] * len(targets),
        "confidences": confidences,
        "hallucination_moves": [],
        "teleport_moves": [],
        "cell_indices": [0, *targets],
    }


def _stack_counts(targets: list[int], cells: int) -> tuple[int, int, int, int, int]:
    """(backtracks, backtrack moves, loops, loop moves, revisits) of legal moves from the start, none a teleport.

    The backtrack and loop rules of `verify._walk` where the stack's top is always the current
    cell and every move leaves it.
    """
    stack = [0]
    visited = bytearray(cells)
    visited[0] = 1
    backtracks = backtrack_moves = loops = loop_moves = revisits = 0
    after_backtrack = after_loop = False
    for target in targets:
        if len(stack) >= 2 and target == stack[-2]:
            stack.pop()
            backtrack_moves += 1
            backtracks += not after_backtrack
            revisits += 1
            after_backtrack, after_loop = True, False
        else:
            stack.append(target)
            if visited[target]:
                loop_moves += 1
                loops += not after_loop
                revisits += 1
                after_backtrack, after_loop = False, True
            else:
                visited[target] = 1
                after_backtrack = after_loop = False
    return backtracks, backtrack_moves, loops, loop_moves, revisits
