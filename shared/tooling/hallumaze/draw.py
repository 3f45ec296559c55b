"""Pictures of a maze: walls, the solution, the lures, and a model's path with its wall crossings.

SVG is written by hand (deterministic text, no dependency); PNG needs cairosvg (the `png` extra,
in `[all]`) and the cairo library (Debian: libcairo2). Every picture shows its title (trial id,
score) and a legend as visible text, not only in tooltips. Used by `hallubench maze draw`, by the
rescore report for each model's best and worst trial, and by the HTML report, which takes the
maze layer (`maze_layer`) once per case and draws each row's walk over it with `LEGEND`'s colours.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...hallumaze.grid import DELTA, Cell, Maze, direction_between

_SOLUTION = "#2e9d4f"
_PATH = "#1f5fbf"
_CROSSING = "#d62728"
_LURE = "#e08a00"
_JUMP = "#8a3ffc"
_BACKTRACK = "#a6761d"
_START = "#cfe8ff"
_EXIT = "#d4f5d4"
_LEGEND_ROW = 18
_MIN_WIDTH = 520  # room for the legend's four columns and the title

# (key, label, colour, mark): what each colour means, for every picture and the HTML report's legend.
LEGEND = (
    ("start", "start", _START, "cell"),
    ("exit", "exit", _EXIT, "cell"),
    ("solution", "solution", _SOLUTION, "line"),
    ("walk", "model's walk", _PATH, "line"),
    ("backtrack", "verified backtrack", _BACKTRACK, "line"),
    ("wall", "through a wall", _CROSSING, "cross"),
    ("teleport", "teleport", _JUMP, "dash"),
    ("lure", "lure (mirage hint)", _LURE, "dot"),
)


@dataclass(frozen=True)
class MazeLayer:
    """The parts of a picture that depend on the maze only: drawn once per case, a walk goes on top."""

    svg: str  # SVG elements (no <svg> wrapper): cells, walls, solution, lures
    unit: int  # pixels per cell
    margin: int  # pixels around the grid
    side: int  # width and height of the maze area


def backtrack_moves(path: Sequence[Sequence[int]], teleports: Sequence[int] = ()) -> list[int]:
    """1-based moves of `path` that step back onto the cell below the top of the walk's stack.

    The scorer's rule (`verify.py`) on the walk's cells; after a teleport the true origin is not in
    the cells, so the marks there are the best reading of the walk, while the counts come from the scorer.
    """
    stack = [tuple(path[0])] if path else []
    jumped = set(teleports)
    found = []
    for index in range(1, len(path)):
        target = tuple(path[index])
        if index in jumped:
            if target != stack[-1]:
                stack.append(target)
            continue
        if target == tuple(path[index - 1]):
            continue
        if len(stack) >= 2 and target == stack[-2]:
            stack.pop()
            found.append(index)
        elif target != stack[-1]:
            stack.append(target)
    return found


def _centre(cell: Sequence[int], unit: int, margin: int) -> tuple[float, float]:
    return (margin + (cell[1] + 0.5) * unit, margin + (cell[0] + 0.5) * unit)


def _polyline(cells: Sequence[Sequence[int]], unit: int, margin: int, colour: str, width: float) -> str:
    points = " ".join(f"{x:g},{y:g}" for x, y in (_centre(c, unit, margin) for c in cells))
    return (
        f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="{width:g}" '
        'stroke-linejoin="round" stroke-linecap="round" opacity="0.8"/>'
    )


def _walls(maze: Maze, unit: int, margin: int) -> str:
    n = maze.size
    parts: list[str] = []
    for r in range(n):
        for c in range(n):
            x, y = margin + c * unit, margin + r * unit
            if not maze.is_open((r, c), "N"):
                parts.append(f"M{x},{y}h{unit}")
            if not maze.is_open((r, c), "W"):
                parts.append(f"M{x},{y}v{unit}")
    side = n * unit
    parts.append(f"M{margin},{margin + side}h{side}M{margin + side},{margin}v{side}")
    return f'<path d="{"".join(parts)}" stroke="#222" stroke-width="{max(1, unit // 10)}" stroke-linecap="square"/>'


def maze_layer(maze: Maze, solution: Sequence[Cell], lures: Sequence[tuple[Cell, str]] = ()) -> MazeLayer:
    """Start and exit cells, walls, the solution and the lures, in the coordinates a walk is drawn in."""
    n = maze.size
    unit = max(4, min(40, 800 // n))
    margin = unit
    side = n * unit + 2 * margin
    out = []
    for cell, colour in ((maze.start, _START), (maze.exit, _EXIT)):
        out.append(
            f'<rect x="{margin + cell[1] * unit}" y="{margin + cell[0] * unit}" '
            f'width="{unit}" height="{unit}" fill="{colour}"/>'
        )
    out.append(_walls(maze, unit, margin))
    if solution:
        out.append(_polyline(solution, unit, margin, _SOLUTION, max(1.0, unit / 6)))
    for cell, name in lures:
        x, y = _centre(cell, unit, margin)
        dr, dc = DELTA[name]
        out.append(
            f'<line x1="{x:g}" y1="{y:g}" x2="{x + dc * unit * 0.45:g}" y2="{y + dr * unit * 0.45:g}" '
            f'stroke="{_LURE}" stroke-width="{max(1.0, unit / 8):g}"/>'
            f'<circle cx="{x + dc * unit * 0.45:g}" cy="{y + dr * unit * 0.45:g}" r="{max(1.5, unit / 7):g}" '
            f'fill="{_LURE}"><title>lure {name} at ({cell[0]},{cell[1]})</title></circle>'
        )
    return MazeLayer("\n".join(out), unit, margin, side)


def draw_svg(
    maze: Maze,
    solution: Sequence[Cell],
    lures: Sequence[tuple[Cell, str]] = (),
    path: Sequence[Sequence[int]] | None = None,
    crossings: Sequence[int] = (),
    *,
    title: str | None = None,
    subtitle: str | None = None,
    teleports: Sequence[int] = (),
) -> str:
    """The SVG text; `crossings` are 1-based move indices into `path` that went through a wall.

    The title and subtitle (when given, e.g. the trial id and its score) are written above the maze
    and the legend below it, as visible text.
    """
    layer = maze_layer(maze, solution, lures)
    side = layer.side
    width = max(side, _MIN_WIDTH)
    lines = [text for text in (title, subtitle) if text]
    top = len(lines) * _LEGEND_ROW + (6 if lines else 0)
    legend_rows = (len(LEGEND) + 3) // 4
    height = top + side + legend_rows * _LEGEND_ROW + 6
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    if lines:
        out.append(f"<title>{_escape(' — '.join(lines))}</title>")
    for index, text in enumerate(lines):
        weight = ' font-weight="bold"' if index == 0 else ""
        out.append(f'<text x="6" y="{(index + 1) * _LEGEND_ROW}" font-size="13"{weight}>{_escape(text)}</text>')
    out.append(f'<g transform="translate({(width - side) // 2},{top})">')
    out.append(layer.svg)
    if path:
        out.append(_path(path, crossings, layer.unit, layer.margin, backtrack_moves(path, teleports)))
    out.append("</g>")
    out.append(_legend(top + side, width))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _legend(y: int, width: int) -> str:
    """The colour key, four entries a row, under the maze."""
    parts = []
    column = width / 4
    for index, (_, label, colour, mark) in enumerate(LEGEND):
        x = 6 + (index % 4) * column
        row_y = y + (index // 4) * _LEGEND_ROW + _LEGEND_ROW / 2
        if mark == "cell":
            parts.append(f'<rect x="{x:g}" y="{row_y - 5:g}" width="10" height="10" fill="{colour}" stroke="#999"/>')
        elif mark == "cross":
            parts.append(
                f'<path d="M{x:g},{row_y - 5:g}l10,10M{x:g},{row_y + 5:g}l10,-10" stroke="{colour}" stroke-width="2"/>'
            )
        elif mark == "dot":
            parts.append(f'<circle cx="{x + 5:g}" cy="{row_y:g}" r="4" fill="{colour}"/>')
        else:
            dash = ' stroke-dasharray="4 3"' if mark == "dash" else ""
            parts.append(
                f'<line x1="{x:g}" y1="{row_y:g}" x2="{x + 12:g}" y2="{row_y:g}" stroke="{colour}" '
                f'stroke-width="3"{dash}/>'
            )
        parts.append(f'<text x="{x + 16:g}" y="{row_y + 4:g}" font-size="11">{_escape(label)}</text>')
    return "\n".join(parts)


def _path(
    path: Sequence[Sequence[int]], crossings: Sequence[int], unit: int, margin: int, backtracks: Sequence[int] = ()
) -> str:
    parts = []
    for index in backtracks:
        (x1, y1), (x2, y2) = _centre(path[index - 1], unit, margin), _centre(path[index], unit, margin)
        parts.append(
            f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{_BACKTRACK}" '
            f'stroke-width="{max(2.0, unit / 4):g}" stroke-linecap="round" opacity="0.7">'
            f"<title>move {index}: backtrack</title></line>"
        )
    parts.append(_polyline(path, unit, margin, _PATH, max(1.0, unit / 10)))
    marked = set(crossings)
    for index in range(1, len(path)):
        a, b = path[index - 1], path[index]
        (x1, y1), (x2, y2) = _centre(a, unit, margin), _centre(b, unit, margin)
        if index in marked:
            mx, my, s = (x1 + x2) / 2, (y1 + y2) / 2, unit / 4
            parts.append(
                f'<path d="M{mx - s:g},{my - s:g}L{mx + s:g},{my + s:g}M{mx - s:g},{my + s:g}L{mx + s:g},{my - s:g}" '
                f'stroke="{_CROSSING}" stroke-width="{max(1.5, unit / 8):g}">'
                f"<title>move {index}: through a wall</title></path>"
            )
        elif direction_between((a[0], a[1]), (b[0], b[1])) is None and tuple(a) != tuple(b):
            parts.append(
                f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{_JUMP}" '
                f'stroke-dasharray="4 3"><title>move {index}: teleport</title></line>'
            )
    return "\n".join(parts)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg_to_png(svg: str) -> bytes | None:
    """PNG bytes when cairosvg is importable, else None (the caller says what is missing)."""
    try:
        module: Any = importlib.import_module("cairosvg")
    except (ImportError, OSError):  # OSError: cairosvg installed, the cairo library (libcairo2) missing
        return None
    png = module.svg2png(bytestring=svg.encode("utf-8"))
    return bytes(png)
