"""`hallubench rescore`'s exit code: one number for a report that may hold several kinds of problem.

Every problem is printed whatever the code; the code names the most serious kind present, and
"serious" means how much of the input was left unchecked: a run file (or a row of one) that could
not be read at all comes first, then rows that are not counted because two copies disagree, then
stored runs not verified whole and prompts that differ from the frozen render, then rows re-scored
while a service they need (the registries) gave no answer here, then scores that differ. The kinds
and their codes are declared once, in `problems.py`; this module names them for the command line.
"""

from __future__ import annotations

from .problems import (
    EXIT_CONFLICT,
    EXIT_OK,
    EXIT_PROMPT_MISMATCH,
    EXIT_SCORE_DISAGREES,
    EXIT_UNREACHABLE,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    PRECEDENCE,
    exit_code,
)

EXIT_JAIL = 7  # the task runs model-written code and the jail lacks a layer the user did not accept: nothing ran

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
