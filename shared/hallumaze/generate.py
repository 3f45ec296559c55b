"""Perfect mazes from a seed: randomized depth-first search, iterative, linear in the number of cells.

The generator draws only from its own `random.Random(seed)` (seed 0 is a seed like any other),
so a (size, seed) pair names one maze on every machine and in every process. Neighbours are
tried in the order N, S, E, W and picked with `Random.choice`, the same procedure as HalluMaze
v1.1's DFS generator, so a seed denotes the same maze there.
"""

from __future__ import annotations

import random
from functools import lru_cache

from .grid import BIT, Maze


def check_size_and_seed(size: object, seed: object) -> tuple[int, int]:
    """Validate a (size, seed) pair with a clear message instead of a deep traceback."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 2:
        raise ValueError(f"maze size must be an integer >= 2, got {size!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"maze seed must be an integer, got {seed!r}")
    return size, seed


def generate_dfs(size: int, seed: int) -> Maze:
    """A perfect maze (a spanning tree of the grid: N*N - 1 passages, every cell reachable)."""
    size, seed = check_size_and_seed(size, seed)
    choice = random.Random(seed).choice
    sides = [0] * (size * size)
    visited = bytearray(size * size)
    visited[0] = 1
    stack = [0]
    # flat cell indices; neighbours in the order N, S, E, W as (index offset, bit here, bit there)
    north, south, east, west = ((-size, BIT["N"], BIT["S"]), (size, BIT["S"], BIT["N"]),
                                (1, BIT["E"], BIT["W"]), (-1, BIT["W"], BIT["E"]))  # fmt: skip
    last = size - 1
    while stack:
        here = stack[-1]
        r, c = divmod(here, size)
        options = []
        if r > 0 and not visited[here - size]:
            options.append(north)
        if r < last and not visited[here + size]:
            options.append(south)
        if c < last and not visited[here + 1]:
            options.append(east)
        if c > 0 and not visited[here - 1]:
            options.append(west)
        if not options:
            stack.pop()
            continue
        offset, bit_here, bit_there = choice(options)
        there = here + offset
        sides[here] |= bit_here
        sides[there] |= bit_there
        visited[there] = 1
        stack.append(there)
    return Maze(size=size, open_sides=tuple(sides), seed=seed)


@lru_cache(maxsize=256)
def maze_for(size: int, seed: int) -> Maze:
    """The maze of a case, memoised: rescoring renders the same case once per model."""
    return generate_dfs(size, seed)
