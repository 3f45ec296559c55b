"""Ariadne's Thread as a real intervention: the model walks the maze in turns, in one conversation.

Each turn the model writes up to `moves_per_turn` STEP lines; the environment executes them
from where the model really is (a wall stops a move, and the model is told) and answers with
what happened. The environment detects a loop when a passage is walked for the third time
(in a perfect maze a depth-first walk crosses each passage at most twice). At that moment:

* group A gets nothing extra (the loop is still recorded, as the natural course);
* group B gets a hint naming the loop;
* group C gets the content-free placebo `ARIADNE'S THREAD: continue.` (v1.1 had no control).

Hint response = moves from the intervention until the model first enters a cell it has never
visited (it left the explored ground); B minus C isolates the hint's content from the effect of
being interrupted. Every message is plain text through `conv.ask`, a pure function of the case
and the earlier replies, so `hallubench rescore` can re-send and verify each one.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..conversation import Conversation
from .compact import cells_text
from .encode import maze_text
from .grid import CODE, DIRECTIONS, OPPOSITE, Cell, Maze
from .parse import ParsedReply, StepLine, parse_reply
from .prompt import PLACEBO, closing_request, interactive_prompt, loop_hint, move_outcome, turn_feedback
from .score import score_parsed
from .trial import Trial

_new_step = tuple.__new__  # a StepLine without the generated __new__'s frame


def first_prompt(trial: Trial) -> str:
    """The opening message of an interactive trial (what `render` returns)."""
    return interactive_prompt(
        maze_text(trial.maze, trial.shown_lures),
        trial.size,
        confidence=trial.confidence,
        max_tokens=trial.max_tokens,
        moves_per_turn=trial.moves_per_turn,
        max_turns=trial.max_turns,
    )


@lru_cache(maxsize=256)
def _move_tables(maze: Maze) -> tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...]]:
    """Per move (`index * 4 + code`, as `Maze.step_table`): what `move_outcome` reports of it, and the passage it
    walks (the lower cell's move, so both ways round name one passage; -1 for none); per cell: the report of an
    unreadable move there. Built once per maze, so a trial's every move is a few lookups."""
    n = maze.size
    reports: list[str] = []
    passages: list[int] = []
    for slot, reached in enumerate(maze.step_table):
        origin, direction = maze.cell_at[slot // 4], DIRECTIONS[slot % 4]
        if reached >= 0:
            reports.append(move_outcome(origin, direction, "moved", maze.cell_at[reached]))
            passages.append(slot if slot // 4 < reached else reached * 4 + CODE[OPPOSITE[direction]])
        else:
            reports.append(move_outcome(origin, direction, "outside" if reached == -1 else "wall", origin))
            passages.append(-1)
    unreadable = tuple(move_outcome(cell, "?", "unreadable", cell) for cell in maze.cell_at[: n * n])
    return tuple(reports), unreadable, tuple(passages)


class _Walk:
    """The environment's state: where the model is (a flat cell index), what it has walked, which loops it made."""

    def __init__(self, trial: Trial) -> None:
        maze = trial.maze
        self.trial = trial
        self.steps = maze.step_table
        self.cell_at = maze.cell_at
        self.reports, self.unreadable_reports, self.passages = _move_tables(maze)
        self.position = 0  # the start cell
        self.visited = bytearray(maze.size * maze.size)
        self.visited[0] = 1
        self.crossings = [0] * len(self.steps)  # per passage (see `_move_tables`)
        self.executed: list[StepLine] = []
        self.misplaced = 0
        self.unreadable = 0
        self.ignored = 0
        self.events: list[dict[str, Any]] = []

    @property
    def cell(self) -> Cell:
        return self.cell_at[self.position]

    def move(self, line: StepLine, parsed: ParsedReply) -> tuple[str, tuple[Cell, Cell] | None]:
        """Execute one declared move of `parsed`: its report line, and the passage if it closed a loop."""
        number, cell, direction, _, confidence, _ = line
        origin = self.position  # always inside the grid: only open moves change it
        if cell != self.cell_at[origin]:
            self.misplaced += 1
        if direction is None:
            self.unreadable += 1
            return f"STEP {number}: {self.unreadable_reports[origin]}", None
        if confidence is None:
            confidence = parsed.confidence_log.get(number)
        origin_cell = self.cell_at[origin]
        self.executed.append(_new_step(StepLine, (len(self.executed) + 1, origin_cell, direction, None, confidence, 0)))
        slot = origin * 4 + CODE[direction]
        report = f"STEP {number}: {self.reports[slot]}"
        target = self.steps[slot]
        if target < 0:  # the outer wall or a wall: the move is blocked
            return report, None
        self.position = target
        passage = self.passages[slot]
        crossed = self.crossings[passage] + 1
        self.crossings[passage] = crossed
        if not self.visited[target]:
            self.visited[target] = 1
            for event in self.events:
                if event["steps_to_new_cell"] is None:
                    event["steps_to_new_cell"] = len(self.executed) - event["move_index"]
        return report, ((origin_cell, self.cell_at[target]) if crossed == 3 else None)


def play_interactive(trial: Trial, conv: Conversation) -> dict[str, Any]:
    """Run one interactive trial and score it with the shared scorer (walls block here)."""
    walk = _Walk(trial)
    replies: list[ParsedReply] = []  # each reply parsed once, here
    message = first_prompt(trial)
    idle_turns = 0
    turns = 0
    report: list[str] = []
    exit_index = trial.size * trial.size - 1
    per_turn = trial.moves_per_turn
    while turns < trial.max_turns:
        turns += 1
        parsed = parse_reply(conv.ask(message))
        replies.append(parsed)
        if walk.events and walk.events[-1]["turn"] == turns - 1:
            walk.events[-1]["declared_loop_next_reply"] = bool(parsed.loops)
        report = []
        misplaced_at: Cell | None = None
        loop: tuple[Cell, Cell] | None = None
        steps = parsed.steps
        walk.ignored += max(0, len(steps) - per_turn)
        for line in steps[:per_turn]:
            if misplaced_at is None and line.cell != walk.cell:
                misplaced_at = line.cell
            said, closed = walk.move(line, parsed)
            report.append(said)
            loop = loop or closed
            if walk.position == exit_index:
                break
        if walk.position == exit_index:
            break
        idle_turns = idle_turns + 1 if not steps else 0
        if idle_turns >= 2:
            break
        intervention = None
        if loop is not None:
            walk.events.append(
                {
                    "turn": turns,
                    "move_index": len(walk.executed),
                    "passage": cells_text(loop),
                    "steps_to_new_cell": None,
                    "declared_loop_next_reply": None,
                }
            )
            intervention = {"A": None, "B": loop_hint(*loop), "C": PLACEBO}[trial.group]
        message = turn_feedback(
            turns,
            report,
            walk.cell,
            intervention=intervention,
            moves_per_turn=per_turn,
            misplaced=misplaced_at,
        )
    reached = walk.position == exit_index
    closing_text = "\n".join([*report, closing_request(trial.size, reached_exit=reached, confidence=trial.confidence)])
    replies.append(parse_reply(conv.ask(closing_text)))
    return _score(trial, walk, replies, turns, reached)


def _score(trial: Trial, walk: _Walk, every: list[ParsedReply], turns: int, reached: bool) -> dict[str, Any]:
    closing = every[-1]
    final_path = closing.final_path or next((p.final_path for p in reversed(every) if p.final_path), None)
    combined = ParsedReply(
        steps=tuple(walk.executed),
        unreadable_steps=tuple(n for p in every for n in p.unreadable_steps),
        invalid_confidences=sum(p.invalid_confidences for p in every),
        dead_ends=tuple(c for p in every for c in p.dead_ends),
        loops=tuple(c for p in every for c in p.loops),
        strategy_changes=sum(p.strategy_changes for p in every),
        backtrack_count=next((p.backtrack_count for p in reversed(every) if p.backtrack_count is not None), None),
        hallucination_count=next(
            (p.hallucination_count for p in reversed(every) if p.hallucination_count is not None), None
        ),
        confidence_log={},
        final_path=final_path,
    )
    scores = score_parsed(trial.maze, trial.solution, trial.slots, combined, walls_block=True)
    scores["teleports"] = walk.misplaced
    events = walk.events
    recovered = [e["steps_to_new_cell"] for e in events if e["steps_to_new_cell"] is not None]
    scores["interactive"] = {
        "turns": turns,
        "reached_exit": reached,
        "misplaced_steps": walk.misplaced,
        "unreadable_moves": walk.unreadable,
        "ignored_extra_steps": walk.ignored,
        "loop_events": events,
        "interventions": len(events) if trial.group in ("B", "C") else 0,
        "recovered": len(recovered),
        "mean_steps_to_new_cell": sum(recovered) / len(recovered) if recovered else None,
    }
    return scores
