"""The unique solution of a perfect maze, by breadth-first search from the start to the exit."""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from .grid import DELTA, DIRECTIONS, Cell, Maze


def solve(maze: Maze) -> list[Cell]:
    """Cells from (0,0) to (N-1,N-1) along open sides; [] when the exit is unreachable."""
    n = maze.size
    parent = [-1] * (n * n)
    parent[0] = 0
    queue = deque([0])
    goal = n * n - 1
    while queue:
        index = queue.popleft()
        if index == goal:
            break
        r, c = divmod(index, n)
        for name in DIRECTIONS:
            if not maze.is_open((r, c), name):
                continue
            dr, dc = DELTA[name]
            neighbour = (r + dr) * n + (c + dc)
            if parent[neighbour] < 0:
                parent[neighbour] = index
                queue.append(neighbour)
    if parent[goal] < 0:
        return []
    path = [goal]
    while path[-1] != 0:
        path.append(parent[path[-1]])
    return [divmod(i, n) for i in reversed(path)]


@lru_cache(maxsize=256)
def solution_for(maze: Maze) -> tuple[Cell, ...]:
    """Memoised `solve` (mazes are immutable and hashable)."""
    return tuple(solve(maze))
