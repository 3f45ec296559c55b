"""Read a reply in the HalluMaze answer format: STEP lines, declarations, claimed counts, FINAL_PATH.

What a reply means is defined line by line in `parse_lines` (its docstring has the rules);
`parse_fast` reads replies whose only line break is "\\n" in one scan with the same result.
`parse_reply` takes the fast reading where it applies and the definition elsewhere. Its cost
is linear in the length of the reply, whatever the reply holds.
"""

from __future__ import annotations

from .parse_fast import read_whole
from .parse_lines import ParsedReply, StepLine, parse_by_lines, strip_think_blocks

__all__ = ["ParsedReply", "StepLine", "parse_by_lines", "parse_reply", "strip_think_blocks"]


def parse_reply(text: str) -> ParsedReply:
    """Everything `text` states (see `parse_lines`); never raises on any text."""
    whole = read_whole(text)
    return whole if whole is not None else parse_by_lines(text)
