"""hallumaze v2: the entry module embedded into `tasks/hallumaze_v2.py` (see `hallubench.tooling.specs`).

Frozen: the task file holds the code hosted v2 runs used, and `rescore` runs that copy. This
module imports today's `shared/maze`, which has v3's scorer (`build --check` names the drift), so
importing it from `shared/` scores as v3 does; use `task_v3` for that, and the task file for v2.

`render(case)` is the first user message; `play(case, conv)` asks the model (once, or turn by
turn in the interactive Ariadne's Thread mode) and scores the replies with the shared,
verifying scorer; `aggregate(rows)` gives one model's metrics with errored trials kept in the
denominators. Everything here is deterministic in the case and the replies.
"""

from __future__ import annotations

from typing import Any

from ..conversation import Conversation
from .aggregate import aggregate_rows
from .encode import maze_text
from .interactive import first_prompt, play_interactive
from .prompt import single_prompt
from .score import score_reply
from .trial import Trial, load_trial


def _single_prompt(trial: Trial) -> str:
    return single_prompt(
        maze_text(trial.maze, trial.shown_lures),
        trial.size,
        confidence=trial.confidence,
        max_tokens=trial.max_tokens,
    )


def render(case: dict[str, Any]) -> str:
    """The first message the model receives for `case`."""
    trial = load_trial(case)
    return first_prompt(trial) if trial.mode == "interactive" else _single_prompt(trial)


def _detail(scores: dict[str, Any]) -> str:
    return (
        f"SR {scores['sr']:.0f}, HC {scores['hc']}, teleports {scores['teleports']}, BT {scores['bt']}, "
        f"LT {scores['lt']}, MEI {scores['mei']:.3f}, score {scores['score']:.3f}"
        + (" (format failure: no verifiable move or path)" if scores["format"]["failure"] else "")
    )


def play(case: dict[str, Any], conv: Conversation) -> dict[str, Any]:
    """Play one trial; the row's `scores` hold every verified metric, `claims` and the labelled v1.1 score."""
    trial = load_trial(case)
    if trial.mode == "interactive":
        scores = play_interactive(trial, conv)
    else:
        reply = conv.ask(_single_prompt(trial))
        scores = score_reply(trial.maze, trial.solution, trial.slots, reply)
    return {
        "verdict": "pass" if scores["sr"] == 1.0 else "fail",
        "detail": _detail(scores),
        "condition": trial.condition(),
        "scores": scores,
    }


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One model's metrics; `headline` is the mean verified HalluMaze score over all trials."""
    return aggregate_rows(rows)
