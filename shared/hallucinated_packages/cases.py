"""Benchmark cases: every prompt of a set, repeated k times (the repeats are part of the protocol).

A model that invents a package once in five attempts is a risk even if four answers are
clean, so each prompt is asked k times in separate conversations and the spread across
attempts is reported, not hidden. Case ids read `v7-B03-py-k2`: version, prompt, language,
attempt (1-based). Embedded: standard library only.
"""

from __future__ import annotations

import re
from typing import Any

from .prompt_sets import V6_PROMPTS, V7_PROMPTS, PromptSpec

REPEATS = 3
_LANG_SHORT = {"python": "py", "javascript": "js"}
CASE_ID = re.compile(r"^[A-Za-z0-9_.-]+$")


def _cases(version: str, prompts: tuple[PromptSpec, ...], repeats: int) -> list[dict[str, Any]]:
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, not {repeats}")
    cases: list[dict[str, Any]] = []
    for prompt in prompts:
        for attempt in range(1, repeats + 1):
            case_id = f"{version}-{prompt.prompt_id}-{_LANG_SHORT[prompt.language]}-k{attempt}"
            cases.append({"id": case_id, "version": version, "attempt": attempt, **prompt.to_dict()})
    return cases


def v6_cases(repeats: int = REPEATS) -> list[dict[str, Any]]:
    """14 prompts (9 Python, 5 JavaScript) x `repeats`."""
    return _cases("v6", V6_PROMPTS, repeats)


def v7_cases(repeats: int = REPEATS) -> list[dict[str, Any]]:
    """17 prompts in groups A-D x `repeats`."""
    return _cases("v7", V7_PROMPTS, repeats)
