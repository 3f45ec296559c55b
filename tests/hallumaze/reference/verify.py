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
from dataclasses import dataclass
from typing import NamedTuple

from hallubench.hallumaze.grid import BIT, DELTA, NAME_OF_DELTA, Cell, Maze, direction_between

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
    """The verified walk and its counts."""

    moves: tuple[Move, ...]
    source: str  # steps | final_path | none
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

    @property
    def cells(self) -> list[Cell]:
        """Where the model believed it was: the start, then the end of every move."""
        return [(0, 0), *(m.target for m in self.moves)]


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


def replay(maze: Maze, parsed: ParsedReply, *, walls_block: bool = False) -> Trajectory:
    """Replay the STEP lines (or, without any, the FINAL_PATH) from the start cell.

    `walls_block` is the interactive environment's physics: a wall stops the move (the model
    was told so) instead of the replay following the model through it.
    """
    if parsed.steps:
        steps, source = list(parsed.steps), "steps"
    elif parsed.final_path and len(parsed.final_path) > 1:
        steps, source = _path_as_steps(parsed.final_path), "final_path"
    else:
        steps, source = [], "none"
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
    return Trajectory(
        moves=tuple(moves),
        source=source,
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
    )


def check_final_path(maze: Maze, path: Sequence[Cell] | None, solution: Sequence[Cell]) -> FinalPathCheck:
    """Apply the FINAL_PATH rules; a missing path is simply not valid."""
    if not path:
        return FinalPathCheck(False, 0, False, False, False, 0, False, False)
    n = maze.size
    sides = maze.open_sides
    unit = True
    walls = 0
    name_of = NAME_OF_DELTA
    for a, b in itertools.pairwise(path):
        name = name_of.get((b[0] - a[0], b[1] - a[1]))  # `direction_between`, inlined
        if name is None or not (0 <= a[0] < n and 0 <= a[1] < n and 0 <= b[0] < n and 0 <= b[1] < n):
            unit = False
        elif not sides[a[0] * n + a[1]] & BIT[name]:
            walls += 1
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
