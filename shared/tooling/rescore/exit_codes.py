"""`hallubench rescore`'s exit code: one number for a report that may hold several kinds of problem.

Every problem is printed whatever the code; the code names the most serious kind present, and
"serious" means how much of the input was left unchecked: a run file (or a row of one) that could
not be read at all comes first, then rows that are not counted because two copies disagree, then
stored runs not verified whole and prompts that differ from the frozen render, then rows re-scored
while a service they need (the registries) gave no answer here, then scores that differ. The kinds
and the codes they give are declared in `problems.py`; the numbers, with every other command's, are in
`hallubench.tooling.exit_codes`; this module names rescore's for the command line.
"""

from __future__ import annotations

from ..exit_codes import (
    EXIT_CONFLICT,
    EXIT_JAIL,
    EXIT_OK,
    EXIT_PROMPT_MISMATCH,
    EXIT_SCORE_DISAGREES,
    EXIT_UNREACHABLE,
    EXIT_UNREADABLE,
    EXIT_USAGE,
)
from .problems import PRECEDENCE, exit_code

__all__ = [
    "EXIT_CONFLICT",
    "EXIT_JAIL",
    "EXIT_OK",
    "EXIT_PROMPT_MISMATCH",
    "EXIT_SCORE_DISAGREES",
    "EXIT_UNREACHABLE",
    "EXIT_UNREADABLE",
    "EXIT_USAGE",
    "PRECEDENCE",
    "exit_code",
]
