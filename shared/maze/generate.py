"""Perfect mazes from a seed: randomized depth-first search, iterative, linear in the number of cells.

The generator draws only from its own `random.Random(seed)` (seed 0 is a seed like any other),
so a (size, seed) pair names one maze on every machine and in every process. Neighbours are
tried in the order N, S, E, W and picked with `Random.choice`, the same procedure as HalluMaze
v1.1's DFS generator, so a seed denotes the same maze there.
"""

from __future__ import annotations

import random
from functools import lru_cache

from .grid import BIT, OPPOSITE, Maze

_NEIGHBOURS = (("N", -1, 0), ("S", 1, 0), ("E", 0, 1), ("W", 0, -1))


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
    rng = random.Random(seed)
    sides = [0] * (size * size)
    visited = [False] * (size * size)
    visited[0] = True
    stack = [(0, 0)]
    while stack:
        r, c = stack[-1]
        options = []
        for name, dr, dc in _NEIGHBOURS:
            nr, nc = r + dr, c + dc
            if 0 <= nr < size and 0 <= nc < size and not visited[nr * size + nc]:
                options.append((nr, nc, name))
        if not options:
            stack.pop()
            continue
        nr, nc, name = rng.choice(options)
        sides[r * size + c] |= BIT[name]
        sides[nr * size + nc] |= BIT[OPPOSITE[name]]
        visited[nr * size + nc] = True
        stack.append((nr, nc))
    return Maze(size=size, open_sides=tuple(sides), seed=seed)


@lru_cache(maxsize=256)
def maze_for(size: int, seed: int) -> Maze:
    """The maze of a case, memoised: rescoring renders the same case once per model."""
    return generate_dfs(size, seed)
