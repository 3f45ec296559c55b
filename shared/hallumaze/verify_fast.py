"""`verify.replay` for walks that stay inside the grid, in a few C-level passes: same Trajectory, fewer Python steps.

Most replies, and every simulated baseline, declare moves from cells inside the grid, each in a
direction. There every move is one lookup in `Maze.step_table`, where it lands is one lookup in a
table of the replay's rules (a legal move reaches its neighbour; a wall crossing follows the
model to the cell beyond, or stays put where walls block; a move off the grid stays put), a
teleport is a step that does not start where the last one landed, and only the stack of the
backtrack and loop rules needs a loop over the moves. `fast_walk` returns None for any other walk
(a jump, a cell outside the grid), which `verify._walk` (the definition) replays instead.
`tests/hallumaze/test_verify_fast.py` holds the two to the same Trajectory on generated walks.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import compress, count, repeat
from operator import add, itemgetter, mul, ne
from typing import Any, cast

from .grid import CODE, Maze
from .parse_lines import PERCENT_OF, ParsedReply, StepColumns, StepLine

_NUMBER, _CELL, _DIRECTION, _CONFIDENCE = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(4)


@lru_cache(maxsize=256)
def _landings(maze: Maze, walls_block: bool) -> tuple[int, ...]:
    """Per move (`index * 4 + code`, as `Maze.step_table`): the cell the replay puts the walker on after it."""
    n = maze.size
    return tuple(
        reached if reached >= 0 else (slot // 4 if reached == -1 or walls_block else -2 - reached)
        for slot, reached in zip(range(4 * n * n), maze.step_table, strict=True)
    )


def walk_of_columns(maze: Maze, columns: StepColumns, walls_block: bool = False) -> dict[str, Any] | None:
    """`fast_walk` for canonical STEP lines read as columns (labels and percents: one lookup each)."""
    at = list(map(maze.label_index.get, columns.cells))
    confidences: list[float | None] = list(map(PERCENT_OF.__getitem__, columns.percents))
    return fast_walk(maze, at, list(columns.directions), confidences, "steps", walls_block)


def walk_of_steps(
    maze: Maze, parsed: ParsedReply, steps: Sequence[StepLine], source: str, walls_block: bool = False
) -> dict[str, Any] | None:
    """`fast_walk` for StepLines (a confidence they lack comes from CONFIDENCE_LOG, as the replay takes it)."""
    if any(step.target is not None for step in steps):
        return None  # a jump
    directions: list[str | None] = list(map(_DIRECTION, steps))
    confidences: list[float | None] = list(map(_CONFIDENCE, steps))
    log = parsed.confidence_log if source == "steps" and None in confidences else {}
    if log:
        numbers = map(_NUMBER, steps)
        confidences = [log.get(number) if c is None else c for number, c in zip(numbers, confidences, strict=True)]
    at = list(map(maze.cell_index.get, map(_CELL, steps)))
    return fast_walk(maze, at, directions, confidences, source, walls_block)


def fast_walk(
    maze: Maze,
    at: list[int | None],
    directions: list[str | None],
    confidences: list[float | None],
    source: str,
    walls_block: bool,
) -> dict[str, Any] | None:
    """The Trajectory's fields (but `replayed`) of moves declared from cells `at` (flat indices, None outside
    the grid) in `directions`, when every cell is inside the grid and every move has a direction; else None."""
    codes = (
        [CODE.get(d) if d is not None else None for d in directions]
        if None in directions
        else [*map(CODE.__getitem__, cast("list[str]", directions))]
    )
    if not at or None in at or None in codes:
        return None
    starts = cast("list[int]", at)
    slots = list(map(add, map(mul, starts, repeat(4)), cast("list[int]", codes)))
    reached = list(map(maze.step_table.__getitem__, slots))
    if min(reached) >= 0:  # every move exists (the common case: no second table, no hallucination)
        targets = reached
        legal = [True] * len(targets)
        halls: list[int] = []
        dead_ends = dict.fromkeys(compress(targets, map(maze.dead_end_at.__getitem__, targets)))
    else:
        targets = list(map(_landings(maze, walls_block).__getitem__, slots))
        legal = [r >= 0 for r in reached]
        halls = list(compress(count(1), map(ne, legal, repeat(True))))
        dead_ends = dict.fromkeys(compress(compress(targets, legal), map(maze.dead_end_at.__getitem__,
                                                                           compress(targets, legal))))  # fmt: skip
    teleported = list(compress(count(1), map(ne, starts, [0, *targets[:-1]])))
    backtracks, backtrack_moves, loops, loop_moves, revisits = _stack_counts(starts, targets, maze.size * maze.size)
    cell_at = maze.cell_at.__getitem__
    return {
        "source": source,
        "move_count": len(targets),
        "teleports": len(teleported),
        "hallucinations": len(halls),
        "first_hallucination": halls[0] if halls else None,
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
        "legal": legal,
        "confidences": confidences,
        "hallucination_moves": halls,
        "teleport_moves": teleported,
        "cell_indices": [0, *targets],
    }


def _stack_counts(starts: list[int], targets: list[int], cells: int) -> tuple[int, int, int, int, int]:
    """(backtracks, backtrack moves, loops, loop moves, revisits) of moves from `starts` landing on `targets`.

    The backtrack and loop rules of `verify._walk`, for moves without jumps: a step that starts
    elsewhere than the last landing teleports there (onto the stack and into the visited cells);
    a move that lands where it started (a blocked one) changes neither. The stack starts below
    the start cell with -1, a cell no move lands on, so its second entry always exists.
    """
    stack = [-1, 0]
    push, pop = stack.append, stack.pop
    visited = bytearray(cells)
    visited[0] = 1
    position = 0
    backtracks = backtrack_moves = loops = loop_moves = 0
    previous = 0  # what the last move was: 0 neither, 1 a backtrack, 2 a loop (episodes are runs of one kind)
    for start, target in zip(starts, targets, strict=True):
        if start != position:  # a teleport
            if stack[-1] != start:
                push(start)
            visited[start] = 1
        if target == start:
            previous = 0
        elif target == stack[-2]:  # a retreat (always onto a visited cell)
            pop()
            backtrack_moves += 1
            if previous != 1:
                backtracks += 1
                previous = 1
        else:
            if target != stack[-1]:
                push(target)
            if visited[target]:
                loop_moves += 1
                if previous != 2:
                    loops += 1
                    previous = 2
            else:
                visited[target] = 1
                previous = 0
        position = target
    return backtracks, backtrack_moves, loops, loop_moves, backtrack_moves + loop_moves
