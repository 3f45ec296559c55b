"""What the generic suites need from misled-tests (both variants): no service, and a canned reply for end-to-end runs.

Found by `tests/support/services.py`; see there for the names this module defines.
"""

from __future__ import annotations

import re
from typing import Any


def reply(messages: list[dict[str, Any]]) -> str:
    """A test that imports the function under test (or, asked for a docstring first, a docstring)."""
    prompt = messages[-1]["content"]
    match = re.search(r"from solution import (\w+)", prompt)
    if match is None:  # stage 1 of the model-spec condition asks for a docstring
        return '"""Return the result the function is meant to compute."""'
    name = match.group(1)
    return f"```python\nfrom solution import {name}\n\n\ndef test_callable():\n    assert callable({name})\n```\n"
