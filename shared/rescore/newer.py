"""Scoring hosted runs with a newer version's scorer, where that version sends the very same prompts.

A scorer fix ships as a new protocol version; the runs already made under the old one need not be
redone when the new version's conversation for a case is byte-identical: its `play` is replayed
against the logged messages exactly as the frozen one is, so any difference in what it would
send is caught, and a row it cannot replay is reported, never scored by guesswork.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..taskfile.reader import FrozenProtocol, TaskFile
from .replay import LoggedMessage, ReplayConversation


class IncompatibleScorer(ValueError):
    """The newer task file is not a different version of the same benchmark."""


@dataclass(frozen=True)
class NewerScore:
    """The row the newer version's scorer gives, or why there is none; why its verdict changed."""

    row: dict[str, Any] | None
    problem: str | None = None
    changes: tuple[str, ...] = ()  # when the verdict differs from the frozen version's: why


def _benchmark(protocol_id: str) -> str:
    return protocol_id.rsplit("/", 1)[0]


class NewerScorer:
    """The embedded modules and cases of a newer task file of the same benchmark, loaded in isolation."""

    def __init__(self, task: TaskFile, frozen: TaskFile) -> None:
        if _benchmark(task.protocol_id) != _benchmark(frozen.protocol_id):
            raise IncompatibleScorer(
                f"--scorer {task.protocol_id} is not a version of {_benchmark(frozen.protocol_id)}"
            )
        if task.payload_sha256 == frozen.payload_sha256:
            raise IncompatibleScorer(f"--scorer {task.protocol_id} is the frozen task file itself")
        self.task = task
        self.protocol = FrozenProtocol(task)
        self.cases = task.case_by_id()

    def close(self) -> None:
        self.protocol.close()

    def score(
        self,
        case_id: str,
        messages: Sequence[LoggedMessage],
        *,
        log_ran_out: bool = False,
        frozen_row: Mapping[str, Any] | None = None,
    ) -> NewerScore:
        """Replay the newer `play` on the logged conversation of a row verified under the frozen version.

        `log_ran_out`: the frozen version too reached the end of the log (the hosted run was cut short),
        so the newer one running out is the same failed call, an error row; otherwise it asks for more.
        `frozen_row`: the frozen version's row; when the verdicts differ, the change is explained.
        """
        case = self.cases.get(case_id)
        if case is None:
            return NewerScore(None, f"case {case_id} is not in {self.task.protocol_id}")
        replay = ReplayConversation(messages, self.protocol.model_call_error)
        row: dict[str, Any] = self.protocol.rows.play_row(
            self.protocol.entry.play,
            case,
            replay,
            protocol_id=self.task.protocol_id,
            payload_sha256=self.task.payload_sha256,
        )
        mismatch = replay.mismatch
        if mismatch is not None and mismatch.logged_role is not None:
            return NewerScore(None, f"{self.task.protocol_id} sends a different conversation: {mismatch.describe()}")
        if mismatch is not None and not log_ran_out:
            return NewerScore(None, f"{self.task.protocol_id} sends more messages than the run holds")
        if replay.leftover:
            return NewerScore(None, f"{self.task.protocol_id} sends fewer messages than the run holds")
        if frozen_row is not None and frozen_row.get("verdict") != row.get("verdict"):
            return NewerScore(row, changes=self.explain(frozen_row, row))
        return NewerScore(row)

    def explain(self, frozen_row: Mapping[str, Any], row: Mapping[str, Any]) -> tuple[str, ...]:
        """The newer entry's `explain_change(before, after)` lines, else its row's detail."""
        generic = f"{frozen_row.get('verdict')} -> {row.get('verdict')}: {row.get('detail')}"
        hook = getattr(self.protocol.entry, "explain_change", None)
        if hook is None:
            return (generic,)
        try:
            lines = hook(frozen_row, row)
        except Exception as exc:  # an explanation must never cost the row its score
            return (generic, f"(explain_change raised {type(exc).__name__}: {exc})")
        return (generic, *(str(line) for line in lines)) if isinstance(lines, (list, tuple)) else (generic,)

    def aggregate(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = self.protocol.entry.aggregate(rows)
        return result
