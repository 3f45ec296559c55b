"""hallumaze v3: the entry module embedded into `tasks/hallumaze_v3.py` (see `hallubench.tooling.specs`).

Byte-identical prompts and cases to hallumaze v2, so `hallubench rescore RUNS --task hallumaze/v2
--scorer hallumaze/v3` applies v3's scorer to every hosted v2 run. The scorer fixes v2's known
flaws: BRS measures lure resistance (see `metrics`), CONFIDENCE_LOG and FINAL_PATH are read where
their labels stand (see `labels`), and every reply is scored in time linear in its length (see
`parse_lines`). `render`, `play` and `aggregate` only delegate: the prompts come from `prompt` and
`interactive`, the scoring from `score`, the metrics from `aggregate`.
"""

from __future__ import annotations

from typing import Any

from ..conversation import Conversation
from ..rows import JsonSafeOutcome
from .aggregate import aggregate_rows
from .encode import maze_text
from .interactive import first_prompt, play_interactive
from .prompt import single_prompt
from .score import score_reply
from .trial import Trial, load_trial


def single_trial_prompt(trial: Trial) -> str:
    """The one message of a single-shot trial."""
    return single_prompt(
        maze_text(trial.maze, trial.shown_lures), trial.size, confidence=trial.confidence, max_tokens=trial.max_tokens
    )


def render(case: dict[str, Any]) -> str:
    """The first message the model receives for `case` (the same bytes as hallumaze v2's)."""
    trial = load_trial(case)
    return first_prompt(trial) if trial.mode == "interactive" else single_trial_prompt(trial)


def _detail(scores: dict[str, Any]) -> str:
    return (
        f"SR {scores['sr']:.0f}, HC {scores['hc']}, teleports {scores['teleports']}, BT {scores['bt']}, "
        f"LT {scores['lt']}, MEI {scores['mei']:.3f}, score {scores['score']:.3f}"
        + (" (format failure: no verifiable move or path)" if scores["format"]["failure"] else "")
    )


def play(case: dict[str, Any], conv: Conversation) -> dict[str, Any]:
    """Play one trial; the row's `scores` hold every verified metric, `claims` and the labelled v1.1 score.

    The outcome is built JSON-safe (lists, finite floats), so the row wrapper takes it as it is.
    """
    trial = load_trial(case)
    if trial.mode == "interactive":
        scores = play_interactive(trial, conv)
    else:
        scores = score_reply(trial.maze, trial.solution, trial.slots, conv.ask(single_trial_prompt(trial)))
    return JsonSafeOutcome(
        verdict="pass" if scores["sr"] == 1.0 else "fail",
        detail=_detail(scores),
        condition=trial.condition(),
        scores=scores,
    )


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One model's metrics; `headline` is the mean verified HalluMaze score over all trials."""
    return aggregate_rows(rows)
