"""`hallubench rescore`'s exit code: one number for a report that may hold several kinds of problem.

Every problem is printed whatever the code; the code names the most serious kind present, and
"serious" means how much of the input was left unchecked: a run file (or a row of one) that could
not be read at all comes first, then rows that are not counted because two copies disagree, then
prompts that differ from the frozen render, then scores that differ. So an unreadable file is
never hidden behind a prompt mismatch, nor a conflict behind a score disagreement.
"""

from __future__ import annotations

from .engine import RescoreReport

EXIT_OK = 0
EXIT_USAGE = 2  # bad arguments, a path that does not exist, no run file of this task: nothing was checked
EXIT_PROMPT_MISMATCH = 3
EXIT_SCORE_DISAGREES = 4
EXIT_UNREADABLE = 5
EXIT_CONFLICT = 6
EXIT_JAIL = 7  # the task runs model-written code and the jail lacks a layer the user did not accept: nothing ran

# Most serious first; the first kind present decides the exit code.
PRECEDENCE = (EXIT_UNREADABLE, EXIT_CONFLICT, EXIT_PROMPT_MISMATCH, EXIT_SCORE_DISAGREES)


def exit_code(report: RescoreReport) -> int:
    """The exit code for a finished rescore (`EXIT_USAGE` when no row of the task was found)."""
    present = {
        EXIT_UNREADABLE: bool(report.file_errors or report.unreadable_rows),
        EXIT_CONFLICT: bool(report.conflicts),
        EXIT_PROMPT_MISMATCH: bool(report.prompt_failures),
        EXIT_SCORE_DISAGREES: bool(report.score_failures or report.headline_failures),
    }
    for code in PRECEDENCE:
        if present[code]:
            return code
    return EXIT_OK if report.rows else EXIT_USAGE
