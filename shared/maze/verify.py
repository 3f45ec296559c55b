"""Replay what the model wrote against the maze: every count that matters is decided here.

Rules (hallumaze v2):

* The replay starts at (0,0). A STEP whose stated cell is not the current cell is a
  **teleport** (counted apart); the replay then continues from the stated cell, so one slip
  does not turn every later step into a teleport. A declared target that is not a neighbour
  (a jump) is a teleport too.
* A move through a wall or out of the grid is a **hallucination** (HC); FHR is the 1-based
  index of the first. After a wall crossing the replay follows the model to the cell it
  believes it reached (its next STEP starts there); after an out-of-grid move it stays put.
* A **backtrack** is a move back onto the cell below the top of the walk's stack (retreating
  along the DFS path); BT counts backtrack episodes (runs of consecutive retreats).
* A **loop** move re-enters an already visited cell without retreating (in a perfect maze
  that means walking into explored ground again); LT counts loop episodes.
* A **dead end reached** is a legal arrival at a degree-1 cell other than the exit.
* When a reply has no STEP line, its FINAL_PATH is replayed as the trajectory.

`check_final_path` applies the FINAL_PATH rules: starts at (0,0), ends at (N-1,N-1), unit
moves only, no wall crossed. SR is 1 only then.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress, count, filterfalse, repeat
from operator import add, attrgetter, itemgetter, mul, or_
from typing import NamedTuple, cast

from .grid import BIT, CODE, DELTA, Cell, Maze, direction_between
from .parse import ParsedReply, StepLine


class Move(NamedTuple):
    """One declared move after replay (a named tuple: a reply can hold hundreds)."""

    move: int  # 1-based position in the replay (`index` would shadow tuple.index)
    number: int
    origin: Cell
    direction: str | None
    target: Cell
    outcome: str  # moved | wall | outside | jump
    teleport: bool
    backtrack: bool
    loop: bool
    revisit: bool
    confidence: float | None
    legal: bool  # outcome == "moved": the declared move exists (the calibration label)
    hallucination: bool  # outcome is "wall" or "outside"


@dataclass(frozen=True)
class Trajectory:
    """The verified walk: its counts, and per move the columns a row is made of.

    Columns rather than one `Move` per move: a reply holds hundreds of moves and every rescore
    replays it. `moves` builds the `Move`s on demand (transcripts, drawings, tests).
    """

    source: str  # steps | final_path | none
    move_count: int
    teleports: int
    hallucinations: int
    first_hallucination: int | None
    backtracks: int
    backtrack_moves: int
    loops: int
    loop_moves: int
    revisits: int
    dead_ends_reached: tuple[Cell, ...]
    reached_exit: bool
    cells: list[Cell]  # where the model believed it was: the start, then the end of every move
    origins: list[Cell]  # per move: the cell it starts from
    directions: list[str | None]  # per move: the declared direction
    legal: list[bool]  # per move: the declared move exists (the calibration label)
    confidences: list[float | None]  # per move: inline, else from CONFIDENCE_LOG
    hallucination_moves: list[int]  # 1-based positions of wall and out-of-grid moves
    teleport_moves: list[int]  # 1-based positions of teleports and jumps
    replayed: tuple[Maze, ParsedReply, bool] = field(compare=False, repr=False)
    # the flat indices of `cells` when all lie inside the grid (the flat replay's), else None
    cell_indices: list[int] | None = field(default=None, compare=False, repr=False)

    @cached_property
    def moves(self) -> tuple[Move, ...]:
        """Every move with its outcome and flags (the line-by-line replay, run again)."""
        maze, parsed, walls_block = self.replayed
        return _replay_moves(maze, parsed, walls_block=walls_block)[0]


@dataclass(frozen=True)
class FinalPathCheck:
    """FINAL_PATH against the rules; `valid` is what SR counts."""

    present: bool
    length: int
    starts_at_start: bool
    ends_at_exit: bool
    unit_moves: bool
    wall_crossings: int
    valid: bool
    is_solution: bool


def _path_as_steps(path: Sequence[Cell]) -> list[StepLine]:
    out: list[StepLine] = []
    for i, (a, b) in enumerate(itertools.pairwise(path), start=1):
        name = direction_between(a, b)
        out.append(StepLine(i, a, name, None if name else b, None, 0))
    return out


def _steps_of(parsed: ParsedReply) -> tuple[list[StepLine], str]:
    """The declared moves the replay walks, and where they come from."""
    if parsed.steps:
        return list(parsed.steps), "steps"
    if parsed.final_path and len(parsed.final_path) > 1:
        return _path_as_steps(parsed.final_path), "final_path"
    return [], "none"


def _replay_moves(maze: Maze, parsed: ParsedReply, *, walls_block: bool) -> tuple[tuple[Move, ...], Trajectory]:
    """The line-by-line replay: one `Move` per declared move, whatever the cells and directions."""
    steps, source = _steps_of(parsed)
    n = maze.size
    sides = maze.open_sides  # `maze.is_open`, inlined: this loop runs once per declared move
    dead_end_cells = maze.dead_end_cells
    exit_cell = maze.exit
    position = maze.start
    stack = [position]
    visited = {position}
    moves: list[Move] = []
    dead_ends: list[Cell] = []
    teleports = 0
    reached_exit = False
    halls: list[int] = []
    backtracks = backtrack_moves = loops = loop_moves = revisits = 0
    after_backtrack = after_loop = False  # episodes are runs of consecutive flagged moves
    log = parsed.confidence_log if source == "steps" else {}
    new_move = tuple.__new__  # Move's fields in order, without the generated __new__'s frame
    for index, (number, cell, direction, declared, confidence, _) in enumerate(steps, start=1):
        teleport = cell != position
        if teleport:
            teleports += 1
            position = cell
            if stack[-1] != position:
                stack.append(position)
            visited.add(position)
        if confidence is None:
            confidence = log.get(number)
        r, c = position
        if direction is None:
            target = declared if declared is not None else position
            outcome = "jump"
            teleports += 1
            changed = False
        else:
            dr, dc = DELTA[direction]
            target = (r + dr, c + dc)
            if not (0 <= target[0] < n and 0 <= target[1] < n):
                outcome, target = "outside", position
                changed = False
            elif 0 <= r < n and 0 <= c < n and sides[r * n + c] & BIT[direction]:
                outcome = "moved"
                changed = True
            else:
                outcome = "wall"
                if walls_block:
                    target = position
                changed = target != position
        if changed:
            backtrack = len(stack) >= 2 and target == stack[-2]
            revisit = target in visited
            if backtrack:
                stack.pop()
            elif target != stack[-1]:
                stack.append(target)
        else:
            backtrack = revisit = False
        loop = revisit and not backtrack
        if backtrack:
            backtrack_moves += 1
            if not after_backtrack:
                backtracks += 1
        if loop:
            loop_moves += 1
            if not after_loop:
                loops += 1
        after_backtrack, after_loop = backtrack, loop
        revisits += revisit
        legal = outcome == "moved"
        hallucination = not legal and outcome != "jump"
        if hallucination:
            halls.append(index)
        moves.append(new_move(Move, (index, number, position, direction, target, outcome, teleport, backtrack, loop,
                                     revisit, confidence, legal, hallucination)))  # fmt: skip
        if legal and target in dead_end_cells and target not in dead_ends:
            dead_ends.append(target)
        visited.add(target)
        position = target
        reached_exit = reached_exit or position == exit_cell
    fields = ("move", "origin", "direction", "outcome", "teleport", "legal", "hallucination", "target", "confidence")
    index_of, origin_of, direction_of, outcome_of, teleport_of, legal_of, hallucination_of, target_of, confidence_of = (
        map(attrgetter, fields)
    )
    teleported = map(or_, map(teleport_of, moves), (outcome == "jump" for outcome in map(outcome_of, moves)))
    return tuple(moves), Trajectory(
        source=source,
        move_count=len(moves),
        teleports=teleports,
        hallucinations=len(halls),
        first_hallucination=halls[0] if halls else None,
        backtracks=backtracks,
        backtrack_moves=backtrack_moves,
        loops=loops,
        loop_moves=loop_moves,
        revisits=revisits,
        dead_ends_reached=tuple(dead_ends),
        reached_exit=reached_exit,
        cells=[(0, 0), *map(target_of, moves)],
        origins=list(map(origin_of, moves)),
        directions=list(map(direction_of, moves)),
        legal=list(map(legal_of, moves)),
        confidences=list(map(confidence_of, moves)),
        hallucination_moves=list(compress(map(index_of, moves), map(hallucination_of, moves))),
        teleport_moves=list(compress(map(index_of, moves), teleported)),
        replayed=(maze, parsed, walls_block),
    )


_NUMBER, _CELL, _DIRECTION, _CONFIDENCE = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(4)


def replay(maze: Maze, parsed: ParsedReply, *, walls_block: bool = False) -> Trajectory:
    """Replay the STEP lines (or, without any, the FINAL_PATH) from the start cell.

    `walls_block` is the interactive environment's physics: a wall stops the move (the model
    was told so) instead of the replay following the model through it.
    """
    steps, source = _steps_of(parsed)
    flat = _replay_flat(maze, parsed, steps, source, walls_block)
    return flat if flat is not None else _replay_moves(maze, parsed, walls_block=walls_block)[1]


def _replay_flat(
    maze: Maze, parsed: ParsedReply, steps: list[StepLine], source: str, walls_block: bool
) -> Trajectory | None:
    """`_replay_moves` on flat cell indices, for steps whose every cell is inside the grid and
    every direction is given (None otherwise): one table lookup per move (`Maze.step_table`),
    columns instead of `Move`s. Same counts and columns, move for move.
    """
    found = list(map(maze.cell_index.get, map(_CELL, steps)))
    known = list(map(CODE.get, map(_DIRECTION, steps)))
    if None in found or None in known:
        return None
    at, codes = cast("list[int]", found), cast("list[int]", known)
    confidences = list(map(_CONFIDENCE, steps))
    log = parsed.confidence_log if source == "steps" else {}
    if log and None in confidences:
        numbers = map(_NUMBER, steps)
        confidences = [log.get(number) if c is None else c for number, c in zip(numbers, confidences, strict=True)]
    table = maze.step_table
    dead_end_at = maze.dead_end_at
    reached = list(map(table.__getitem__, map(add, map(mul, at, repeat(4)), codes)))  # where each move leads
    origins: list[int]
    targets: list[int]
    legal: list[bool]
    halls: list[int]
    teleported: list[int]
    dead_ends: list[int]
    if at and at[0] == 0 and min(reached) >= 0 and at[1:] == reached[:-1]:
        # a well-formed walk: every move legal, each from where the last one ended (no teleport)
        origins, targets, legal, halls, teleported = at, reached, [True] * len(at), [], []
        dead_ends = list(dict.fromkeys(compress(targets, map(dead_end_at.__getitem__, targets))))
        backtracks, backtrack_moves, loops, loop_moves, revisits = _legal_walk_counts(targets, maze.size * maze.size)
    else:
        position = 0  # the start cell, (0, 0)
        stack = [position]
        visited = bytearray(maze.size * maze.size)
        visited[position] = 1
        origins, targets, legal, halls, teleported, dead_ends = [], [], [], [], [], []
        backtracks = backtrack_moves = loops = loop_moves = revisits = 0
        after_backtrack = after_loop = False  # episodes are runs of consecutive flagged moves
        for index, cell, code in zip(count(1), at, codes):
            if cell != position:  # a teleport
                teleported.append(index)
                position = cell
                if stack[-1] != position:
                    stack.append(position)
                visited[position] = 1
            origins.append(position)
            target = table[position * 4 + code]
            if target >= 0:  # moved
                legal.append(True)
                if dead_end_at[target] and target not in dead_ends:
                    dead_ends.append(target)
            else:  # out of the grid (stays put) or through a wall (follows the model, unless walls block)
                legal.append(False)
                halls.append(index)
                target = position if target == -1 or walls_block else -2 - target
            if target != position:
                if len(stack) >= 2 and target == stack[-2]:  # a backtrack (always onto a visited cell)
                    stack.pop()
                    backtrack_moves += 1
                    if not after_backtrack:
                        backtracks += 1
                    revisits += 1
                    after_backtrack, after_loop = True, False
                else:
                    if target != stack[-1]:
                        stack.append(target)
                    if visited[target]:  # a loop
                        loop_moves += 1
                        if not after_loop:
                            loops += 1
                        revisits += 1
                        after_backtrack, after_loop = False, True
                    else:
                        after_backtrack = after_loop = False
                        visited[target] = 1
            else:
                after_backtrack = after_loop = False
            targets.append(target)
            position = target
    cell_at = maze.cell_at
    exit_index = maze.size * maze.size - 1
    return Trajectory(
        source=source,
        move_count=len(steps),
        teleports=len(teleported),
        hallucinations=len(halls),
        first_hallucination=halls[0] if halls else None,
        backtracks=backtracks,
        backtrack_moves=backtrack_moves,
        loops=loops,
        loop_moves=loop_moves,
        revisits=revisits,
        dead_ends_reached=tuple(map(cell_at.__getitem__, dead_ends)),
        reached_exit=exit_index in targets,
        cells=[(0, 0), *map(cell_at.__getitem__, targets)],
        origins=list(map(cell_at.__getitem__, origins)),
        directions=list(map(_DIRECTION, steps)),
        legal=legal,
        confidences=confidences,
        hallucination_moves=halls,
        teleport_moves=teleported,
        replayed=(maze, parsed, walls_block),
        cell_indices=[0, *targets],
    )


def _legal_walk_counts(targets: list[int], cells: int) -> tuple[int, int, int, int, int]:
    """(backtracks, backtrack moves, loops, loop moves, revisits) of a walk of legal moves from the start.

    `_replay_flat`'s stack and episode rules where no move is a teleport or stays put.
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
            if not after_backtrack:
                backtracks += 1
            revisits += 1
            after_backtrack, after_loop = True, False
        else:
            if target != stack[-1]:
                stack.append(target)
            if visited[target]:
                loop_moves += 1
                if not after_loop:
                    loops += 1
                revisits += 1
                after_backtrack, after_loop = False, True
            else:
                after_backtrack = after_loop = False
                visited[target] = 1
    return backtracks, backtrack_moves, loops, loop_moves, revisits


def check_final_path(maze: Maze, path: Sequence[Cell] | None, solution: Sequence[Cell]) -> FinalPathCheck:
    """Apply the FINAL_PATH rules; a missing path is simply not valid."""
    if not path:
        return FinalPathCheck(False, 0, False, False, False, 0, False, False)
    unit = True
    walls = 0
    # only pairs that are not an open passage need a look (a valid path has none)
    for pair in filterfalse(maze.open_pairs.__contains__, itertools.pairwise(path)):
        if pair in maze.neighbour_pairs:  # a unit move inside the grid, through a wall
            walls += 1
        else:
            unit = False
    starts = path[0] == maze.start
    ends = path[-1] == maze.exit
    valid = starts and ends and unit and walls == 0 and len(path) > 1
    return FinalPathCheck(
        present=True,
        length=len(path),
        starts_at_start=starts,
        ends_at_exit=ends,
        unit_moves=unit,
        wall_crossings=walls,
        valid=valid,
        is_solution=list(path) == list(solution),
    )
