"""Pictures of a maze: walls, the solution, the lures, and a model's path with its wall crossings.

SVG is written by hand (deterministic text, no dependency); PNG is produced only when a
renderer (cairosvg) happens to be importable. Used by `hallubench maze draw` and by the
rescore report for each model's best and worst trial.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from .grid import DELTA, Cell, Maze, direction_between

_SOLUTION = "#2e9d4f"
_PATH = "#1f5fbf"
_CROSSING = "#d62728"
_LURE = "#e08a00"
_JUMP = "#8a3ffc"


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


def draw_svg(
    maze: Maze,
    solution: Sequence[Cell],
    lures: Sequence[tuple[Cell, str]] = (),
    path: Sequence[Sequence[int]] | None = None,
    crossings: Sequence[int] = (),
    *,
    title: str | None = None,
) -> str:
    """The SVG text; `crossings` are 1-based move indices into `path` that went through a wall."""
    n = maze.size
    unit = max(4, min(40, 800 // n))
    margin = unit
    side = n * unit + 2 * margin
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{side}" height="{side}" viewBox="0 0 {side} {side}">',
        f'<rect width="{side}" height="{side}" fill="white"/>',
    ]
    if title:
        out.append(f"<title>{_escape(title)}</title>")
    for cell, colour in ((maze.start, "#cfe8ff"), (maze.exit, "#d4f5d4")):
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
    if path:
        out.append(_path(path, crossings, unit, margin))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _path(path: Sequence[Sequence[int]], crossings: Sequence[int], unit: int, margin: int) -> str:
    parts = [_polyline(path, unit, margin, _PATH, max(1.0, unit / 10))]
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
    except ImportError:
        return None
    png = module.svg2png(bytestring=svg.encode("utf-8"))
    return bytes(png)
