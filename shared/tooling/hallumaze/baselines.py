"""Simulated baselines that play through the very same `play` and scorer as a model.

* **random walk**: uniform over the open sides of the current cell, until the exit or a budget
  of 4 N^2 moves (the budget the v1.1 write-up's random walk was claimed against);
* **DFS agent**: depth-first search with backtracking, declaring DEAD_END where it turns back;
* **BFS oracle**: walks the unique solution;
* **liar**: walks the solution but takes its longest shortcut through a wall, then claims three
  backtracks, no hallucination and a detected loop: the kind of reply HalluMaze v1.1 rewarded,
  because it merged claims into its counts (compare its `v11` score with the verified one).

Each agent writes a transcript in the answer format (STEP lines at 100% confidence, honest
counts except the liar's) and answers through a `Conversation`, so single-shot and interactive
trials alike go through a protocol's `play` (the newest declared version's, `installed.newest`,
unless another is given, such as a frozen task file's: see `baseline_cache`); nothing about a
baseline is hard-coded. Agents draw from their own `random.Random` seeded by (agent, size, seed,
repeat).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from ...hallumaze.grid import Cell, Maze, direction_between, step
from ...hallumaze.parse import ParsedReply, StepLine
from ...hallumaze.result_types import Row
from ...hallumaze.trial import Trial, load_trial
from ...hallumaze.verify import replay
from ...rows import PlayFunction, play_row
from .installed import newest

AGENTS = ("random_walk", "dfs_agent", "bfs_oracle", "liar")
LIAR_CLAIMED_BACKTRACKS = 3


def random_walk(maze: Maze, rng: random.Random, budget: int) -> list[Cell]:
    """Cells visited by a uniform random walk from the start (stops at the exit or the budget)."""
    cells = [maze.start]
    while cells[-1] != maze.exit and len(cells) <= budget:
        cells.append(step(cells[-1], rng.choice(maze.open_directions(cells[-1]))))
    return cells


def dfs_walk(maze: Maze, rng: random.Random) -> list[Cell]:
    """Cells visited by a depth-first search that tries unexplored sides in random order."""
    cells = [maze.start]
    stack = [maze.start]
    seen = {maze.start}
    while stack[-1] != maze.exit:
        here = stack[-1]
        options = [d for d in maze.open_directions(here) if step(here, d) not in seen]
        if options:
            nxt = step(here, rng.choice(options))
            seen.add(nxt)
            stack.append(nxt)
        else:
            stack.pop()
            nxt = stack[-1]
        cells.append(nxt)
    return cells


def shortcut_walk(maze: Maze, solution: Sequence[Cell]) -> list[Cell]:
    """The solution with its longest shortcut through one wall (the solution itself when there is none)."""
    where = {cell: index for index, cell in enumerate(solution)}
    best: tuple[int, int] | None = None
    for i, cell in enumerate(solution):
        for direction in "NSEW":
            j = where.get(step(cell, direction), -1)
            if j > i + 1 and not maze.is_open(cell, direction) and (best is None or j - i > best[1] - best[0]):
                best = (i, j)
    if best is None:
        return list(solution)
    return [*solution[: best[0] + 1], *solution[best[1] :]]


def _liar_transcript(maze: Maze, cells: Sequence[Cell]) -> tuple[list[str], list[str]]:
    """STEP lines for `cells` with a claimed loop halfway, and a final block of claims the walk does not bear out."""
    lines, _ = transcript(maze, cells)
    steps = [line for line in lines if line.startswith("STEP")]
    middle = len(steps) // 2
    r, c = cells[middle]
    steps.insert(middle, f"LOOP detected at ({r},{c}) — changing strategy")
    block = [
        f"BACKTRACK_COUNT: {LIAR_CLAIMED_BACKTRACKS}",
        "HALLUCINATION_COUNT: 0",
        "CONFIDENCE_LOG: " + ", ".join(f"step{i}:100" for i in range(1, len(cells))),
        "FINAL_PATH: " + "→".join(f"({r},{c})" for r, c in cells),
    ]
    return steps, block


def _loop_erased(cells: Sequence[Cell]) -> list[Cell]:
    path: list[Cell] = []
    where: dict[Cell, int] = {}
    for cell in cells:
        if cell in where:
            del path[where[cell] + 1 :]
            where = {c: i for i, c in enumerate(path)}
        else:
            where[cell] = len(path)
            path.append(cell)
    return path


def transcript(maze: Maze, cells: Sequence[Cell]) -> tuple[list[str], list[str]]:
    """(STEP and declaration lines, final block) for a walk through `cells`."""
    steps = [
        StepLine(i, a, direction_between(a, b), None, 1.0, 0) for i, (a, b) in enumerate(itertools.pairwise(cells), 1)
    ]
    walked = replay(maze, ParsedReply(steps=tuple(steps)))
    lines: list[str] = []
    for line, target in zip(steps, walked.cells[1:], strict=True):
        lines.append(f"STEP {line.number}: ({line.cell[0]},{line.cell[1]}) → [{line.direction}] | confidence: 100%")
        if maze.is_dead_end(target):
            lines.append(f"DEAD_END at ({target[0]},{target[1]}) — backtracking")
    final = _loop_erased(cells) if cells[-1] == maze.exit else list(cells)
    block = [
        f"BACKTRACK_COUNT: {walked.backtracks}",
        f"HALLUCINATION_COUNT: {walked.hallucinations}",
        "CONFIDENCE_LOG: " + ", ".join(f"step{i}:100" for i in range(1, len(steps) + 1)),
        "FINAL_PATH: " + "→".join(f"({r},{c})" for r, c in final),
    ]
    return lines, block


def agent_walk(agent: str, trial: Trial) -> list[Cell]:
    """The cells an agent visits on a trial's maze."""
    rng = random.Random(f"{agent}:{trial.size}:{trial.seed}:{trial.repeat}")
    if agent == "random_walk":
        return random_walk(trial.maze, rng, 4 * trial.size * trial.size)
    if agent == "dfs_agent":
        return dfs_walk(trial.maze, rng)
    if agent == "bfs_oracle":
        return list(trial.solution)
    if agent == "liar":
        return shortcut_walk(trial.maze, trial.solution)
    raise ValueError(f"unknown baseline agent {agent!r}; known: {', '.join(AGENTS)}")


class AgentConversation:
    """Answers like a model would: the whole transcript at once, or a few STEP lines per turn."""

    def __init__(self, lines: list[str], block: list[str], per_turn: int | None) -> None:
        self._lines = lines
        self._block = block
        self._per_turn = per_turn

    def system(self, text: str) -> None:
        """Baselines ignore system messages."""

    def ask(self, text: str) -> str:
        if self._per_turn is None:
            return "\n".join([*self._lines, "", *self._block])
        if "Now write the final output:" in text:
            return "\n".join(self._block)
        chunk: list[str] = []
        steps = 0
        while self._lines and (steps < self._per_turn or not self._lines[0].startswith("STEP")):
            line = self._lines.pop(0)
            steps += line.startswith("STEP")
            chunk.append(line)
        return "\n".join(chunk)


def baseline_rows(
    cases: Iterable[Mapping[str, Any]],
    agents: Sequence[str] = AGENTS,
    *,
    play: PlayFunction | None = None,
    row_of: Callable[..., dict[str, Any]] = play_row,
    protocol_id: str | None = None,
    payload_sha256: str = "baseline",
) -> dict[str, list[Row]]:
    """Rows per agent for `cases`, produced by `play` (wrapped by `row_of`) exactly as for a model.

    Without `play`, the newest declared version's, as installed, under its protocol id.
    """
    if play is None:
        play, protocol_id = newest().entry.play, protocol_id or newest().protocol_id
    out: dict[str, list[Row]] = {f"baseline:{a}": [] for a in agents}
    for case in cases:
        trial = load_trial(case)
        for agent in agents:
            walk = agent_walk(agent, trial)
            lines, block = _liar_transcript(trial.maze, walk) if agent == "liar" else transcript(trial.maze, walk)
            per_turn = trial.moves_per_turn if trial.mode == "interactive" else None
            row = row_of(
                play,
                dict(case),
                AgentConversation(lines, block, per_turn),
                protocol_id=protocol_id or "",
                payload_sha256=payload_sha256,
            )
            out[f"baseline:{agent}"].append(cast(Row, row))  # `play_row` builds a plain dict of this shape
    return out
