"""What a case dict means: validation, its maze, solution and lures, and its id.

A case is plain JSON, e.g. `{"id": "n05-s0000-mirage-A-r0", "size": 5, "seed": 0, "mirage": true,
"confidence": true, "group": "A", "repeat": 0, "mode": "single"}`; optional keys `max_tokens`
(stated in the prompt), `moves_per_turn` and `max_turns` (interactive mode). Bad cases raise
ValueError naming the field, so a broken case list fails the build, and a broken case at play
time becomes an error row, never a silent default.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .generate import check_size_and_seed, maze_for
from .grid import Cell, Maze
from .lures import Lure, lure_slots, place_lures
from .solve import solution_for

GROUPS = ("A", "B", "C")
MODES = ("single", "interactive")
_ID = re.compile(r"^[A-Za-z0-9_.-]+$")


@dataclass(frozen=True)
class Trial:
    """A validated case with its maze materialised."""

    case_id: str
    size: int
    seed: int
    mirage: bool
    confidence: bool
    group: str
    repeat: int
    mode: str
    max_tokens: int | None
    moves_per_turn: int
    max_turns: int
    maze: Maze
    solution: tuple[Cell, ...]
    lures: tuple[Lure, ...]
    slots: tuple[tuple[Cell, str], ...]

    @property
    def shown_lures(self) -> tuple[Lure, ...]:
        """The lures written into the prompt: none when the mirage is off."""
        return self.lures if self.mirage else ()

    def condition(self) -> dict[str, Any]:
        """The case's experimental condition, copied into every row so aggregation needs no case list."""
        return {
            "size": self.size,
            "seed": self.seed,
            "mirage": self.mirage,
            "confidence": self.confidence,
            "group": self.group,
            "repeat": self.repeat,
            "mode": self.mode,
        }


def case_id(size: int, seed: int, *, mirage: bool, confidence: bool, group: str, repeat: int, mode: str) -> str:
    """`n05-s0000-mirage-A-r0`; `-noconf` and `-int` mark the confidence-off and interactive conditions."""
    parts = [f"n{size:02d}", f"s{seed:04d}", "mirage" if mirage else "plain"]
    if not confidence:
        parts.append("noconf")
    parts += [group, f"r{repeat}"]
    if mode == "interactive":
        parts.append("int")
    return "-".join(parts)


def _flag(case: Mapping[str, Any], key: str, default: bool) -> bool:
    value = case.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"case field {key!r} must be true or false, got {value!r}")
    return value


def _positive_int(case: Mapping[str, Any], key: str, default: int | None) -> int | None:
    value = case.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"case field {key!r} must be a positive integer, got {value!r}")
    return value


def load_trial(case: Mapping[str, Any]) -> Trial:
    """Validate `case` and build its maze (memoised per (size, seed))."""
    if not isinstance(case, Mapping):
        raise ValueError(f"a case must be a JSON object, got {type(case).__name__}")
    size, seed = check_size_and_seed(case.get("size"), case.get("seed"))
    group = case.get("group", "A")
    if group not in GROUPS:
        raise ValueError(f"case field 'group' must be one of {GROUPS}, got {group!r}")
    mode = case.get("mode", "single")
    if mode not in MODES:
        raise ValueError(f"case field 'mode' must be one of {MODES}, got {mode!r}")
    repeat = case.get("repeat", 0)
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 0:
        raise ValueError(f"case field 'repeat' must be a non-negative integer, got {repeat!r}")
    mirage = _flag(case, "mirage", True)
    confidence = _flag(case, "confidence", True)
    identifier = case.get("id") or case_id(
        size, seed, mirage=mirage, confidence=confidence, group=group, repeat=repeat, mode=mode
    )
    if not isinstance(identifier, str) or not _ID.match(identifier):
        raise ValueError(f"case id must match [A-Za-z0-9_.-]+, got {identifier!r}")
    maze, solution, lures, slots = _materialised(size, seed)
    return Trial(
        case_id=identifier,
        size=size,
        seed=seed,
        mirage=mirage,
        confidence=confidence,
        group=group,
        repeat=repeat,
        mode=mode,
        max_tokens=_positive_int(case, "max_tokens", None),
        moves_per_turn=_positive_int(case, "moves_per_turn", 8) or 8,
        max_turns=_positive_int(case, "max_turns", 3 * size) or 3 * size,
        maze=maze,
        solution=solution,
        lures=lures,
        slots=slots,
    )


@lru_cache(maxsize=256)
def _materialised(
    size: int, seed: int
) -> tuple[Maze, tuple[Cell, ...], tuple[Lure, ...], tuple[tuple[Cell, str], ...]]:
    """Maze, solution, lures and lure slots of (size, seed), memoised: every model replays every case."""
    maze = maze_for(size, seed)
    solution = solution_for(maze)
    return maze, solution, place_lures(maze, solution, seed), tuple(lure_slots(maze, solution))
