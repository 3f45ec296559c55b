"""What the generic suites need from hallumaze: no service, and a canned reply for the end-to-end runs.

Found by `tests/support/services.py`; see there for the names this module defines.
"""

from __future__ import annotations

from typing import Any

REPLY = """STEP 1: (0,0) → E | confidence: 80% | open to the east
STEP 2: (0,1) → S | confidence: 60% | guess
BACKTRACK_COUNT: 0
HALLUCINATION_COUNT: 0
CONFIDENCE_LOG: 80, 60
FINAL_PATH: (0,0)→(0,1)→(1,1)
"""


def reply(messages: list[dict[str, Any]]) -> str:
    """A two-step walk in the protocol's answer format, whatever the maze."""
    return REPLY
