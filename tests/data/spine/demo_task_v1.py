"""A deliberately small protocol used by the spine tests: ask for a word, pass when it comes back.

It follows the entry-module contract of hallubench.tooling.specs (render / play / aggregate) and
uses a system message plus two turns, so replay covers both kinds of message.
"""

from __future__ import annotations

from typing import Any

from ..checks import Check


def render(case: dict[str, Any]) -> str:
    return f"Case {case['id']}: reply with the single word {case['word']!r} and nothing else."


def converse(case: dict[str, Any], conv: Any) -> tuple[str, str]:
    """The conversation: a system message, the word, then the word again in capitals; both replies."""
    conv.system("You are a careful assistant.")
    first = conv.ask(render(case))
    second = conv.ask("Now reply with the same word again, in capital letters.")
    return first, second


def play(case: dict[str, Any], conv: Any) -> dict[str, Any]:
    first, second = converse(case, conv)
    return verdict(case, first, second, Check.contains(case["word"], case_sensitive=False).run(first))


def verdict(case: dict[str, Any], first: str, second: str, result: Any) -> dict[str, Any]:
    """The row, from the check of the first reply and the capitals of the second."""
    if result.is_error:
        return {"verdict": "error", "detail": result.detail}
    passed = result.passed and case["word"].upper() in second
    return {
        "verdict": "pass" if passed else "fail",
        "detail": result.detail,
        "scores": {"first_ok": 1 if result.passed else 0, "reply_chars": len(first) + len(second)},
    }


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scored = [row for row in rows if row.get("verdict") in ("pass", "fail")]
    passed = sum(1 for row in scored if row["verdict"] == "pass")
    errors = sum(1 for row in rows if row.get("verdict") == "error")
    rate = passed / len(scored) if scored else 0.0
    return {
        "headline": rate,
        "headline_name": "pass rate",
        "metrics": {"passed": passed, "scored": len(scored), "errors": errors, "rows": len(rows)},
    }
