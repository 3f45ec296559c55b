"""Re-verify every prompt and re-score every reply of hosted runs against one frozen task file.

For each row run: find its case (the row's own `case_id`, else the case whose first prompt
the run file holds), replay the protocol's `play` with the logged replies (every message it
sends must equal the logged one, byte for byte), compare the re-scored row with the stored
one, then recompute each model's aggregate with the frozen `aggregate` and compare it with
the stored score of the parent run. Nothing here imports kaggle-benchmarks or executes the
task file's glue. Given a newer version's task file, each verified row is also scored by that
version's `play` where it sends the same conversation (`newer.py`).
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from ..hashing import sha256_text
from ..kaggle_runs.model import DictResult, NumericResult, Role, Run, RunState
from ..taskfile.reader import FrozenProtocol, TaskFile
from .compare import differences
from .newer import NewerScore, NewerScorer
from .replay import LoggedMessage, PromptMismatch, ReplayConversation

HEADLINE_TOLERANCE = 1e-9
_R = TypeVar("_R")


@dataclass
class RowOutcome:
    """What rescoring found for one row run."""

    source: str
    model: str
    case_id: str | None
    state: str
    prompt_verified: bool
    problem: str | None
    score_agrees: bool | None
    differences: list[str]
    local_row: dict[str, Any]
    hosted_row: dict[str, Any] | None
    newer: NewerScore | None = None  # with a newer scorer: its row for this run, or why there is none
    log_ran_out: bool = False  # the frozen protocol wanted more messages than the run holds (a cut-short run)
    mismatch: PromptMismatch | None = None  # where the prompt first differs, when that is the problem
    messages: list[LoggedMessage] | None = None  # the logged conversation, kept only when a report shows it


@dataclass
class ParentOutcome:
    """A stored-task run: its recorded headline against the recomputed one."""

    source: str
    model: str
    hosted_headline: float | None
    local_headline: float | None
    agrees: bool | None
    rows: int


@dataclass
class ModelSummary:
    model: str
    rows: list[RowOutcome] = field(default_factory=list)
    parents: list[ParentOutcome] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    newer_metrics: dict[str, Any] = field(default_factory=dict)  # the newer scorer's aggregate, when one is given

    @property
    def verified(self) -> int:
        return sum(1 for row in self.rows if row.prompt_verified)

    @property
    def agreeing(self) -> int:
        return sum(1 for row in self.rows if row.score_agrees)

    @property
    def compared(self) -> int:
        return sum(1 for row in self.rows if row.score_agrees is not None)


@dataclass
class RescoreReport:
    task: TaskFile
    models: dict[str, ModelSummary] = field(default_factory=dict)
    newer_task: TaskFile | None = None
    file_errors: list[str] = field(default_factory=list)
    foreign_runs: list[str] = field(default_factory=list)
    foreign_tasks: set[str] = field(default_factory=set)  # the task names of those runs
    duplicates: int = 0  # runs seen twice (the same conversation of the same model and case), counted once
    # Of those, loose row run files repeating a row of a stored-task run: kbench writes both, so a plain run
    # has one per row. Counted once, and not a problem.
    row_file_copies: int = 0
    # CPU seconds spent inside the frozen protocol (its `play`, row wrapper and `aggregate`): the
    # part of a rescore that belongs to the benchmark's scorer rather than to rescoring itself.
    protocol_cpu_s: float = 0.0

    @property
    def rows(self) -> list[RowOutcome]:
        return [row for summary in self.models.values() for row in summary.rows]

    @property
    def prompt_failures(self) -> list[RowOutcome]:
        return [row for row in self.rows if not row.prompt_verified]

    @property
    def score_failures(self) -> list[RowOutcome]:
        return [row for row in self.rows if row.score_agrees is False]

    @property
    def headline_failures(self) -> list[ParentOutcome]:
        return [p for s in self.models.values() for p in s.parents if p.agrees is False]


def logged_messages(run: Run) -> list[LoggedMessage]:
    """Every message of the run's conversations, in order, with its stored text."""
    return [
        LoggedMessage(message.role.value, message.text)
        for conversation in run.conversations
        for request in conversation.requests
        for message in request.contents
    ]


class Rescorer:
    """Holds the frozen protocol and the case lookups; call `add_run` per loaded run, then `finish`."""

    def __init__(self, task: TaskFile, newer: TaskFile | None = None, *, keep_messages: bool = False) -> None:
        self.task = task
        self.keep_messages = keep_messages
        self._texts: dict[str, str] = {}  # one copy of each kept text (the same prompt recurs for every model)
        self.newer = NewerScorer(newer, task) if newer is not None else None
        self.frozen = FrozenProtocol(task)
        self.cases = task.case_by_id()
        self.report = RescoreReport(task=task, newer_task=newer)
        self._first_prompt_index: dict[str, str] | None = None
        self._seen: dict[tuple[str, str, str], bool] = {}  # key -> first seen inside a stored-task run
        self._in_stored_run = False

    def close(self) -> None:
        self.frozen.close()
        if self.newer is not None:
            self.newer.close()

    def _in_protocol(self, call: Callable[[], _R]) -> _R:
        """Run `call` (frozen protocol code), adding its CPU time to `protocol_cpu_s`."""
        started = time.process_time()
        try:
            return call()
        finally:
            self.report.protocol_cpu_s += time.process_time() - started

    # -- case identification -------------------------------------------------
    def _case_for_prompt(self, text: str) -> str | None:
        if self._first_prompt_index is None:
            self._first_prompt_index = {}
            for case_id, case in self.cases.items():
                self._first_prompt_index.setdefault(sha256_text(self.frozen.entry.render(case)), case_id)
        return self._first_prompt_index.get(sha256_text(text))

    def _identify(self, run: Run, messages: Sequence[LoggedMessage]) -> tuple[str | None, str | None]:
        result = run.result
        if isinstance(result, DictResult) and isinstance(result.value.get("case_id"), str):
            row = result.value
            case_id = str(row["case_id"])
            if row.get("protocol") != self.task.protocol_id or row.get("payload_sha256") != self.task.payload_sha256:
                return case_id, (
                    f"row was produced by {row.get('protocol')} payload {str(row.get('payload_sha256'))[:12]}, "
                    f"not by this task file ({self.task.protocol_id} payload {self.task.payload_sha256[:12]})"
                )
            if case_id not in self.cases:
                return case_id, f"case {case_id!r} is not in this task file"
            return case_id, None
        first_user = next((m.text for m in messages if m.role == Role.USER.value), None)
        if first_user is None:
            return None, "the run holds no prompt and no result to identify its case"
        matched = self._case_for_prompt(first_user)
        if matched is None:
            return None, "no case of this task file renders the run's first prompt"
        return matched, None

    # -- rows ------------------------------------------------------------------
    def _row(self, run: Run, source: str, model: str) -> RowOutcome | None:
        messages = logged_messages(run)
        outcome = self._verified_row(run, source, model, messages)
        if outcome is not None and self.keep_messages:
            texts = self._texts
            outcome.messages = [LoggedMessage(m.role, texts.setdefault(m.text, m.text)) for m in messages]
        if outcome is None or self.newer is None:
            return outcome
        if outcome.prompt_verified and outcome.case_id is not None:
            outcome.newer = self._in_protocol(
                partial(self.newer.score, outcome.case_id, messages, log_ran_out=outcome.log_ran_out)
            )
        else:
            outcome.newer = NewerScore(None, "the prompt did not verify under the frozen version")
        return outcome

    def _verified_row(self, run: Run, source: str, model: str, messages: list[LoggedMessage]) -> RowOutcome | None:
        case_id, problem = self._identify(run, messages)
        hosted = run.result.value if isinstance(run.result, DictResult) else None
        key = (model, case_id or source, sha256_text("\x00".join(m.text for m in messages)))
        if key in self._seen:
            self.report.duplicates += 1
            self.report.row_file_copies += self._seen[key] and not self._in_stored_run
            return None
        self._seen[key] = self._in_stored_run
        rows = self.frozen.rows
        if problem is not None or case_id is None:
            local = rows.error_row(
                self.task.protocol_id, self.task.payload_sha256, case_id or "?", "unverified", problem
            )
            return RowOutcome(source, model, case_id, run.state.value, False, problem, None, [], local, hosted)
        if run.cached and not messages:
            problem = "cached subrun: the run file holds no conversation to verify"
            local = rows.error_row(self.task.protocol_id, self.task.payload_sha256, case_id, "unverified", problem)
            return RowOutcome(source, model, case_id, run.state.value, False, problem, None, [], local, hosted)
        replay = ReplayConversation(messages, self.frozen.model_call_error)
        local = self._in_protocol(
            partial(
                rows.play_row,
                self.frozen.entry.play,
                self.cases[case_id],
                replay,
                protocol_id=self.task.protocol_id,
                payload_sha256=self.task.payload_sha256,
            )
        )
        mismatch = replay.mismatch
        ran_out = mismatch is not None and mismatch.logged_role is None
        hosted_failed = run.state is RunState.ERRORED or (hosted is not None and hosted.get("verdict") == "error")
        shown = None  # the mismatch that is this row's problem, for reports that show both texts
        if mismatch is not None and not (mismatch.logged_role is None and hosted_failed):
            problem = f"case {case_id}: {mismatch.describe()}"
            shown = mismatch
        elif replay.leftover:
            problem = f"case {case_id}: the run file holds {replay.leftover} more message(s) than the protocol sends"
        if hosted is None:
            detail = (run.error_message or "row run returned no result")[-1500:]
            local = rows.error_row(self.task.protocol_id, self.task.payload_sha256, case_id, "run_errored", detail)
            return RowOutcome(
                source, model, case_id, run.state.value, problem is None, problem, None, [], local, None, None, ran_out
            )
        if problem is not None:
            return RowOutcome(
                source, model, case_id, run.state.value, False, problem, None, [], local, hosted, mismatch=shown
            )
        comparable = getattr(self.frozen.entry, "comparable", None)
        if comparable is not None:
            diffs = differences(comparable(local), comparable(hosted))
        else:
            diffs = differences(local, hosted)
        verified = problem is None
        return RowOutcome(
            source, model, case_id, run.state.value, verified, problem, not diffs, diffs, local, hosted, None, ran_out
        )

    def add_run(self, run: Run, source: str) -> None:
        """Take one loaded run file: a stored-task run with row subruns, or a loose row run."""
        name = run.task.name
        model = run.model_slug or "(no model)"
        summary = self.report.models.setdefault(model, ModelSummary(model))
        self._in_stored_run = name == self.task.task_name
        if name == self.task.task_name:
            outcomes = []
            for index, sub in enumerate(run.subruns):
                if sub.task.name != self.task.row_task_name:
                    self.report.foreign_runs.append(f"{source} subruns[{index}] ({sub.task.name})")
                    self.report.foreign_tasks.add(sub.task.name)
                    continue
                outcome = self._row(sub, f"{source} subruns[{index}]", model)
                if outcome is not None:
                    summary.rows.append(outcome)
                    outcomes.append(outcome)
            hosted_headline = run.result.value if isinstance(run.result, NumericResult) else None
            local_headline = None
            if outcomes and len(outcomes) == len(run.subruns):
                local_rows = [o.local_row for o in outcomes]
                summary_of_rows = self._in_protocol(partial(self.frozen.entry.aggregate, local_rows))
                local_headline = float(self.frozen.rows.headline_value(summary_of_rows))
            agrees = None
            if hosted_headline is not None and local_headline is not None:
                agrees = abs(hosted_headline - local_headline) <= HEADLINE_TOLERANCE * max(1.0, abs(local_headline))
            summary.parents.append(ParentOutcome(source, model, hosted_headline, local_headline, agrees, len(outcomes)))
        elif name == self.task.row_task_name:
            outcome = self._row(run, source, model)
            if outcome is not None:
                summary.rows.append(outcome)
        else:
            self.report.foreign_runs.append(f"{source} ({name})")
            self.report.foreign_tasks.add(name)
        if not summary.rows and not summary.parents:
            del self.report.models[model]

    def finish(self) -> RescoreReport:
        """Aggregate each model's rows with the frozen `aggregate`."""
        for summary in self.report.models.values():
            if summary.rows:
                local_rows = [row.local_row for row in summary.rows]
                summary.metrics = self._in_protocol(partial(self.frozen.entry.aggregate, local_rows))
            if self.newer is not None:
                newer_rows = [row.newer.row for row in summary.rows if row.newer and row.newer.row is not None]
                if newer_rows:
                    summary.newer_metrics = self._in_protocol(partial(self.newer.aggregate, newer_rows))
        return self.report


def rescore_runs(
    task: TaskFile,
    runs: Iterable[tuple[Run, str]],
    file_errors: Iterable[str] = (),
    *,
    newer: TaskFile | None = None,
    keep_messages: bool = False,
) -> RescoreReport:
    """Rescore loaded runs (each with a label naming its file) against `task`.

    `runs` may be a generator that loads files one at a time: each stored-task run is rescored
    as it arrives and then let go, so memory holds one run file plus the rows' results; loose
    row runs are kept and rescored after every stored-task run (so a row that also sits inside a
    parent counts once, for its parent). `file_errors` is read after `runs` is exhausted.
    `newer`: a newer version's task file whose scorer also scores every verified row (see `newer.py`).
    `keep_messages`: keep each row's logged conversation (for a report that shows prompts and replies).
    """
    rescorer = Rescorer(task, newer, keep_messages=keep_messages)
    try:
        with _results_kept_out_of_gc() as keep:
            loose: list[tuple[Run, str]] = []
            for run, source in runs:
                if run.task.name == task.task_name:
                    rescorer.add_run(run, source)
                    keep()
                else:
                    loose.append((run, source))
            for run, source in loose:
                rescorer.add_run(run, source)
            report = rescorer.finish()
    finally:
        rescorer.close()
    report.file_errors.extend(file_errors)
    return report


@contextlib.contextmanager
def _results_kept_out_of_gc() -> Iterator[Callable[[], None]]:
    """A `keep()` that stops the cyclic garbage collector rescanning what is alive now, until the block ends.

    The rows' results only grow during a rescore, and every full collection would walk all of them
    again: at 10,000 rows that was a tenth of the CPU time. Objects alive at `keep()` move to the
    collector's permanent generation (`gc.freeze`); on leaving they return, so any cycle frozen by
    the way is still collected. Left alone when the process froze objects of its own.
    """
    if gc.get_freeze_count():
        yield lambda: None
        return
    try:
        yield gc.freeze
    finally:
        gc.unfreeze()
