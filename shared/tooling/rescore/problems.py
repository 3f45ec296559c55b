"""The one list of problems a rescore found: exit code, text, Markdown, JSON, CSV and the HTML page all read it.

Each problem has a kind, the model, where it is (a file and the JSON path of a row in it) and a line
of text. Kinds come in the order of the exit code they give, most serious first: what was left
unchecked outranks what was checked and found different. So "every prompt verified" is said, by any
output, only when this list is empty and at least one row was checked.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from ..exit_codes import (
    EXIT_CONFLICT,
    EXIT_OK,
    EXIT_PROMPT_MISMATCH,
    EXIT_SCORE_DISAGREES,
    EXIT_UNREACHABLE,
    EXIT_UNREADABLE,
    EXIT_USAGE,
)
from .bounded import FIELD_LIMIT, shorten
from .engine import ProblemKind, RescoreReport, RowOutcome


class Kind(StrEnum):
    """Problem kinds in exit-code precedence: the first kind present decides the code."""

    FILE = "file"  # a path or run file that could not be read (special files and links included)
    UNREADABLE = "unreadable"  # a row whose text no program can encode
    CONFLICT = "conflict"  # two different copies of one row: neither counted
    INCOMPLETE = "incomplete"  # a stored run with no rows of its own, rows of another task, or a headline not checked
    PROMPT = "prompt"  # a prompt that differs from the frozen render, or a row that cannot be identified
    UNREACHABLE = "unreachable"  # re-scored while a service it needs (the registries) gave no answer here
    SCORE = "score"  # a re-scored row that differs from the hosted one (a changed type included)
    HEADLINE = "headline"  # a stored run's headline that differs from the one recomputed


EXIT_CODES = {
    Kind.FILE: EXIT_UNREADABLE,
    Kind.UNREADABLE: EXIT_UNREADABLE,
    Kind.CONFLICT: EXIT_CONFLICT,
    Kind.INCOMPLETE: EXIT_PROMPT_MISMATCH,
    Kind.PROMPT: EXIT_PROMPT_MISMATCH,
    Kind.UNREACHABLE: EXIT_UNREACHABLE,
    Kind.SCORE: EXIT_SCORE_DISAGREES,
    Kind.HEADLINE: EXIT_SCORE_DISAGREES,
}
LABELS = {
    Kind.FILE: "FILE",
    Kind.UNREADABLE: "UNREADABLE",
    Kind.CONFLICT: "CONFLICT",
    Kind.INCOMPLETE: "INCOMPLETE",
    Kind.PROMPT: "PROMPT",
    Kind.UNREACHABLE: "UNREACHABLE",
    Kind.SCORE: "SCORE",
    Kind.HEADLINE: "HEADLINE",
}


@dataclass(frozen=True)
class Problem:
    kind: Kind
    model: str
    source: str
    text: str

    def line(self) -> str:
        """One printable line of bounded length: `PROMPT  model source: text`."""
        where = " ".join(shorten(part) for part in (self.model, self.source) if part)
        return f"{LABELS[self.kind]:<7} " + (f"{where}: " if where else "") + shorten(self.text, FIELD_LIMIT * 2)

    def as_dict(self) -> dict[str, Any]:
        found = asdict(self)
        found["kind"] = self.kind.value
        found.update(model=shorten(self.model), source=shorten(self.source), text=shorten(self.text, FIELD_LIMIT * 2))
        return found


def problems(report: RescoreReport) -> list[Problem]:
    """Every problem the report holds, most serious kind first, in the order they were met within a kind."""
    found: list[Problem] = [Problem(Kind.FILE, "", "", error) for error in report.file_errors]
    found += [problem for row in report.rows if (problem := row_problem(row)) is not None]
    found += [
        Problem(
            Kind.CONFLICT,
            conflict.model,
            f"case {conflict.case_id}",
            f"{len(conflict.sources)} different copies of one row ({'; '.join(conflict.sources)}); none is counted",
        )
        for conflict in report.conflicts
    ]
    found += [Problem(Kind.INCOMPLETE, item.model, item.source, item.text) for item in report.incomplete]
    found += [
        Problem(
            Kind.HEADLINE,
            parent.model,
            parent.source,
            f"hosted {parent.hosted_headline} vs re-scored {parent.local_headline}",
        )
        for parent in report.headline_failures
    ]
    order = list(Kind)
    return sorted(found, key=lambda problem: order.index(problem.kind))  # stable: met order within a kind


def row_problem(row: RowOutcome) -> Problem | None:
    """The problem of one row, as `problems` lists it; None when it verified and agrees (or is only a conflicting
    copy: conflicts are listed once per row, with every copy, not once per copy)."""
    if row.problem_kind is ProblemKind.UNREADABLE:
        return Problem(Kind.UNREADABLE, row.model, row.source, row.problem or "")
    if not row.prompt_verified and row.problem_kind is ProblemKind.PROMPT:
        return Problem(Kind.PROMPT, row.model, row.source, row.problem or "")
    if row.unreachable:
        return Problem(
            Kind.UNREACHABLE,
            row.model,
            f"case {row.case_id} ({row.source})",
            f"registries unreachable where this rescore ran ({'; '.join(row.outages)}): "
            "the row was re-scored without them, so its score is not judged",
        )
    if row.score_agrees is False:
        return Problem(Kind.SCORE, row.model, f"case {row.case_id} ({row.source})", "; ".join(row.differences))
    return None


def checked_rows(report: RescoreReport) -> int:
    return sum(len(summary.counted_rows) for summary in report.models.values())


def exit_code(report: RescoreReport) -> int:
    """The code of the most serious problem; 0 only when there is none and at least one row was checked."""
    found = problems(report)
    if found:
        return min((EXIT_CODES[problem.kind] for problem in found), key=PRECEDENCE.index)
    return EXIT_OK if checked_rows(report) else EXIT_USAGE


PRECEDENCE = (EXIT_UNREADABLE, EXIT_CONFLICT, EXIT_PROMPT_MISMATCH, EXIT_UNREACHABLE, EXIT_SCORE_DISAGREES)
ALL_CLEAR = "every prompt verified and every score agrees"


def verdict_line(report: RescoreReport) -> str | None:
    """The all-clear line, or None: said only when nothing is wrong and at least one row was checked."""
    if problems(report) or not checked_rows(report):
        return None
    return ALL_CLEAR
