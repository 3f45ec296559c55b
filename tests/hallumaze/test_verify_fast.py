"""The replay: its one state machine against hallumaze v2's replay, and the well-formed fast path against it."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hallubench.hallumaze import verify
from hallubench.hallumaze.cases import make_case
from hallubench.hallumaze.grid import DELTA
from hallubench.hallumaze.parse import ParsedReply, StepLine, parse_reply
from hallubench.hallumaze.trial import Trial, load_trial

from .reference import parse as reference_parse
from .reference import verify as reference_verify

_TRIALS: list[Trial] = [load_trial(make_case(n, s)) for n, s in ((5, 0), (5, 3), (11, 1), (7, 2))]
_FIELDS = ("source", "teleports", "hallucinations", "first_hallucination", "backtracks", "backtrack_moves", "loops",
           "loop_moves", "revisits", "dead_ends_reached", "reached_exit", "cells")  # fmt: skip


def _columns(trajectory: Any) -> dict[str, Any]:
    moves = trajectory.moves
    return {
        "origins": [m.origin for m in moves],
        "directions": [m.direction for m in moves],
        "legal": [m.legal for m in moves],
        "confidences": [m.confidence for m in moves],
        "hallucination_moves": [m.move for m in moves if m.hallucination],
        "teleport_moves": [m.move for m in moves if m.teleport or m.outcome == "jump"],
    }


_WALK = st.lists(
    st.tuples(
        st.integers(0, 9),  # 0: the step names another cell (a teleport, maybe outside the grid)
        st.integers(0, 14),
        st.sampled_from("NSEW?"),  # "?": a jump to a declared cell, or nowhere
        st.booleans(),  # take an open side, where there is one
        st.sampled_from([None, 0.5, 1.0]),
    ),
    max_size=30,
)


def _steps(trial: Trial, raw: list[tuple[int, int, str, bool, float | None]]) -> list[StepLine]:
    maze = trial.maze
    cell = (0, 0)
    steps = []
    for number, (kind, other, name, open_side, confidence) in enumerate(raw, start=1):
        if kind == 0:
            cell = (other, (other * 3) % (maze.size + 3))
        direction: str | None = None if name == "?" else name
        if open_side and direction is not None and maze.in_bounds(cell) and maze.open_directions(cell):
            sides = maze.open_directions(cell)
            direction = sides[other % len(sides)]
        target = (other % 6, other % 4) if direction is None and other % 2 else None
        steps.append(StepLine(number, cell, direction, target, confidence, number))
        if direction is not None:
            nxt = (cell[0] + DELTA[direction][0], cell[1] + DELTA[direction][1])
            cell = nxt if maze.in_bounds(nxt) or not maze.in_bounds(cell) else cell
        elif target is not None:
            cell = target
    return steps


@settings(max_examples=600, deadline=None)
@given(
    st.sampled_from(range(len(_TRIALS))),
    _WALK,
    st.booleans(),
    st.dictionaries(st.integers(0, 30), st.sampled_from([0.25, 0.75]), max_size=5),
)
def test_the_state_machine_replays_as_v2_did(
    which: int, raw: list[tuple[int, int, str, bool, float | None]], walls_block: bool, log: dict[int, float]
) -> None:
    """Teleports (inside and outside the grid), jumps, walls, the edge, logs: v2's counts and columns, move by move."""
    trial = _TRIALS[which]
    steps = _steps(trial, raw)
    new = verify._walk(trial.maze, ParsedReply(steps=tuple(steps), confidence_log=log), walls_block)
    old = reference_verify.replay(
        trial.maze,
        reference_parse.ParsedReply(steps=tuple(reference_parse.StepLine(*s) for s in steps), confidence_log=log),
        walls_block=walls_block,
    )
    for name in _FIELDS:
        assert getattr(new, name) == getattr(old, name), name
    assert repr(new.moves) == repr(old.moves)
    assert _columns(old) == {key: getattr(new, key) for key in _columns(old)}
    assert new.move_count == len(old.moves)


@settings(max_examples=800, deadline=None)
@given(
    st.sampled_from(range(len(_TRIALS))),
    _WALK,
    st.sampled_from(["legal", "no jumps", "any"]),
    st.booleans(),
    st.dictionaries(st.integers(0, 30), st.sampled_from([0.25, 0.75]), max_size=5),
)
def test_the_fast_replay_equals_the_state_machine(
    which: int,
    raw: list[tuple[int, int, str, bool, float | None]],
    kind: str,
    walls_block: bool,
    log: dict[int, float],
) -> None:
    trial = _TRIALS[which]
    if kind == "legal":  # mostly well-formed walks: the fast path's commonest ground
        raw = [(1, other, "N", True, confidence) for _, other, _, _, confidence in raw]
    elif kind == "no jumps":  # walls, the edge, teleports inside the grid and out: the fast path or the definition
        raw = [(k, other % trial.size, "E" if d == "?" else d, o, c) for k, other, d, o, c in raw]
    parsed = ParsedReply(steps=tuple(_steps(trial, raw)), confidence_log=log)
    fast = verify.replay(trial.maze, parsed, walls_block=walls_block)
    definition = verify._walk(trial.maze, parsed, walls_block)
    assert fast == definition
    assert fast.cell_indices == definition.cell_indices


def test_the_fast_replay_takes_walks_inside_the_grid_without_jumps() -> None:
    """Walls, teleports and the edge of the grid stay on the fast path; a cell outside the grid or a jump leaves it."""
    from hallubench.hallumaze.verify_fast import walk_of_columns, walk_of_steps

    maze = _TRIALS[0].maze
    honest = "\n".join(
        f"STEP {k}: ({r},{c}) → [{d}] | confidence: 90%"
        for k, ((r, c), d) in enumerate(zip(_TRIALS[0].solution, "EESEESWWWSWSEENESE", strict=False), start=1)
    )
    parsed = parse_reply(honest)
    assert parsed.step_columns is not None
    fields = walk_of_columns(maze, parsed.step_columns)
    assert fields is not None and fields["reached_exit"] and fields["move_count"] == 18
    for changed, taken in (
        (honest.replace("[S]", "[E]", 1), True),  # a wall crossing
        (honest.replace("(0,2)", "(3,3)"), True),  # a teleport
        (honest.replace("(0,0) → [E]", "(0,0) → [N]"), True),  # off the grid
        (honest.replace("(0,0)", "(9,0)"), False),  # a cell outside the grid
    ):
        columns = parse_reply(changed).step_columns
        assert columns is not None and (walk_of_columns(maze, columns) is not None) == taken
        for walls_block in (False, True):
            assert verify.replay(maze, parse_reply(changed), walls_block=walls_block) == verify._walk(
                maze, parse_reply(changed), walls_block
            )
    jump = ParsedReply(steps=(StepLine(1, (0, 0), None, (2, 2), None, 1),))
    assert walk_of_steps(maze, jump, jump.steps, "steps") is None
