"""The HalluMaze v1.1 text encoding of a maze: a header, then one line per cell with its open sides.

    MAZE 5x5 | START:(0,0) | EXIT:(4,4)
    Seed: 0

    Open directions from each cell (no wall = passable):
    (0,0): [S↓ E→]
    (0,1): [E→ W←]  ⚑ hint toward S: A breeze is flowing from this direction.

The English labels are hallumaze v2's; `KOREAN_V11` reproduces the labels of the original v1.1
prompts (`MAZE 5×5`, `⚑ S방향 힌트: ...`), used to write v1.1-style fixtures and read by `v11`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from .grid import ARROW, Maze
from .lures import Lure


@dataclass(frozen=True)
class Labels:
    """The natural-language pieces of the encoding."""

    times: str
    intro: str
    blocked: str
    lure: str  # format string with {direction} and {phrase}


ENGLISH = Labels(
    times="x",
    intro="Open directions from each cell (no wall = passable):",
    blocked="blocked",
    lure="  ⚑ hint toward {direction}: {phrase}",
)
KOREAN_V11 = Labels(
    times="×",
    intro="각 셀에서 이동 가능한 방향 (벽 없음 = 통과 가능):",
    blocked="막힘",
    lure="  ⚑ {direction}방향 힌트: {phrase}",
)


def encode_maze(maze: Maze, lures: Iterable[Lure] = (), *, labels: Labels = ENGLISH) -> str:
    """The text a model reads; pass no lures for the mirage-off condition."""
    n = maze.size
    hints: dict[tuple[int, int, str], str] = {(*lure.cell, lure.direction): lure.phrase for lure in lures}
    lines = [f"MAZE {n}{labels.times}{n} | START:(0,0) | EXIT:({n - 1},{n - 1})"]
    if maze.seed is not None:
        lines.append(f"Seed: {maze.seed}\n")
    lines.append(labels.intro)
    for r in range(n):
        for c in range(n):
            sides = maze.open_directions((r, c))
            listed = " ".join(f"{d}{ARROW[d]}" for d in sides) if sides else labels.blocked
            line = f"({r},{c}): [{listed}]"
            for d in sides:
                phrase = hints.get((r, c, d))
                if phrase is not None:
                    line += labels.lure.format(direction=d, phrase=phrase)
            lines.append(line)
    return "\n".join(lines)


@lru_cache(maxsize=1024)
def maze_text(maze: Maze, lures: tuple[Lure, ...]) -> str:
    """`encode_maze` in English, memoised: rescoring renders every case once per model."""
    return encode_maze(maze, lures)
