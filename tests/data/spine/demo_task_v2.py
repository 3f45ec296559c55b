"""Version 2 of the spine demo: the same conversation, a stricter scorer (the first reply must be the word itself).

Used to test `hallubench rescore --scorer`: runs of v1 are scored again by this scorer where v2
sends the same prompts (its case w-0 asks for another word, so that row cannot be).
"""

from __future__ import annotations

from typing import Any

from ..checks import Check
from .task_v1 import aggregate, converse, render, verdict

__all__ = ["aggregate", "play", "render"]


def play(case: dict[str, Any], conv: Any) -> dict[str, Any]:
    first, second = converse(case, conv)
    return verdict(case, first, second, Check.equals(case["word"]).run(first.strip().lower()))
