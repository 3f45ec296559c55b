"""Stub models for hallumaze that score differently from maze to maze: a solver that solves a share of mazes.

Each reply reads the maze from the prompt (its open directions per cell), and, for a maze the model "knows"
(a hash of the prompt and the model's name under its skill), walks the shortest path to the exit; otherwise it
takes a few legal random steps, seeded by the prompt, and stops. So a model's scores vary by case, two models
differ by about the gap in their skills, and the same model answers the same prompt the same way every time.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import deque
from collections.abc import Callable
from typing import Any

Cell = tuple[int, int]
MOVES = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}
_CELL = re.compile(r"^\((\d+),(\d+)\): \[([^\]]*)\]", re.MULTILINE)
_EXIT = re.compile(r"EXIT:\((\d+),(\d+)\)")


def maze_of(prompt: str) -> tuple[dict[Cell, list[str]], Cell]:
    """The open directions of every cell, and the exit, as the prompt states them."""
    cells = {(int(r), int(c)): re.findall(r"[NSEW]", dirs) for r, c, dirs in _CELL.findall(prompt)}
    found = _EXIT.search(prompt)
    assert found is not None and cells, "not a hallumaze prompt"
    return cells, (int(found.group(1)), int(found.group(2)))


def shortest_path(cells: dict[Cell, list[str]], exit_cell: Cell) -> list[str]:
    """The moves of a shortest walk from (0,0) to the exit (breadth first)."""
    came: dict[Cell, tuple[Cell, str] | None] = {(0, 0): None}
    queue = deque([(0, 0)])
    while queue:
        cell = queue.popleft()
        if cell == exit_cell:
            break
        for move in cells.get(cell, []):
            dr, dc = MOVES[move]
            nxt = (cell[0] + dr, cell[1] + dc)
            if nxt not in came:
                came[nxt] = (cell, move)
                queue.append(nxt)
    moves: list[str] = []
    cell = exit_cell
    while came.get(cell) is not None:
        before, move = came[cell]  # type: ignore[misc]
        moves.append(move)
        cell = before
    return moves[::-1]


def _reply_text(moves: list[str], confidence: int) -> str:
    cell, lines, path = (0, 0), [], ["(0,0)"]
    for number, move in enumerate(moves, start=1):
        lines.append(f"STEP {number}: ({cell[0]},{cell[1]}) → {move} | confidence: {confidence}% | open")
        cell = (cell[0] + MOVES[move][0], cell[1] + MOVES[move][1])
        path.append(f"({cell[0]},{cell[1]})")
    lines += [
        "BACKTRACK_COUNT: 0",
        "HALLUCINATION_COUNT: 0",
        "CONFIDENCE_LOG: " + ", ".join(str(confidence) for _ in moves),
        "FINAL_PATH: " + "→".join(path),
    ]
    return "\n".join(lines) + "\n"


def solver(name: str, skill: float) -> Callable[[list[dict[str, Any]]], str]:
    """A model that solves a maze when the prompt's hash (with its name) falls under `skill`, else wanders."""

    def reply(messages: list[dict[str, Any]]) -> str:
        prompt = str(messages[-1]["content"])
        digest = hashlib.sha256(f"{name}\n{prompt}".encode()).digest()
        cells, exit_cell = maze_of(prompt)
        if int.from_bytes(digest[:4], "big") / 2**32 < skill:
            return _reply_text(shortest_path(cells, exit_cell), 90)
        rng = random.Random(digest)
        cell, moves = (0, 0), []
        for _ in range(rng.randint(1, 4)):
            options = cells.get(cell, [])
            if not options:
                break
            move = rng.choice(options)
            moves.append(move)
            cell = (cell[0] + MOVES[move][0], cell[1] + MOVES[move][1])
        return _reply_text(moves, 50)

    return reply
