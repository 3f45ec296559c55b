"""A protocol with one run option, for the run-option tests: how strictly the reply must match the word.

The option never changes a prompt (prompts stay verifiable); it changes only the scoring, and every
row records the value it was played under.
"""

from __future__ import annotations

from typing import Any

from ..contract import Aggregate, Case, PlayOutcome, Row, RunOptions
from ..conversation import Conversation


def render(case: Case) -> str:
    return f"Case {case['id']}: reply with the single word {case['word']!r} and nothing else."


def play(case: Case, conv: Conversation, options: RunOptions) -> PlayOutcome:
    reply = conv.ask(render(case))
    word = str(case["word"])
    passed = reply.strip() == word if options["match"] == "exact" else word in reply.lower()
    return {"verdict": "pass" if passed else "fail", "detail": f"match={options['match']}", "scores": {}}


def aggregate(rows: list[Row]) -> Aggregate:
    scored = [row for row in rows if row.get("verdict") in ("pass", "fail")]
    passed = sum(1 for row in scored if row["verdict"] == "pass")
    metrics: dict[str, Any] = {"passed": passed, "scored": len(scored), "rows": len(rows)}
    return {"headline": passed / len(scored) if scored else None, "headline_name": "pass rate", "metrics": metrics}
