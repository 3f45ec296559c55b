"""The maze as data: cells, the four directions, and which sides of each cell are open.

A maze is an immutable N x N grid whose cells hold a 4-bit mask of open sides. Everything
else (generation, lures, replay, drawing) reads it through this one small interface, so the
wall test that decides "hallucination or not" exists in exactly one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

Cell = tuple[int, int]

DIRECTIONS: tuple[str, ...] = ("N", "S", "E", "W")
"""The order v1.1 lists open directions in (and the order its DFS tries neighbours)."""

DELTA: dict[str, Cell] = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}
BIT: dict[str, int] = {"N": 1, "S": 2, "E": 4, "W": 8}
OPPOSITE: dict[str, str] = {"N": "S", "S": "N", "E": "W", "W": "E"}
ARROW: dict[str, str] = {"N": "↑", "S": "↓", "E": "→", "W": "←"}
NAME_OF_DELTA: dict[Cell, str] = {delta: name for name, delta in DELTA.items()}


def step(cell: Cell, direction: str) -> Cell:
    """The cell one move away in `direction` (possibly outside the grid)."""
    dr, dc = DELTA[direction]
    return (cell[0] + dr, cell[1] + dc)


def direction_between(a: Cell, b: Cell) -> str | None:
    """The direction of a unit move from `a` to `b`, or None when they are not neighbours."""
    return NAME_OF_DELTA.get((b[0] - a[0], b[1] - a[1]))


@dataclass(frozen=True)
class Maze:
    """An N x N maze: `open_sides[r * N + c]` is the bit mask (see `BIT`) of open sides of (r, c)."""

    size: int
    open_sides: tuple[int, ...]
    seed: int | None = None

    @property
    def start(self) -> Cell:
        return (0, 0)

    @property
    def exit(self) -> Cell:
        return (self.size - 1, self.size - 1)

    def in_bounds(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.size and 0 <= cell[1] < self.size

    def is_open(self, cell: Cell, direction: str) -> bool:
        """True when a move from `cell` in `direction` crosses no wall and stays in the grid."""
        if not self.in_bounds(cell):
            return False
        return bool(self.open_sides[cell[0] * self.size + cell[1]] & BIT[direction])

    def open_directions(self, cell: Cell) -> list[str]:
        """Open sides of `cell`, in the order N, S, E, W."""
        mask = self.open_sides[cell[0] * self.size + cell[1]]
        return [d for d in DIRECTIONS if mask & BIT[d]]

    def degree(self, cell: Cell) -> int:
        return len(self.open_directions(cell))

    @cached_property
    def dead_end_cells(self) -> frozenset[Cell]:
        """Every degree-1 cell other than the exit (computed once per maze; replay asks per move)."""
        n = self.size
        single = {BIT[d] for d in DIRECTIONS}
        return frozenset(divmod(i, n) for i, mask in enumerate(self.open_sides) if mask in single) - {self.exit}

    def is_dead_end(self, cell: Cell) -> bool:
        """A degree-1 cell other than the exit: reaching it means the branch is exhausted."""
        return cell in self.dead_end_cells

    def passages(self) -> int:
        """Number of open walls between neighbouring cells (N*N - 1 for a perfect maze)."""
        return sum(bin(mask & (BIT["S"] | BIT["E"])).count("1") for mask in self.open_sides)

    @cached_property
    def step_table(self) -> tuple[int, ...]:
        """Moves on flat indices (cell r * N + c, direction code `CODE`): `table[index * 4 + code]`.

        The index of the cell the move reaches when the side is open, -1 when the move leaves the
        grid, and -2 - (index of the neighbour) when a wall is in the way: the replay makes one
        lookup per declared move instead of a bounds check, a mask test and a new tuple.
        """
        n = self.size
        table: list[int] = []
        for index, mask in enumerate(self.open_sides):
            r, c = divmod(index, n)
            for name in DIRECTIONS:
                dr, dc = DELTA[name]
                if not (0 <= r + dr < n and 0 <= c + dc < n):
                    table.append(-1)
                elif mask & BIT[name]:
                    table.append(index + dr * n + dc)
                else:
                    table.append(-2 - (index + dr * n + dc))
        return tuple(table)

    @cached_property
    def cell_at(self) -> tuple[Cell, ...]:
        """Flat index -> cell (the inverse of `cell_index`)."""
        return tuple(divmod(index, self.size) for index in range(self.size * self.size))

    @cached_property
    def cell_label(self) -> tuple[str, ...]:
        """Flat index -> "r,c" (the cell as `compact.cells_text` writes it)."""
        return tuple(f"{r},{c}" for r, c in self.cell_at)

    @cached_property
    def label_index(self) -> dict[str, int]:
        """ "r,c" -> flat index, for the cells inside the grid (a STEP line's cell, as the fast reader keeps it)."""
        return {label: index for index, label in enumerate(self.cell_label)}

    @cached_property
    def dead_end_at(self) -> tuple[bool, ...]:
        """Flat index -> whether the cell is one of `dead_end_cells`."""
        return tuple(map(self.dead_end_cells.__contains__, self.cell_at))

    @cached_property
    def cell_index(self) -> dict[Cell, int]:
        """Cell -> flat index r * N + c, for the cells inside the grid only."""
        n = self.size
        return {(r, c): r * n + c for r in range(n) for c in range(n)}

    @cached_property
    def open_pairs(self) -> frozenset[tuple[Cell, Cell]]:
        """Every (cell, neighbour) pair joined by an open side, both ways round."""
        n = self.size
        return frozenset(
            (divmod(slot // 4, n), divmod(target, n)) for slot, target in enumerate(self.step_table) if target >= 0
        )

    @cached_property
    def neighbour_pairs(self) -> frozenset[tuple[Cell, Cell]]:
        """Every (cell, neighbour) pair of cells inside the grid, open or walled, both ways round."""
        n = self.size
        return frozenset(
            (divmod(slot // 4, n), divmod(target if target >= 0 else -2 - target, n))
            for slot, target in enumerate(self.step_table)
            if target != -1
        )


CODE: dict[str, int] = {name: code for code, name in enumerate(DIRECTIONS)}
"""Direction -> code in `Maze.step_table` (the order of `DIRECTIONS`)."""
