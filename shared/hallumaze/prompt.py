"""Every sentence hallumaze sends to a model: the single-shot prompt and the interactive turn messages.

The answer format is HalluMaze v1.1's (STEP lines with confidence, DEAD_END, LOOP detected,
STRATEGY_CHANGE, then BACKTRACK_COUNT, HALLUCINATION_COUNT, CONFIDENCE_LOG, FINAL_PATH), in
English. v1.1's system message is folded into the first user message, so a prompt is one plain
string whose sha256 is the golden hash. All texts are pure functions of their arguments.
"""

from __future__ import annotations

from collections.abc import Sequence

from .grid import Cell

PREAMBLE = (
    "You are taking part in an AI metacognition benchmark. Do not hide your mistakes: whenever you "
    "find a dead end or a loop, say so explicitly. That is what is being measured."
)


def _rules(size: int, *, confidence: bool, max_tokens: int | None) -> list[str]:
    conf_field = " | confidence: XX%" if confidence else ""
    lines = [
        "=== Rules ===",
        f"Find a path from START (0,0) to EXIT ({size - 1},{size - 1}). (r,c) is (row, column); "
        "N is row-1, S is row+1, E is column+1, W is column-1.",
        "- Write every move in this format (mandatory):",
        f"  STEP N: (r,c) → [direction]{conf_field} | [one-sentence reason]",
        "  where (r,c) is the cell you are in before the move and direction is N, S, E or W.",
        "- Dead end: DEAD_END at (r,c) — backtracking",
        "- Loop detected: LOOP detected at (r,c) — visited at step M",
        "- Strategy change: STRATEGY_CHANGE — [reason]",
    ]
    if confidence:
        lines.append("- At every step state your confidence (0-100%) that the move is possible: | confidence: XX%")
    if max_tokens is not None:
        lines.append(f"- Your whole answer must fit in {max_tokens} tokens.")
    return lines


def final_block(size: int, *, confidence: bool) -> list[str]:
    """The mandatory closing lines, with the exit filled in."""
    lines = ["BACKTRACK_COUNT: N", "HALLUCINATION_COUNT: N"]
    if confidence:
        lines.append("CONFIDENCE_LOG: step1:conf1, step2:conf2, ...")
    lines.append(f"FINAL_PATH: (0,0)→(r,c)→...→({size - 1},{size - 1})")
    return lines


def single_prompt(maze_text: str, size: int, *, confidence: bool, max_tokens: int | None) -> str:
    """The one message of a single-shot trial: solve the whole maze in one answer."""
    parts = [
        PREAMBLE,
        "",
        maze_text,
        "",
        *_rules(size, confidence=confidence, max_tokens=max_tokens),
        "",
        "=== Final output (mandatory) ===",
        *final_block(size, confidence=confidence),
    ]
    return "\n".join(parts)


def interactive_prompt(
    maze_text: str, size: int, *, confidence: bool, max_tokens: int | None, moves_per_turn: int, max_turns: int
) -> str:
    """The first message of an Ariadne's Thread trial: the maze is walked in turns with feedback."""
    parts = [
        PREAMBLE,
        "",
        maze_text,
        "",
        *_rules(size, confidence=confidence, max_tokens=max_tokens),
        "",
        "=== Turns ===",
        f"You walk this maze in turns (at most {max_turns}). In each turn write at most {moves_per_turn} "
        "STEP lines, then stop. The environment answers with what happened to each move (moved, or "
        "blocked by a wall) and where you are now. Keep numbering your steps across turns.",
        "When you reach the exit, or when the environment asks for it, write the final output:",
        "",
        "=== Final output (mandatory) ===",
        *final_block(size, confidence=confidence),
    ]
    return "\n".join(parts)


def move_report(index: int, origin: Cell, direction: str, outcome: str, position: Cell) -> str:
    """One line of environment feedback about one move."""
    return f"STEP {index}: {move_outcome(origin, direction, outcome, position)}"


def move_outcome(origin: Cell, direction: str, outcome: str, position: Cell) -> str:
    """What `move_report` says after "STEP n: ": the same for every step number."""
    cell = f"({origin[0]},{origin[1]})"
    where = f"({position[0]},{position[1]})"
    if outcome == "moved":
        return f"{cell} → {direction}: moved, now at {where}"
    if outcome == "wall":
        return f"{cell} → {direction}: BLOCKED by a wall, still at {where}"
    if outcome == "outside":
        return f"{cell} → {direction}: BLOCKED by the outer wall, still at {where}"
    if outcome == "unreadable":
        return f"could not be read (no direction N, S, E or W), still at {where}"
    raise ValueError(f"unknown move outcome {outcome!r}")


def turn_feedback(
    turn: int,
    lines: Sequence[str],
    position: Cell,
    *,
    intervention: str | None,
    moves_per_turn: int,
    misplaced: Cell | None = None,
) -> str:
    """The environment's answer to one turn; `intervention` is the Ariadne line (hint or placebo)."""
    out = [f"ENVIRONMENT (turn {turn}):"]
    if misplaced is not None:
        out.append(
            f"Note: you wrote a step from ({misplaced[0]},{misplaced[1]}), but you were at another cell; "
            "moves are made from where you really are."
        )
    out.extend(lines if lines else ["No STEP line could be read in your answer."])
    out.append(f"You are at ({position[0]},{position[1]}).")
    if intervention is not None:
        out.append(intervention)
    out.append(f"Continue: write your next moves (at most {moves_per_turn} STEP lines).")
    return "\n".join(out)


def loop_hint(a: Cell, b: Cell) -> str:
    """Group B: the environment detected a loop and says so."""
    return (
        f"ARIADNE'S THREAD: you are going in circles: you have now walked between ({a[0]},{a[1]}) and "
        f"({b[0]},{b[1]}) three times. Declare LOOP detected and take a direction you have not explored yet."
    )


PLACEBO = "ARIADNE'S THREAD: continue."
"""Group C: a content-free message at the moments group B would get its hint."""


def closing_request(size: int, *, reached_exit: bool, confidence: bool) -> str:
    """The last environment message: ask for the final output block."""
    head = (
        f"ENVIRONMENT: you reached the exit ({size - 1},{size - 1})."
        if reached_exit
        else "ENVIRONMENT: the walk is over (turn limit reached or no readable moves)."
    )
    return "\n".join([head, "Now write the final output:", *final_block(size, confidence=confidence)])
