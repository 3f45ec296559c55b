"""Reading test files out of replies (golden replies in tests/misled_tests/data/replies.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hallubench.misled_tests.extract_tests import TOKEN_CAPS, extract_tests, spec_from_reply

REPLIES = json.loads((Path(__file__).resolve().parent / "data" / "replies.json").read_text())["cases"]


@pytest.mark.parametrize("case", REPLIES, ids=[case["name"] for case in REPLIES])
def test_golden_replies(case: dict[str, Any]) -> None:
    found = extract_tests(case["reply"], case["thinking"])
    assert (found.status, found.usable) == (case["status"], case["status"] == "ok"), found.detail
    if "contains" in case:
        assert case["contains"] in found.code and "```" not in found.code


def test_near_cap_is_flagged_from_reply_length() -> None:
    body = "def test_a():\n    assert True\n" * 600
    long_reply = f"```python\n{body}```"
    assert extract_tests(long_reply, "off").near_cap
    assert extract_tests(long_reply, "off").usable  # complete code stays usable; the flag is for readers
    assert not extract_tests(long_reply, "on").near_cap
    assert TOKEN_CAPS == {"off": 4096, "on": 16384}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            '```python\ndef get_positive(l):\n    """Keep the numbers above zero."""\n```',
            "Keep the numbers above zero.",
        ),
        (
            '"""Keep the numbers above zero.\n\n>>> get_positive([1])\n[1]\n"""',
            "Keep the numbers above zero.\n\n>>> get_positive([1])\n[1]",
        ),
        ("Keep the numbers above zero.", "Keep the numbers above zero."),
        ('```python\n"""Keep the numbers above zero."""\n```', "Keep the numbers above zero."),
    ],
)
def test_spec_from_stage_one_reply(reply: str, expected: str) -> None:
    assert spec_from_reply(reply, "get_positive") == expected
