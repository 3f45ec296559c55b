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

from typing import Any

from ..conversation import Conversation
from .compact import cells_text
from .encode import maze_text
from .grid import BIT, DELTA, Cell
from .parse import ParsedReply, StepLine, parse_reply
from .prompt import PLACEBO, closing_request, interactive_prompt, loop_hint, move_report, turn_feedback
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


class _Walk:
    """The environment's state: where the model is, what it has walked, which loops it made."""

    def __init__(self, trial: Trial) -> None:
        self.trial = trial
        self.position: Cell = trial.maze.start
        self.visited: set[Cell] = {self.position}
        self.crossings: dict[tuple[Cell, Cell], int] = {}
        self.executed: list[StepLine] = []
        self.misplaced = 0
        self.unreadable = 0
        self.ignored = 0
        self.events: list[dict[str, Any]] = []

    def move(self, line: StepLine, parsed: ParsedReply) -> tuple[str, tuple[Cell, Cell] | None]:
        """Execute one declared move of `parsed`; returns the outcome and the passage if it closed a loop."""
        maze = self.trial.maze
        number, cell, direction, _, confidence, _ = line
        if cell != self.position:
            self.misplaced += 1
        if direction is None:
            self.unreadable += 1
            return "unreadable", None
        origin = self.position  # always inside the grid: only open moves change it
        if confidence is None:
            confidence = parsed.confidence_log.get(number)
        self.executed.append(_new_step(StepLine, (len(self.executed) + 1, origin, direction, None, confidence, 0)))
        n = maze.size
        dr, dc = DELTA[direction]
        target = (origin[0] + dr, origin[1] + dc)
        if not (0 <= target[0] < n and 0 <= target[1] < n):  # `maze.in_bounds`, inlined
            return "outside", None
        if not maze.open_sides[origin[0] * n + origin[1]] & BIT[direction]:  # `maze.is_open`, inlined
            return "wall", None
        self.position = target
        edge = (origin, target) if origin < target else (target, origin)  # the passage, either way round
        crossed = self.crossings.get(edge, 0) + 1
        self.crossings[edge] = crossed
        if target not in self.visited:
            self.visited.add(target)
            for event in self.events:
                if event["steps_to_new_cell"] is None:
                    event["steps_to_new_cell"] = len(self.executed) - event["move_index"]
        return "moved", ((origin, target) if crossed == 3 else None)


def play_interactive(trial: Trial, conv: Conversation) -> dict[str, Any]:
    """Run one interactive trial and score it with the shared scorer (walls block here)."""
    walk = _Walk(trial)
    replies: list[ParsedReply] = []  # each reply parsed once, here
    message = first_prompt(trial)
    idle_turns = 0
    turns = 0
    report: list[str] = []
    exit_cell = trial.maze.exit  # a property: asked once, not per move
    while turns < trial.max_turns:
        turns += 1
        parsed = parse_reply(conv.ask(message))
        replies.append(parsed)
        if walk.events and walk.events[-1]["turn"] == turns - 1:
            walk.events[-1]["declared_loop_next_reply"] = bool(parsed.loops)
        report = []
        misplaced_at: Cell | None = None
        loop: tuple[Cell, Cell] | None = None
        walk.ignored += max(0, len(parsed.steps) - trial.moves_per_turn)
        for line in parsed.steps[: trial.moves_per_turn]:
            if line.cell != walk.position and misplaced_at is None:
                misplaced_at = line.cell
            origin = walk.position
            outcome, closed = walk.move(line, parsed)
            report.append(move_report(line.number, origin, line.direction or "?", outcome, walk.position))
            loop = loop or closed
            if walk.position == exit_cell:
                break
        if walk.position == exit_cell:
            break
        idle_turns = idle_turns + 1 if not parsed.steps else 0
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
            walk.position,
            intervention=intervention,
            moves_per_turn=trial.moves_per_turn,
            misplaced=misplaced_at,
        )
    reached = walk.position == exit_cell
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
