"""Entry module of hallucinated-packages v7: 17 prompts in groups A-D x k, decoy gate and canary.

Follows the contract in `hallubench.specs`. `preflight` must run before any model call: it
aborts (DecoyCompromised / CanaryFailed) when a planted name has been registered on PyPI or npm
or when the checker gets a known answer wrong, because either would make the rates meaningless.
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
    """Decoy gate (20 lookups) and canary; raises PreflightError to stop the run."""
    report = run_preflight(gate=True)
    report["cases"] = len(cases)
    return report
