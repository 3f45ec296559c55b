"""The case lists of misled-tests v1: 164 problems x 6 conditions, one list per thinking variant.

Thinking off and thinking on are two protocols sharing this entry module: on Kaggle thinking
is a property of the model being run, not of the prompt, so each variant is its own task
(with its own token cap for the truncation rule) rather than a case field that would ask
every model the same prompt twice. Cases hold ids and hashes only; building them reads the
verified data (`--data`/`HALLUBENCH_HUMANEVALPACK` or the pinned download).
"""

from __future__ import annotations

from typing import Any

from .conditions import CONDITIONS
from .data import N_PROBLEMS, cached_problems


def cases_for(thinking: str, path: str | None = None) -> list[dict[str, Any]]:
    """Every (problem, condition) case for one thinking variant, in problem then condition order."""
    if thinking not in ("off", "on"):
        raise ValueError(f"thinking must be 'off' or 'on', not {thinking!r}")
    problems = sorted(cached_problems(path).values(), key=lambda problem: problem.number)
    if len(problems) != N_PROBLEMS:
        raise ValueError(f"expected {N_PROBLEMS} problems, the data has {len(problems)}")
    return [
        {
            "id": f"p{problem.number:03d}-{condition}-think_{thinking}",
            "problem": problem.task_id,
            "condition": condition,
            "thinking": thinking,
            "problem_sha256": problem.sha256,
        }
        for problem in problems
        for condition in CONDITIONS
    ]


def v1_cases() -> list[dict[str, Any]]:
    """misled-tests v1, thinking off (4,096-token cap): 984 cases."""
    return cases_for("off")


def v1_thinking_cases() -> list[dict[str, Any]]:
    """misled-tests-thinking v1, thinking on (16,384-token cap): 984 cases."""
    return cases_for("on")
