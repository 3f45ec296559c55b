"""Generated mazes are perfect, seeded, and independent of process state."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hallubench.hallumaze.generate import generate_dfs
from hallubench.hallumaze.grid import DIRECTIONS, Maze, step
from hallubench.hallumaze.solve import solve


def _reachable(maze: Maze) -> int:
    seen = {maze.start}
    queue = deque([maze.start])
    while queue:
        cell = queue.popleft()
        for name in maze.open_directions(cell):
            nxt = step(cell, name)
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return len(seen)


@settings(max_examples=60, deadline=None)
@given(size=st.integers(min_value=2, max_value=25), seed=st.integers(min_value=-(2**40), max_value=2**40))
def test_generated_mazes_are_perfect(size: int, seed: int) -> None:
    maze = generate_dfs(size, seed)
    assert maze.passages() == size * size - 1
    assert _reachable(maze) == size * size
    for index in range(size * size):
        cell = divmod(index, size)
        for name in maze.open_directions(cell):
            assert maze.in_bounds(step(cell, name)), (cell, name)
    path = solve(maze)
    assert path[0] == (0, 0) and path[-1] == (size - 1, size - 1)
    assert len(set(path)) == len(path)
    assert all(any(step(a, d) == b and maze.is_open(a, d) for d in DIRECTIONS) for a, b in itertools.pairwise(path))


def test_seed_zero_is_a_seed() -> None:
    assert generate_dfs(9, 0) == generate_dfs(9, 0)
    assert generate_dfs(9, 0) != generate_dfs(9, 1)


@pytest.mark.parametrize("size, seed", [(1, 0), (0, 0), (-3, 1), (5, None), (5, "0"), (True, 0), (5, 1.5)])
def test_bad_size_or_seed_is_a_clear_error(size: object, seed: object) -> None:
    with pytest.raises(ValueError, match=r"size|seed"):
        generate_dfs(size, seed)  # type: ignore[arg-type]


def test_large_maze_needs_no_recursion() -> None:
    maze = generate_dfs(201, 7)
    assert maze.passages() == 201 * 201 - 1
    assert solve(maze)[-1] == (200, 200)


def test_same_maze_in_fresh_processes_with_different_hash_seeds() -> None:
    code = (
        "import json; from hallubench.hallumaze.generate import generate_dfs;"
        "print(json.dumps(generate_dfs(11, 0).open_sides))"
    )
    outputs = set()
    for hash_seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        outputs.add(out.stdout)
    assert len(outputs) == 1
    assert json.loads(outputs.pop()) == list(generate_dfs(11, 0).open_sides)
