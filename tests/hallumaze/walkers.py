"""Stub models for hallumaze that score differently from maze to maze: a solver that solves a share of mazes.

For a maze the model "knows" (a hash of the prompt and the model's name under its skill) a reply walks the
maze's solution (hallumaze's own generator and solver, from the prompt's size and seed); otherwise it takes a
few legal random steps from the open directions the prompt lists, seeded by the prompt, and stops. So a
model's scores vary by case, two models differ by about the gap in their skills, and the same model answers the
same prompt the same way every time.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from itertools import pairwise
from typing import Any

from hallubench.hallumaze.generate import maze_for
from hallubench.hallumaze.grid import direction_between
from hallubench.hallumaze.solve import solution_for

MOVES = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}
_CELL = re.compile(r"^\((\d+),(\d+)\): \[([^\]]*)\]", re.MULTILINE)
_SIZE_AND_SEED = re.compile(r"MAZE (\d+)x\d+ .*?\nSeed: (\d+)", re.DOTALL)


def open_directions(prompt: str) -> dict[tuple[int, int], list[str]]:
    """The open directions of every cell, as the prompt states them (what a wandering model reads)."""
    return {(int(r), int(c)): re.findall(r"[NSEW]", dirs) for r, c, dirs in _CELL.findall(prompt)}


def shortest_path(prompt: str) -> list[str]:
    """The moves of the maze's solution: the maze regenerated from the prompt's size and seed, solved by
    hallumaze's own breadth-first search."""
    found = _SIZE_AND_SEED.search(prompt)
    assert found is not None, "not a hallumaze prompt"
    cells = solution_for(maze_for(int(found.group(1)), int(found.group(2))))
    return [str(direction_between(a, b)) for a, b in pairwise(cells)]


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
        cells = open_directions(prompt)
        if int.from_bytes(digest[:4], "big") / 2**32 < skill:
            return _reply_text(shortest_path(prompt), 90)
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
