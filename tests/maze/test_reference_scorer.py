"""Differential tests: the scorer gives rows identical, value for value and type for type, to the reference copy."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hallubench.maze import interactive, task_v2, verify
from hallubench.maze.cases import make_case, v2_cases
from hallubench.maze.grid import step
from hallubench.maze.parse import ParsedReply, StepLine, parse_reply
from hallubench.maze.score import score_reply
from hallubench.maze.solve import solve
from hallubench.maze.trial import Trial, load_trial
from hallubench.maze.v11 import read_maze_text
from hallubench.rows import play_row
from hallubench.tooling.maze.baselines import AGENTS, AgentConversation, agent_walk, transcript

from .reference import parse as reference_parse
from .reference import score as reference

DATA = Path(__file__).resolve().parents[1] / "data" / "maze"
GOLDEN = json.loads((DATA / "golden_replies.json").read_text(encoding="utf-8"))["cases"]


def _same(new: Any, old: Any) -> None:
    """Equal with the same types everywhere (repr tells 1 from 1.0 and True, a tuple from a list) and as JSON."""
    assert repr(new) == repr(old)
    assert json.dumps(new) == json.dumps(old)


def _same_score(maze: Any, solution: Any, slots: Any, text: str) -> None:
    """The reply parses to what the reference parser reads, and scores to the reference's result."""
    parsed, expected = parse_reply(text), reference_parse.parse_reply(text)
    assert repr(parsed) == repr(expected)
    assert parsed.outside_steps == expected.outside_steps
    _same(score_reply(maze, solution, slots, text), reference.score_reply(maze, solution, slots, text))


@contextmanager
def _reference_scorer() -> Iterator[None]:
    """`task_v2.play` with the reference scorer in place of the current one (single-shot and interactive)."""
    saved = task_v2.score_reply, interactive.score_parsed
    task_v2.score_reply, interactive.score_parsed = reference.score_reply, reference.score_parsed  # type: ignore[assignment]
    try:
        yield
    finally:
        task_v2.score_reply, interactive.score_parsed = saved


def _row(case: dict[str, Any], agent: str) -> dict[str, Any]:
    trial = load_trial(case)
    lines, block = transcript(trial.maze, agent_walk(agent, trial))
    per_turn = trial.moves_per_turn if trial.mode == "interactive" else None
    conv = AgentConversation(lines, block, per_turn)
    return play_row(task_v2.play, case, conv, protocol_id="hallumaze/v2", payload_sha256="x")


@pytest.mark.slow
def test_baseline_rows_of_every_case_equal_the_reference() -> None:
    cases = v2_cases()
    assert len(cases) == 240
    for case in cases:
        for agent in AGENTS:
            new = _row(case, agent)
            with _reference_scorer():
                old = _row(case, agent)
            _same(new, old)


def _golden_target(case: dict[str, Any]) -> tuple[Any, Any, Any]:
    maze = case["maze"]
    if "file" in maze:
        m, lures = read_maze_text((DATA / maze["file"]).read_text(encoding="utf-8"))
        return m, tuple(solve(m)), tuple((lure.cell, lure.direction) for lure in lures)
    trial = load_trial(make_case(maze["size"], maze["seed"]))
    return trial.maze, trial.solution, trial.slots


@pytest.mark.parametrize("case", GOLDEN, ids=[c["reply"] for c in GOLDEN])
def test_golden_replies_score_as_the_reference(case: dict[str, Any]) -> None:
    maze, solution, slots = _golden_target(case)
    text = (DATA / "replies" / case["reply"]).read_text(encoding="utf-8")
    _same_score(maze, solution, slots, text)
    for keep in (0.3, 0.7):  # the same reply with lines dropped
        rng = random.Random(case["reply"])
        cut = "\n".join(line for line in text.splitlines() if rng.random() < keep)
        _same_score(maze, solution, slots, cut)


_TRIALS: list[Trial] = [load_trial(make_case(n, s)) for n, s in ((5, 0), (5, 3), (11, 1))]
_LINES = st.sampled_from(
    [
        "STEP {k}: ({r},{c}) → [{d}] | confidence: {p}%", "STEP {k}: ({r},{c}) → [{d}] | confidence: {p}% | go",
        "STEP {k}: ({r},{c}) → [{d}]", "Step {k}: ({r},{c}) -> {d} (confidence: 0.{p})", "STEP {k}: ({r},{c})",
        "STEP {k}: ({r},{c}) → ({r},{p})", "STEP {k}: ({r},{c}) → [{d}] | confidence: 1{p}0%",
        "DEAD_END at ({r},{c}) — backtracking", "dead end at ({r},{c})", "LOOP_DETECTED at ({r},{c})",
        "STRATEGY_CHANGE", "BACKTRACK_COUNT: {k}", "HALLUCINATION_COUNT: {p}", "CONFIDENCE_LOG: step{k}:{p}, step1:50",
        "FINAL_PATH: (0,0)→({r},{c})→({c},{r})", "FINAL_PATH: (0,0)→(0,1)→(1,1)→(1,2)", "", "루프 막다른 길",
        "FINAL_PATH:(0,0)→(1,0)→(1, 1)", "FINAL_PATH: (0, 0)→({r},{c})", "CONFIDENCE_LOG: step1:{p}, step{k}:1{p}",
        "CONFIDENCE_LOG: step{k}:0{p}, step2:100, step3:99", "FINAL_PATH: (0,0)→(٣,1)",
        "dead_endead end loop_detectedloop detected 막다른막다른 루프루프",
        "Dead End, LOOP Detected, ſtep 3, STEP\t4",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(range(len(_TRIALS))),
    st.lists(
        st.tuples(
            _LINES,
            st.integers(0, 40),
            st.integers(-1, 12),
            st.integers(-1, 12),
            st.sampled_from("NSEWNSEW?"),
            st.integers(0, 100),
        ),
        max_size=40,
    ),
)
def test_random_replies_score_as_the_reference(which: int, lines: list[tuple[str, int, int, int, str, int]]) -> None:
    trial = _TRIALS[which]
    text = "\n".join(
        template.format(k=k, r=abs(r), c=abs(c) if c >= 0 else 70, d=d, p=p) for template, k, r, c, d, p in lines
    )
    _same_score(trial.maze, trial.solution, trial.slots, text)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(range(len(_TRIALS))), st.sampled_from(AGENTS), st.integers(0, 2**32), st.integers(0, 8))
def test_mutated_baseline_replies_score_as_the_reference(which: int, agent: str, seed: int, edits: int) -> None:
    trial = _TRIALS[which]
    lines, block = transcript(trial.maze, agent_walk(agent, trial))
    every = [*lines, "", *block]
    rng = random.Random(seed)
    for _ in range(edits):
        at = rng.randrange(len(every))
        kind = rng.randrange(5)
        if kind == 0:
            del every[at]
        elif kind == 1:
            every.insert(rng.randrange(len(every)), every[at])
        elif kind == 2:
            every[at] = every[at].replace("[N]", "[E]").replace("[S]", "[W]").replace("100%", "80%")
        elif kind == 3:
            every[at] = every[at].replace("(0,", "(9,").replace(",1)", ",99)")
        else:
            every[at] = every[at].replace("STEP", "Step").replace("→", "->")
    text = "\n".join(every)
    _same_score(trial.maze, trial.solution, trial.slots, text)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(range(len(_TRIALS))),
    st.lists(
        st.tuples(st.integers(0, 6), st.integers(0, 6), st.sampled_from("NSEW"), st.sampled_from([None, 0.5, 1.0])),
        max_size=30,
    ),
    st.booleans(),
    st.dictionaries(st.integers(0, 30), st.sampled_from([0.25, 0.75]), max_size=5),
    st.booleans(),
)
def test_flat_replay_equals_the_move_by_move_replay(
    which: int, raw: list[tuple[int, int, str, float | None]], walls_block: bool, log: dict[int, float], legal: bool
) -> None:
    maze = _TRIALS[which].maze
    cell = (0, 0)
    steps = []
    for number, (jump, other, name, confidence) in enumerate(raw, start=1):
        if legal:  # a well-formed walk: open sides only, from where the last move ended
            open_sides = maze.open_directions(cell)
            name = open_sides[other % len(open_sides)]
        elif jump == 0:  # now and then a step that starts somewhere else (a teleport)
            cell = (other % maze.size, (other * 3) % maze.size)
        steps.append(StepLine(number, cell, name, None, confidence, number))
        cell = step(cell, name) if maze.in_bounds(step(cell, name)) else cell
    parsed = ParsedReply(steps=tuple(steps), confidence_log=log)
    flat = verify._replay_flat(maze, parsed, *verify._steps_of(parsed), walls_block)
    moves, general = verify._replay_moves(maze, parsed, walls_block=walls_block)
    assert flat is not None
    assert flat == general
    assert flat.moves == moves


_INTERACTIVE = [case for case in v2_cases() if case.get("mode") == "interactive"][:6]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(range(6)), st.sampled_from(AGENTS), st.integers(0, 2**32), st.integers(0, 12))
def test_mutated_interactive_rows_equal_the_reference(which: int, agent: str, seed: int, edits: int) -> None:
    """Interactive trials with walls walked into, out-of-grid moves and misplaced steps (the executed moves differ)."""
    case = _INTERACTIVE[which]
    trial = load_trial(case)
    lines, block = transcript(trial.maze, agent_walk(agent, trial))
    rng = random.Random(seed)
    for _ in range(edits):
        at = rng.randrange(len(lines))
        lines[at] = lines[at].replace(rng.choice(["[N]", "[S]", "[E]", "[W]"]), rng.choice(["[N]", "[W]", "[x]"]))
        lines[at] = lines[at].replace("(0,", "(3,") if rng.random() < 0.3 else lines[at]

    def played() -> dict[str, Any]:
        conv = AgentConversation(list(lines), block, trial.moves_per_turn)
        return play_row(task_v2.play, case, conv, protocol_id="p", payload_sha256="x")

    new = played()
    with _reference_scorer():
        old = played()
    _same(new, old)
