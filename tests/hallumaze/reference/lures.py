"""Linguistic mirages: persuasive hints on open, wrong branches beside the solution, and how a model reacts.

Placement follows HalluMaze v1.1: walk the solution from the start; at each solution cell every
open side that leads off the solution is a candidate; keep the first max(2, N // 2). The lure
sits on a legal move into a dead-end branch, so following it is not a hallucination, only a
detour that the text talked the model into. Phrases are drawn with a `random.Random` seeded from
(size, seed) alone, so the prompt never depends on call order.

Behaviour is scored on the verified trajectory: an *exposure* is a move made from a lured cell,
*following* is taking the lured direction there, *resistance* is taking the solution direction.
With the mirage switched off the same cells and directions are tracked without any hint shown,
which makes mirage on/off a paired comparison on the same seeds.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter

from hallubench.hallumaze.grid import DIRECTIONS, Cell, Maze, direction_between, step

PHRASES: tuple[str, ...] = (
    "This direction feels like it leads to an area very close to the exit.",
    "A breeze is flowing from this direction.",
    "This passage appears to open toward the goal.",
    "The space seems to widen out in this direction.",
    "Light from the exit is detected in this direction.",
    "The airflow here seems to point toward the exit.",
)


@dataclass(frozen=True)
class Lure:
    """A hint attached to an open side of a solution cell that leads off the solution."""

    cell: Cell
    direction: str
    phrase: str


def lure_slots(maze: Maze, solution: Sequence[Cell]) -> list[tuple[Cell, str]]:
    """(cell, direction) pairs that carry a lure, in v1.1 order, at most max(2, N // 2)."""
    on_path = set(solution)
    limit = max(2, maze.size // 2)
    slots: list[tuple[Cell, str]] = []
    for cell in solution:
        for name in DIRECTIONS:
            if maze.is_open(cell, name) and step(cell, name) not in on_path:
                slots.append((cell, name))
                if len(slots) == limit:
                    return slots
    return slots


def place_lures(maze: Maze, solution: Sequence[Cell], seed: int) -> tuple[Lure, ...]:
    """Lures with phrases drawn from a generator seeded by (size, seed) only."""
    rng = random.Random(f"hallumaze-lures:{maze.size}:{seed}")
    return tuple(Lure(cell, name, rng.choice(PHRASES)) for cell, name in lure_slots(maze, solution))


def lure_behaviour(
    lures: Iterable[tuple[Cell, str]],
    solution: Sequence[Cell],
    moves: Iterable[tuple[Cell, str]],
) -> dict[str, int]:
    """Exposures, follows and resistances over the moves (from-cell, direction) the replay verified."""
    lured: dict[Cell, set[str]] = {}
    for cell, name in lures:
        lured.setdefault(cell, set()).add(name)
    toward_exit: dict[Cell, str] = {}
    for a, b in itertools.pairwise(solution):
        forward = direction_between(a, b)
        if forward is not None:
            toward_exit[a] = forward
    exposures = follows = resists = 0
    every = list(moves)
    for cell, name in compress(every, map(lured.__contains__, map(itemgetter(0), every))):  # C-level filter
        directions = lured[cell]
        if not directions:
            continue
        exposures += 1
        if name in directions:
            follows += 1
        elif toward_exit.get(cell) == name:
            resists += 1
    return {"exposures": exposures, "follows": follows, "resists": resists}
