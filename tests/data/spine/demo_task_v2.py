"""Version 2 of the spine demo: the same conversation, a stricter scorer (the first reply must be the word itself).

Used to test `hallubench rescore --scorer`: runs of v1 are scored again by this scorer where v2
sends the same prompts (its case w-0 asks for another word, so that row cannot be).
"""

from __future__ import annotations

from typing import Any

from ..checks import Check


def render(case: dict[str, Any]) -> str:
    return f"Case {case['id']}: reply with the single word {case['word']!r} and nothing else."


def play(case: dict[str, Any], conv: Any) -> dict[str, Any]:
    conv.system("You are a careful assistant.")
    first = conv.ask(render(case))
    second = conv.ask("Now reply with the same word again, in capital letters.")
    result = Check.equals(case["word"]).run(first.strip().lower())
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
