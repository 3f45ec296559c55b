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

from ..contract_check import resolve_hooks
from ..specs import HookError, ProtocolSpec
from ..taskfile.reader import FrozenProtocol, TaskFile
from .options import replay_options, with_options
from .replay import LoggedMessage, ReplayConversation


class IncompatibleScorer(ValueError):
    """The newer task file is not a different version of the same benchmark."""


@dataclass(frozen=True)
class NewerScore:
    """The row the newer version's scorer gives, or why there is none."""

    row: dict[str, Any] | None
    problem: str | None = None


def _benchmark(protocol_id: str) -> str:
    return protocol_id.rsplit("/", 1)[0]


class NewerScorer:
    """The embedded modules and cases of a newer task file of the same benchmark, loaded in isolation."""

    def __init__(
        self,
        task: TaskFile,
        frozen: TaskFile,
        *,
        spec: ProtocolSpec | None = None,
        option_overrides: Mapping[str, str] | None = None,
    ) -> None:
        if _benchmark(task.protocol_id) != _benchmark(frozen.protocol_id):
            raise IncompatibleScorer(
                f"--scorer {task.protocol_id} is not a version of {_benchmark(frozen.protocol_id)}"
            )
        if task.payload_sha256 == frozen.payload_sha256:
            raise IncompatibleScorer(f"--scorer {task.protocol_id} is the frozen task file itself")
        self.task = task
        self.option_overrides = dict(option_overrides or {})
        self.protocol = FrozenProtocol(task)
        try:
            hooks = resolve_hooks(self.protocol.entry, task.cases, spec)
        except HookError:
            self.protocol.close()
            raise
        self.run_options = hooks.run_options  # what the newer version declares
        self.cases = hooks.case_by_id()

    def close(self) -> None:
        self.protocol.close()

    def score(
        self,
        case_id: str,
        messages: Sequence[LoggedMessage],
        *,
        log_ran_out: bool = False,
        hosted_row: Mapping[str, Any] | None = None,
    ) -> NewerScore:
        """Replay the newer `play` on the logged conversation of a row verified under the frozen version.

        `log_ran_out`: the frozen version too reached the end of the log (the hosted run was cut short),
        so the newer one running out is the same failed call, an error row; otherwise it asks for more.
        """
        case = self.cases.get(case_id)
        if case is None:
            return NewerScore(None, f"case {case_id} is not in {self.task.protocol_id}")
        replay = ReplayConversation(messages, self.protocol.model_call_error)
        play = self.protocol.entry.play
        options = replay_options(self.run_options, hosted_row, self.option_overrides) if self.run_options else None
        row: dict[str, Any] = self.protocol.rows.play_row(
            play if options is None else with_options(play, options),
            case,
            replay,
            protocol_id=self.task.protocol_id,
            payload_sha256=self.task.payload_sha256,
        )
        if options is not None:
            row["run_options"] = options
        mismatch = replay.mismatch
        if mismatch is not None and mismatch.logged_role is not None:
            return NewerScore(None, f"{self.task.protocol_id} sends a different conversation: {mismatch.describe()}")
        if mismatch is not None and not log_ran_out:
            return NewerScore(None, f"{self.task.protocol_id} sends more messages than the run holds")
        if replay.leftover:
            return NewerScore(None, f"{self.task.protocol_id} sends fewer messages than the run holds")
        return NewerScore(row)

    def aggregate(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = self.protocol.entry.aggregate(rows)
        return result
