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

from ...errors import HallubenchError
from ..contract_check import resolve_hooks
from ..jail.policy import JailRefused
from ..specs import HookError, ProtocolSpec
from ..taskfile.reader import FrozenProtocol, TaskFile
from .options import replay_options
from .players import player_for
from .replay import LoggedMessage


class IncompatibleScorer(HallubenchError, ValueError):
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
        jail_accept: frozenset[str] = frozenset(),
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
            self.player = player_for(task, self.protocol, spec, hooks.cases, jail_accept=jail_accept)
        except (HookError, JailRefused):
            self.protocol.close()
            raise
        self.run_options = hooks.run_options  # what the newer version declares
        self.cases = hooks.case_by_id()

    def close(self) -> None:
        self.player.close()
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
        options = replay_options(self.run_options, hosted_row, self.option_overrides) if self.run_options else None
        played = self.player.play(case, messages, options)
        row = played.row
        if options is not None:
            row["run_options"] = options
        mismatch = played.mismatch
        if mismatch is not None and mismatch.logged_role is not None:
            return NewerScore(None, f"{self.task.protocol_id} sends a different conversation: {mismatch.describe()}")
        if mismatch is not None and not log_ran_out:
            return NewerScore(None, f"{self.task.protocol_id} sends more messages than the run holds")
        if played.leftover:
            return NewerScore(None, f"{self.task.protocol_id} sends fewer messages than the run holds")
        return NewerScore(row)

    def aggregate(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = self.protocol.entry.aggregate(rows)
        return result
