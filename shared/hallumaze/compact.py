"""Compact encodings for the per-move data a row keeps.

Kaggle stores a row as a protobuf Struct and every rescore reads it back value by value, so
a 500-move trajectory is kept as one string ("0,0 0,1 1,1"), move indices as one string
("3 7 12"), and the per-move calibration pairs as counts per stated confidence
([[0.9, legal, illegal], ...]: pooled calibration needs no move order). Each writer here has
the reader that inverts it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from .grid import Cell


def cells_text(cells: Iterable[Sequence[int]]) -> str:
    """`(0,0), (0,1)` -> `"0,0 0,1"`."""
    flat = [value for cell in cells for value in (cell[0], cell[1])]
    return " ".join(["%d,%d"] * (len(flat) // 2)) % tuple(flat)


def read_cells(text: str) -> list[Cell]:
    """The inverse of `cells_text`; raises ValueError on anything else."""
    cells: list[Cell] = []
    for item in text.split():
        r, c = item.split(",")
        cells.append((int(r), int(c)))
    return cells


def ints_text(values: Iterable[int]) -> str:
    """`[3, 7, 12]` -> `"3 7 12"`."""
    return " ".join(map(str, values))


def read_ints(text: str) -> list[int]:
    """The inverse of `ints_text`."""
    return [int(v) for v in text.split()]


def confidence_counts(pairs: Iterable[tuple[float, bool]]) -> list[list[float]]:
    """[[confidence, legal moves, illegal moves], ...] sorted by confidence."""
    tally = Counter(pairs)  # (c, True) and (c, 1) are one key
    return [[c, tally[(c, True)], tally[(c, False)]] for c in sorted({c for c, _ in tally})]
