"""Interoperability with HalluMaze v1.1: read its maze encoding, and score a reply the v1.1 way.

`read_maze_text` accepts the v1.1 text encoding as it appears in the original prompts and logs
(Korean labels: `MAZE 5×5`, `막힘`, `⚑ E방향 힌트: ...`) and hallumaze v2's English one, so
published v1.1 transcripts can be rescored with verified metrics.

`score_v11` recomputes the v1.1 score as v1.1's `ResponseParser.parse` computes it, for
comparison with published numbers only; it is labelled as such wherever it is reported.
Reimplemented from the formulas, including its documented behaviours: claimed counts merged
into measured ones with max(), every "dead end"/"막다른" mention counted as a backtrack, loops
counted by keyword, FINAL_PATH's start never checked, and a CE that treats every unit move as
wrong (its direction lookup also matches the arrow keys, which are never wall attributes), so
CE equals the mean stated confidence. One deliberate widening: STEP confidences are read after
`confidence:` as well as `확신도:`, otherwise English replies would never carry a CE at all.
"""

from __future__ import annotations

import itertools
import re
from operator import itemgetter
from typing import Any

from hallubench.hallumaze.grid import BIT, NAME_OF_DELTA, OPPOSITE, Cell, Maze, step

from .lures import Lure
from .metrics import v11_formulas
from .parse import ParsedReply, anchored_matches

V11_LABEL = "HalluMaze v1.1 scoring as coded (self-reports merged with max; CE as coded); for comparison only"

_HEADER = re.compile(r"MAZE\s+(\d+)\s*[x×X]\s*(\d+)")
_SEED = re.compile(r"^\s*Seed:\s*(-?\d+)", re.M)
_CELL_LINE = re.compile(r"^\s*\((\d+)\s*,\s*(\d+)\)\s*:\s*\[([^\]]*)\](.*)$")
_LURE = re.compile(r"⚑\s*(?:hint toward\s+)?([NSEW])\s*(?:방향\s*힌트|hint)?\s*:\s*(.*?)(?=\s+⚑|$)")

_V11_STEP = re.compile(
    r"STEP\s+(\d+):\s*\((\d+),\s*(\d+)\)\s*[→\->\s]+\[?([NSEW←→↑↓]+)\]?"
    r"(?:\s*\|\s*(?:확신도|confidence)[:\s]*(\d+)%?)?",
    re.I,
)
_V11_PATH = re.compile(r"FINAL_PATH[:\s]+([\d,()\s→\->]+)", re.I)
_COORD = re.compile(r"\((\d+),\s*(\d+)\)")
_V11_BT = re.compile(r"BACKTRACK_COUNT[:\s]*(\d+)", re.I)
_V11_HC = re.compile(r"HALLUCINATION_COUNT[:\s]*(\d+)", re.I)
_FIRST, _SECOND = itemgetter(0), itemgetter(1)
_V11_DEAD = re.compile(r"dead_end|dead end|막다른")
_V11_LOOP = re.compile(r"loop detected|loop_detected|루프")


def read_maze_text(text: str) -> tuple[Maze, tuple[Lure, ...]]:
    """Parse a v1.1 (or v2) maze encoding; raises ValueError naming the first problem."""
    header = _HEADER.search(text)
    if header is None:
        raise ValueError("no 'MAZE NxN' header line found")
    size = int(header.group(1))
    if size != int(header.group(2)) or size < 2:
        raise ValueError(f"unsupported maze shape {header.group(0)!r}")
    seed_match = _SEED.search(text)
    sides = [0] * (size * size)
    seen: set[Cell] = set()
    lures: list[Lure] = []
    for line in text.splitlines():
        m = _CELL_LINE.match(line)
        if m is None:
            continue
        cell = (int(m.group(1)), int(m.group(2)))
        if not (0 <= cell[0] < size and 0 <= cell[1] < size):
            raise ValueError(f"cell {cell} is outside a {size}x{size} maze")
        if cell in seen:
            continue  # a prompt may quote the maze twice; the first listing counts
        seen.add(cell)
        for name in re.findall(r"[NSEW]", m.group(3)):
            sides[cell[0] * size + cell[1]] |= BIT[name]
        for name, phrase in _LURE.findall(m.group(4)):
            lures.append(Lure(cell, name, phrase.strip()))
    if len(seen) != size * size:
        raise ValueError(f"the maze lists {len(seen)} cells, a {size}x{size} maze has {size * size}")
    for index, mask in enumerate(sides):
        cell = divmod(index, size)
        for name, bit in BIT.items():
            if not mask & bit:
                continue
            other = step(cell, name)
            if not (0 <= other[0] < size and 0 <= other[1] < size):
                raise ValueError(f"cell {cell} opens {name} onto the outside")
            if not sides[other[0] * size + other[1]] & BIT[OPPOSITE[name]]:
                raise ValueError(f"cell {cell} opens {name} but {other} does not open {OPPOSITE[name]}")
    seed = int(seed_match.group(1)) if seed_match else None
    return Maze(size=size, open_sides=tuple(sides), seed=seed), tuple(lures)


def _final_path_match(text: str) -> re.Match[str] | None:
    """`_V11_PATH.search(text)`, tried only where a "_" allows (see `parse.anchored_matches`)."""
    return next(anchored_matches(_V11_PATH, text, 5), None)


def _first_claims(text: str) -> tuple[int | None, int | None]:
    """The first BACKTRACK_COUNT and HALLUCINATION_COUNT, as v1.1's two `re.search` calls find them."""
    bt = next(anchored_matches(_V11_BT, text, 9), None)
    hc = next(anchored_matches(_V11_HC, text, 13), None)
    return (int(bt.group(1)) if bt else None), (int(hc.group(1)) if hc else None)


def score_v11(maze: Maze, text: str, parsed: ParsedReply | None = None) -> dict[str, Any]:
    """The v1.1 score of a reply, computed the v1.1 way (see the module docstring).

    `parsed` (`parse_reply(text)`), when given, saves scans: where its `outside_steps` is set,
    every match of v1.1's STEP pattern is one of its canonical steps, read the same way, and the
    keywords v1.1 counts stand outside them.
    """
    n = maze.size
    sides = maze.open_sides
    name_of = NAME_OF_DELTA
    outside = parsed.outside_steps if parsed is not None else None
    confidences: list[float | None]
    step_cells: list[Cell]
    if parsed is not None and outside is not None:
        lower = outside.lower()
        step_cells = [line.cell for line in parsed.steps]
        confidences = [line.confidence for line in parsed.steps]  # canonical: percent / 100, as below
    else:
        lower = text.lower()
        steps = _V11_STEP.findall(text)
        step_cells = [(int(r), int(c)) for _, r, c, _, _ in steps]
        confidences = [int(conf) / 100.0 if conf else None for *_, conf in steps]
    path: list[Cell] | None = None
    path_match = _final_path_match(text)
    if path_match:
        found = _COORD.findall(path_match.group(1))
        coords = list(zip(map(int, map(_FIRST, found)), map(int, map(_SECOND, found)), strict=True))
        if len(coords) >= 2:
            path = coords
    # the STEP cells are only needed when there is no FINAL_PATH to check
    checked = path or (step_cells if len(step_cells) > 1 else None)
    halls, first, valid = 0, -1, False
    if checked and len(checked) > 1:
        valid = True
        for i, (a, b) in enumerate(itertools.pairwise(checked)):
            name = name_of.get((b[0] - a[0], b[1] - a[1]))  # `direction_between`, inlined
            if name is None or not (0 <= b[0] < n and 0 <= b[1] < n):
                valid = False
                break
            if a[0] < n and a[1] < n and not sides[a[0] * n + a[1]] & BIT[name]:  # coordinates are never negative
                first = i + 1 if first < 0 else first
                halls += 1
                valid = False
        if valid and checked[-1] != maze.exit:
            valid = False
    claimed_bt, claimed_hc = _first_claims(text)
    bt = max(claimed_bt if claimed_bt is not None else 0, len(_V11_DEAD.findall(lower)))
    if claimed_hc is not None:
        halls = max(halls, claimed_hc)
    loops = len(_V11_LOOP.findall(lower))
    errors: list[float] = []
    if checked and len(checked) > 1:
        for conf, a, b in zip(confidences, checked, checked[1:], strict=False):  # steps past the path: skipped
            if conf is None:
                continue
            correct = not (a[0] < n and a[1] < n and (b[0] - a[0], b[1] - a[1]) in name_of)
            errors.append(abs(conf - (1.0 if correct else 0.0)))
    ce = sum(errors) / len(errors) if errors else None
    f = v11_formulas(size=n, sr=valid, hc=halls, fhr=first if first > 0 else None, bt=bt, lt=loops)
    score = 0.5 * f["mei"] + 0.3 * (1.0 - (ce if ce is not None else 0.5)) + 0.2 * f["brs"]
    return {
        "label": V11_LABEL,
        "sr": 1.0 if valid else 0.0,
        "hc": halls,
        "fhr": first,
        "bt": bt,
        "lt": loops,
        "hrr": f["hrr"],
        "mei": f["mei"],
        "ce": ce,
        "brs": f["brs"],
        "score": score,
    }
