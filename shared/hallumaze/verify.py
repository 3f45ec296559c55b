"""Replay what the model wrote against the maze: every count that matters is decided here.

Rules (unchanged since hallumaze v2):

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

These rules live in one place, `_walk`: a single pass over the declared moves on flat cell
indices (`r * N + c`; a cell outside the grid, which a teleport or a jump can name, gets an
index past the grid's). `Trajectory.moves` re-runs that same pass with a recorder for the
per-move view. The one other replay, `verify_fast`, takes walks that stay inside the grid and
make no jump, where the rules reduce to table lookups and the stack; tests hold it to `_walk`.

`check_final_path` applies the FINAL_PATH rules: starts at (0,0), ends at (N-1,N-1), unit
moves only, no wall crossed. SR is 1 only then.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import count, filterfalse, repeat
from operator import sub
from typing import NamedTuple

from .grid import CODE, DELTA, NAME_OF_DELTA, Cell, Maze
from .parse import ParsedReply, StepLine
from .verify_fast import walk_of_columns, walk_of_steps


class Move(NamedTuple):
    """One declared move after replay, for transcripts and tests (`Trajectory.moves`)."""

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
    """The verified walk: its counts, and per move the columns a row is made of."""

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
    # `cells` as flat indices (r * N + c) when every one lies inside the grid, else None
    cell_indices: list[int] | None = field(default=None, compare=False, repr=False)

    @cached_property
    def moves(self) -> tuple[Move, ...]:
        """Every move with its outcome and flags: the same walk, run again with a recorder."""
        maze, parsed, walls_block = self.replayed
        recorded: list[Move] = []
        _walk(maze, parsed, walls_block, recorded)
        return tuple(recorded)


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


_new_tuple = tuple.__new__  # a StepLine from its fields, without a Python frame each


def _path_as_steps(path: Sequence[Cell]) -> list[StepLine]:
    """FINAL_PATH's cells as the moves they declare: a unit move is a direction, any other a jump to the next cell."""
    rows, columns = map(list, zip(*path, strict=True))
    deltas = zip(map(sub, rows[1:], rows[:-1]), map(sub, columns[1:], columns[:-1]), strict=True)
    names = list(map(NAME_OF_DELTA.get, deltas))  # `direction_between` of each pair
    targets = [None if name else b for name, b in zip(names, path[1:], strict=True)]
    fields = zip(count(1), path, names, targets, repeat(None), repeat(0))
    return list(map(_new_tuple, repeat(StepLine), fields))


def _steps_of(parsed: ParsedReply) -> tuple[Sequence[StepLine], str]:
    """The declared moves the replay walks, and where they come from."""
    if parsed.steps:
        return parsed.steps, "steps"
    if parsed.final_path and len(parsed.final_path) > 1:
        return _path_as_steps(parsed.final_path), "final_path"
    return (), "none"


class _Outside:
    """Flat indices for the cells outside the grid a reply names (teleports, jumps): N*N + k for the k-th.

    Inside the grid a cell's index is `r * N + c` (`Maze.cell_index`); these follow it, so every
    position of the walk is one int and the walk's sets and stacks never mix kinds.
    """

    __slots__ = ("cells", "index", "inside", "size")

    def __init__(self, maze: Maze) -> None:
        self.size = maze.size
        self.inside = maze.cell_index
        self.index: dict[Cell, int] = {}
        self.cells: list[Cell] = []

    def of(self, cell: Cell) -> int:
        """The index of any cell, inside the grid or not."""
        found = self.inside.get(cell)
        if found is None:
            found = self.index.get(cell)
        if found is None:
            found = self.size * self.size + len(self.cells)
            self.cells.append(cell)
            self.index[cell] = found
        return found

    def cell(self, index: int) -> Cell:
        """The cell of any index (the inverse of `of`)."""
        grid = self.size * self.size
        return divmod(index, self.size) if index < grid else self.cells[index - grid]

    def move(self, index: int, direction: str) -> int:
        """A move from a cell outside the grid, encoded as `Maze.step_table` encodes moves: -1 stays
        outside (an out-of-grid move), -2 - i reaches cell i of the grid "through a wall" (no passage
        leads in from outside)."""
        r, c = self.cells[index - self.size * self.size]
        dr, dc = DELTA[direction]
        n = self.size
        return -2 - ((r + dr) * n + c + dc) if 0 <= r + dr < n and 0 <= c + dc < n else -1


def _walk(
    maze: Maze,
    parsed: ParsedReply,
    walls_block: bool,
    recorder: list[Move] | None = None,
    declared: tuple[Sequence[StepLine], str] | None = None,
) -> Trajectory:
    """The replay state machine (see the module docstring), once over the declared moves.

    `recorder`, when given, receives one `Move` per declared move (rows do not need them);
    `declared`: `_steps_of(parsed)`, when the caller has it already.
    """
    steps, source = declared if declared is not None else _steps_of(parsed)
    log = parsed.confidence_log if source == "steps" else {}
    outside = _Outside(maze)
    index_of = maze.cell_index.get
    grid = maze.size * maze.size
    table = maze.step_table  # table[index * 4 + code]: where a move leads (see `Maze.step_table`)
    dead_end_at = maze.dead_end_at
    position = 0  # the start cell, (0, 0)
    stack = [position]
    visited = {position}
    origins: list[int] = []
    targets: list[int] = []
    directions: list[str | None] = []
    legal: list[bool] = []
    confidences: list[float | None] = []
    halls: list[int] = []
    teleported: list[int] = []  # moves that teleport or jump (a move that does both is listed once)
    dead_ends: list[int] = []
    teleports = backtracks = backtrack_moves = loops = loop_moves = revisits = 0
    after_backtrack = after_loop = False  # episodes are runs of consecutive flagged moves
    for index, (number, cell, direction, target_cell, confidence, _) in enumerate(steps, start=1):
        at = index_of(cell)
        if at is None:
            at = outside.of(cell)
        teleport = at != position
        if teleport:
            teleports += 1
            teleported.append(index)
            position = at
            if stack[-1] != position:
                stack.append(position)
            visited.add(position)
        origins.append(position)
        directions.append(direction)
        if confidence is None and log:
            confidence = log.get(number)
        confidences.append(confidence)
        if direction is None:  # a jump: the model names a cell that is no neighbour
            outcome = "jump"
            teleports += 1
            if not teleport:
                teleported.append(index)
            moved = False
            target = position if target_cell is None else outside.of(target_cell)
        else:
            reached = table[position * 4 + CODE[direction]] if position < grid else outside.move(position, direction)
            moved = reached >= 0
            if moved:
                outcome = "moved"
                target = reached
                if dead_end_at[target] and target not in dead_ends:
                    dead_ends.append(target)
            else:  # out of the grid (stays put) or through a wall (follows the model, unless walls block)
                halls.append(index)
                outcome = "outside" if reached == -1 else "wall"
                target = position if reached == -1 or walls_block else -2 - reached
        legal.append(moved)
        backtrack = revisit = False
        if outcome != "jump" and target != position:
            if len(stack) >= 2 and target == stack[-2]:  # a retreat (always onto a visited cell)
                stack.pop()
                backtrack = revisit = True
            else:
                if target != stack[-1]:
                    stack.append(target)
                revisit = target in visited
        loop = revisit and not backtrack
        if backtrack:
            backtrack_moves += 1
            backtracks += not after_backtrack
        if loop:
            loop_moves += 1
            loops += not after_loop
        after_backtrack, after_loop = backtrack, loop
        revisits += revisit
        if recorder is not None:
            recorder.append(
                Move(index, number, outside.cell(origins[-1]), direction, outside.cell(target), outcome, teleport,
                     backtrack, loop, revisit, confidence, moved, outcome in ("wall", "outside"))
            )  # fmt: skip
        visited.add(target)
        targets.append(target)
        position = target
    cell_of = (maze.cell_at if not outside.cells else (*maze.cell_at, *outside.cells)).__getitem__
    return Trajectory(
        source=source,
        move_count=len(targets),
        teleports=teleports,
        hallucinations=len(halls),
        first_hallucination=halls[0] if halls else None,
        backtracks=backtracks,
        backtrack_moves=backtrack_moves,
        loops=loops,
        loop_moves=loop_moves,
        revisits=revisits,
        dead_ends_reached=tuple(map(cell_of, dead_ends)),
        reached_exit=grid - 1 in targets,
        cells=[(0, 0), *map(cell_of, targets)],
        origins=list(map(cell_of, origins)),
        directions=directions,
        legal=legal,
        confidences=confidences,
        hallucination_moves=halls,
        teleport_moves=teleported,
        replayed=(maze, parsed, walls_block),
        cell_indices=None if outside.cells else [0, *targets],
    )


def replay(maze: Maze, parsed: ParsedReply, *, walls_block: bool = False) -> Trajectory:
    """Replay the STEP lines (or, without any, the FINAL_PATH) from the start cell.

    `walls_block` is the interactive environment's physics: a wall stops the move (the model
    was told so) instead of the replay following the model through it. A walk inside the grid
    without jumps is taken by `verify_fast` (the same result in fewer steps); any other by `_walk`.
    """
    columns = parsed.step_columns
    declared = None
    if columns is not None:
        fields = walk_of_columns(maze, columns, walls_block)
    else:
        declared = _steps_of(parsed)
        fields = walk_of_steps(maze, parsed, *declared, walls_block)
    if fields is not None:
        return Trajectory(**fields, replayed=(maze, parsed, walls_block))
    return _walk(maze, parsed, walls_block, declared=declared)


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
