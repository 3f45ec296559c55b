"""Entry module of hallucinated-packages v6: 14 everyday prompts (9 Python, 5 JavaScript) x k.

Follows the contract in `hallubench.specs`. v6 is the baseline where models rarely invent
packages; its preflight runs the canary so a 0 % can only come from a checker shown to detect
a missing package and a nonsense function in the same run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..conversation import Conversation
from .protocol import comparable_row, play_case, render_prompt, run_preflight
from .scoring import aggregate_rows


def render(case: dict[str, Any]) -> str:
    return render_prompt(case)


def play(case: dict[str, Any], conv: Conversation) -> dict[str, Any]:
    return play_case(case, conv)


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return aggregate_rows(rows)


def comparable(row: dict[str, Any]) -> Any:
    """What `hallubench rescore` compares: the row minus registry timestamps, URLs and HTTP evidence."""
    return comparable_row(row)


def preflight(cases: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Canary only (v6 plants no decoys); raises CanaryFailed to stop the run before any model call."""
    report = run_preflight(gate=False)
    report["cases"] = len(cases)
    return report
