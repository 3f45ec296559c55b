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
import hashlib
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from functools import partial
from typing import Any, TypeVar

from ...hashing import sha256_text
from ..contract_check import resolve_hooks
from ..jail.policy import JailRefused
from ..kaggle_runs.model import DictResult, NumericResult, Role, Run, RunResult, RunState
from ..specs import HookError, ProtocolSpec, installed_registry, load_hook
from ..taskfile.reader import FrozenProtocol, TaskFile
from .bounded import MODEL_LIMIT, shorten
from .compare import differences
from .newer import NewerScore, NewerScorer
from .options import replay_options
from .players import InProcessPlayer, JailedPlayer, player_for
from .replay import LoggedMessage, PromptMismatch

HEADLINE_TOLERANCE = 1e-9
_R = TypeVar("_R")


class ProblemKind(StrEnum):
    """Why a row did not verify: its prompt differs, or the run file could not be read for it."""

    PROMPT = "prompt"
    UNREADABLE = "unreadable"


@dataclass
class RowOutcome:
    """What rescoring found for one row run."""

    source: str  # the file and the JSON path of the row in it, e.g. "x.run.json subruns[3]"
    model: str
    case_id: str | None
    state: str
    local_row: dict[str, Any]
    hosted_row: dict[str, Any] | None
    prompt_verified: bool = False
    problem: str | None = None
    problem_kind: ProblemKind | None = None  # set whenever the prompt did not verify
    score_agrees: bool | None = None
    differences: list[str] = field(default_factory=list)
    newer: NewerScore | None = None  # with a newer scorer: its row for this run, or why there is none
    log_ran_out: bool = False  # the frozen protocol wanted more messages than the run holds (a cut-short run)
    conflict: str | None = None  # another copy of this very row differs from this one: neither counts
    mismatch: PromptMismatch | None = None  # where the prompt first differs, when that is the problem
    messages: list[LoggedMessage] | None = None  # the logged conversation, kept only when a report shows it
    jail: dict[str, Any] | None = None  # the jail's layers when the row's `play` ran model code in one
    # services the re-scoring needed that gave no answer here (the benchmark's `outages` hook), when they
    # could have changed what this report says about the row: its score differs, or a newer scorer scored it
    outages: list[str] = field(default_factory=list)
    # when the run that holds this row started (its stored run's start, else its own): the drift check compares
    # rows of one model from runs started on different days
    run_started: datetime | None = None

    @property
    def unreachable(self) -> bool:
        """An outage where the rescore ran, not the hosted run, may explain this row: it is not judged."""
        newer_scored = self.newer is not None and self.newer.row is not None
        return bool(self.outages) and (self.score_agrees is False or newer_scored)

    @property
    def counted(self) -> bool:
        """Whether the row enters the metrics: every row but the copies of a conflict."""
        return self.conflict is None


@dataclass
class Conflict:
    """Two or more different copies of one row (same model, case and run): named, never counted."""

    model: str
    case_id: str
    sources: list[str]


@dataclass
class ParentOutcome:
    """A stored-task run: its recorded headline against the recomputed one."""

    source: str
    model: str
    hosted_headline: float | None
    local_headline: float | None
    agrees: bool | None
    rows: int
    subruns: int = 0  # every subrun the hosted run holds (rows of another task included)
    copies: int = 0  # its rows that were identical copies of rows already counted (so not counted again)


@dataclass(frozen=True)
class Incomplete:
    """A stored run that cannot be verified whole: no rows, rows of another task, a headline not recomputed."""

    model: str
    source: str
    text: str


@dataclass
class ModelSummary:
    model: str
    rows: list[RowOutcome] = field(default_factory=list)
    parents: list[ParentOutcome] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    newer_metrics: dict[str, Any] = field(default_factory=dict)  # the newer scorer's aggregate, when one is given

    @property
    def counted_rows(self) -> list[RowOutcome]:
        """The rows that enter the metrics (conflicting copies do not)."""
        return [row for row in self.rows if row.counted]

    @property
    def verified(self) -> int:
        return sum(1 for row in self.rows if row.prompt_verified and row.counted)

    @property
    def agreeing(self) -> int:
        return sum(1 for row in self.rows if row.score_agrees and row.counted)

    @property
    def compared(self) -> int:
        return sum(1 for row in self.rows if row.score_agrees is not None and row.counted)


@dataclass
class RescoreReport:
    task: TaskFile
    models: dict[str, ModelSummary] = field(default_factory=dict)
    newer_task: TaskFile | None = None
    file_errors: list[str] = field(default_factory=list)
    foreign_runs: list[str] = field(default_factory=list)
    foreign_tasks: set[str] = field(default_factory=set)  # the task names of those runs
    duplicates: int = 0  # byte-identical copies of a row (same model, case, run and content), counted once
    # Of those, loose row run files repeating a row of a stored-task run: kbench writes both, so a plain run
    # has one per row. Counted once, and not a problem.
    row_file_copies: int = 0
    conflicts: list[Conflict] = field(default_factory=list)
    foreign_rows: list[tuple[str, str, str]] = field(default_factory=list)  # (model, source, task) inside stored runs
    incomplete: list[Incomplete] = field(default_factory=list)  # filled by `Rescorer.finish`
    # CPU seconds spent inside the frozen protocol (its `play`, row wrapper and `aggregate`): the
    # part of a rescore that belongs to the benchmark's scorer rather than to rescoring itself.
    protocol_cpu_s: float = 0.0

    @property
    def rows(self) -> list[RowOutcome]:
        return [row for summary in self.models.values() for row in summary.rows]

    @property
    def headline_failures(self) -> list[ParentOutcome]:
        return [p for s in self.models.values() for p in s.parents if p.agrees is False]


def _outages_hook(spec: ProtocolSpec | None) -> Callable[[dict[str, Any]], list[str]] | None:
    """The benchmark's `outages` hook, when it declares one (a declared hook that does not import is an error)."""
    benchmark = installed_registry().benchmark_of(spec.protocol_id) if spec is not None else None
    if benchmark is None or benchmark.outages is None:
        return None
    hook: Callable[[dict[str, Any]], list[str]] = load_hook(benchmark.outages, "outages")
    return hook


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

    def __init__(
        self,
        task: TaskFile,
        newer: TaskFile | None = None,
        *,
        keep_messages: bool = False,
        spec: ProtocolSpec | None = None,
        newer_spec: ProtocolSpec | None = None,
        option_overrides: Mapping[str, str] | None = None,
        jail_accept: frozenset[str] = frozenset(),
    ) -> None:
        self.task = task
        self.option_overrides = dict(option_overrides or {})
        self.player: InProcessPlayer | JailedPlayer | None = None
        self.keep_messages = keep_messages
        self._texts: dict[str, str] = {}  # one copy of each kept text (the same prompt recurs for every model)
        self.newer = (
            NewerScorer(newer, task, spec=newer_spec, option_overrides=self.option_overrides, jail_accept=jail_accept)
            if newer is not None
            else None
        )
        self.frozen = FrozenProtocol(task)
        try:  # the hooks its spec declares (prepared cases, comparable, run options), never guessed
            hooks = resolve_hooks(self.frozen.entry, task.cases, spec)
            self.player = player_for(task, self.frozen, spec, hooks.cases, jail_accept=jail_accept)
        except (HookError, JailRefused):
            self.close()
            raise
        self.cases = hooks.case_by_id()
        self._comparable = hooks.comparable
        self._machine_keys = spec.machine_dependent if spec is not None else ()
        self.run_options = hooks.run_options
        self._outages = _outages_hook(spec)
        self.report = RescoreReport(task=task, newer_task=newer)
        self._first_prompt_index: dict[str, str] | None = None
        # (model, case, run identity) -> every different copy of that row seen so far: its content fingerprint
        # and result (see `_fingerprint`), its outcome, and whether it was first seen inside a stored-task run
        self._copies: dict[tuple[str, str, str], list[tuple[str, RunResult | None, RowOutcome, bool]]] = {}
        self._in_stored_run = False

    def close(self) -> None:
        if self.player is not None:
            self.player.close()
        frozen = getattr(self, "frozen", None)
        if frozen is not None:
            frozen.close()
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
        """The outcome of one row run; None for a byte-identical copy of a row already seen."""
        if run.unreadable_text:
            return self._unreadable_row(run, source, model)
        messages = logged_messages(run)
        case_id, problem = self._identify(run, messages)
        copy_key = (model, case_id or source, _run_identity(run))
        fingerprint = _fingerprint(run, messages)
        copies = self._copies.setdefault(copy_key, [])
        same = next(
            (in_stored for seen, result, _, in_stored in copies if seen == fingerprint and _same(result, run.result)),
            None,
        )
        if same is not None:
            self.report.duplicates += 1
            self.report.row_file_copies += same and not self._in_stored_run
            return None
        outcome = self._verified_row(run, source, model, messages, case_id, problem)
        if self.keep_messages:
            texts = self._texts
            outcome.messages = [LoggedMessage(m.role, texts.setdefault(m.text, m.text)) for m in messages]
        if self.newer is not None:
            if outcome.prompt_verified and outcome.case_id is not None:
                outcome.newer = self._in_protocol(
                    partial(
                        self.newer.score,
                        outcome.case_id,
                        messages,
                        log_ran_out=outcome.log_ran_out,
                        hosted_row=outcome.hosted_row,
                    )
                )
            else:
                outcome.newer = NewerScore(None, "the prompt did not verify under the frozen version")
        if self._outages is not None and outcome.prompt_verified:
            scored = [outcome.local_row] + ([outcome.newer.row] if outcome.newer and outcome.newer.row else [])
            outcome.outages = list(dict.fromkeys(item for row in scored for item in self._outages(row)))
        if copies:
            self._record_conflict(model, case_id or "?", [earlier for _, _, earlier, _ in copies], outcome)
        copies.append((fingerprint, run.result, outcome, self._in_stored_run))
        return outcome

    def _record_conflict(self, model: str, case_id: str, earlier: list[RowOutcome], outcome: RowOutcome) -> None:
        """Another, different copy of a row already seen: name them all, count none."""
        sources = [row.source for row in earlier]
        for row in earlier:
            row.conflict = f"differs from another copy of this row at {outcome.source}"
        outcome.conflict = f"differs from another copy of this row at {', '.join(sources)}"
        for conflict in self.report.conflicts:
            if conflict.model == model and conflict.case_id == case_id and set(conflict.sources) & set(sources):
                conflict.sources.append(outcome.source)
                return
        self.report.conflicts.append(Conflict(model, case_id, [*sources, outcome.source]))

    def _unreadable_row(self, run: Run, source: str, model: str) -> RowOutcome:
        problem = "; ".join(run.unreadable_text) + " (not encodable text: the run file is damaged here)"
        hosted = run.result.value if isinstance(run.result, DictResult) else None
        case_id = hosted.get("case_id") if hosted is not None else None
        case = str(case_id) if isinstance(case_id, str) else None
        local = self.frozen.rows.error_row(
            self.task.protocol_id, self.task.payload_sha256, case or "?", "unreadable", problem
        )
        return RowOutcome(
            source=source,
            model=model,
            case_id=case,
            state=run.state.value,
            local_row=local,
            hosted_row=None,
            problem=problem,
            problem_kind=ProblemKind.UNREADABLE,
        )

    def _verified_row(
        self,
        run: Run,
        source: str,
        model: str,
        messages: list[LoggedMessage],
        case_id: str | None,
        problem: str | None,
    ) -> RowOutcome:
        hosted = run.result.value if isinstance(run.result, DictResult) else None
        rows = self.frozen.rows

        def outcome(local: dict[str, Any], **fields: Any) -> RowOutcome:
            state = run.state.value
            jail = self.player.layers if self.player is not None else None
            return RowOutcome(
                source, model, case_id, state, local_row=local, hosted_row=hosted, jail=jail,
                run_started=run.start_time, **fields,
            )  # fmt: skip

        if problem is None and case_id is not None and run.cached and not messages:
            problem = "cached subrun: the run file holds no conversation to verify"
        if problem is not None or case_id is None:
            local = rows.error_row(
                self.task.protocol_id, self.task.payload_sha256, case_id or "?", "unverified", problem
            )
            return outcome(local, problem=problem, problem_kind=ProblemKind.PROMPT)
        options = replay_options(self.run_options, hosted, self.option_overrides) if self.run_options else None
        assert self.player is not None
        played = self._in_protocol(partial(self.player.play, self.cases[case_id], messages, options))
        local = played.row
        if options is not None:
            local["run_options"] = options  # as the task file's glue records them
        mismatch = played.mismatch
        ran_out = mismatch is not None and mismatch.logged_role is None
        hosted_failed = run.state is RunState.ERRORED or (hosted is not None and hosted.get("verdict") == "error")
        shown = None  # the mismatch that is this row's problem, for reports that show both texts
        if mismatch is not None and not (mismatch.logged_role is None and hosted_failed):
            problem = f"case {case_id}: {mismatch.describe()}"
            shown = mismatch
        elif played.leftover:
            problem = f"case {case_id}: the run file holds {played.leftover} more message(s) than the protocol sends"
        kind = None if problem is None else ProblemKind.PROMPT
        if hosted is None:
            detail = (run.error_message or "row run returned no result")[-1500:]
            local = rows.error_row(self.task.protocol_id, self.task.payload_sha256, case_id, "run_errored", detail)
            return outcome(
                local,
                prompt_verified=problem is None,
                problem=problem,
                problem_kind=kind,
                log_ran_out=ran_out,
            )
        if problem is not None:
            return outcome(local, problem=problem, problem_kind=kind, mismatch=shown)
        if self._comparable is not None:
            diffs = differences(self._comparable(local), self._comparable(hosted))
        else:
            diffs = differences(_without(local, self._machine_keys), _without(hosted, self._machine_keys))
        return outcome(
            local,
            prompt_verified=True,
            score_agrees=not diffs,
            differences=diffs,
            log_ran_out=ran_out,
        )

    def add_run(self, run: Run, source: str) -> None:
        """Take one loaded run file: a stored-task run with row subruns, or a loose row run."""
        name = run.task.name
        model = shorten(run.model_slug, MODEL_LIMIT) if run.model_slug else "(no model)"
        summary = self.report.models.setdefault(model, ModelSummary(model))
        self._in_stored_run = name == self.task.task_name
        if name == self.task.task_name:
            outcomes = []
            copies = 0
            for index, sub in enumerate(run.subruns):
                if sub.task.name != self.task.row_task_name:
                    self.report.foreign_rows.append((model, f"{source} subruns[{index}]", sub.task.name))
                    continue
                outcome = self._row(sub, f"{source} subruns[{index}]", model)
                if outcome is not None:
                    summary.rows.append(outcome)
                    outcomes.append(outcome)
                else:
                    copies += 1
            summary.parents.append(self.parent_outcome(run, source, model, outcomes, copies=copies))
        elif name == self.task.row_task_name:
            outcome = self._row(run, source, model)
            if outcome is not None:
                summary.rows.append(outcome)
        else:
            self.report.foreign_runs.append(f"{source} ({name})")
            self.report.foreign_tasks.add(name)
        if not summary.rows and not summary.parents:
            del self.report.models[model]

    def add_row(self, run: Run, source: str, model: str, *, in_stored_run: bool) -> RowOutcome | None:
        """One row run on its own, as `add_run` takes each (for parallel.py, which keeps the summaries itself)."""
        self._in_stored_run = in_stored_run
        return self._row(run, source, model)

    def parent_outcome(
        self,
        run: Run,
        source: str,
        model: str,
        outcomes: list[RowOutcome],
        *,
        subruns: int | None = None,
        copies: int = 0,
    ) -> ParentOutcome:
        """A stored-task run's recorded headline against the one recomputed from its rows' outcomes.

        `subruns`: how many subruns the run had, when `run` is a copy without them (see parallel.py).
        """
        hosted_headline = run.result.value if isinstance(run.result, NumericResult) else None
        if run.start_time is not None:
            for outcome in outcomes:  # its rows belong to this run, whenever each row started
                outcome.run_started = run.start_time
        local_headline = None
        # The headline is recomputed only from a complete set of rows that all verified: a row that could
        # not be read or whose prompt differs is reported as such, not once more as a headline difference.
        count = len(run.subruns) if subruns is None else subruns
        complete = len(outcomes) == count and all(o.problem_kind is None for o in outcomes)
        if outcomes and complete:
            local_rows = [o.local_row for o in outcomes]
            summary_of_rows = self._in_protocol(partial(self.frozen.entry.aggregate, local_rows))
            local_headline = float(self.frozen.rows.headline_value(summary_of_rows))
        agrees = None
        if hosted_headline is not None and local_headline is not None:
            agrees = abs(hosted_headline - local_headline) <= HEADLINE_TOLERANCE * max(1.0, abs(local_headline))
        return ParentOutcome(source, model, hosted_headline, local_headline, agrees, len(outcomes), count, copies)

    def finish(self) -> RescoreReport:
        """Aggregate each model's rows with the frozen `aggregate`; name each stored run not verified whole."""
        self.report.incomplete = incompleteness(self.report)
        for summary in self.report.models.values():
            counted = summary.counted_rows
            if counted:
                local_rows = [row.local_row for row in counted]
                summary.metrics = self._in_protocol(partial(self.frozen.entry.aggregate, local_rows))
            if self.newer is not None:
                newer_rows = [row.newer.row for row in counted if row.newer and row.newer.row is not None]
                if newer_rows:
                    summary.newer_metrics = self._in_protocol(partial(self.newer.aggregate, newer_rows))
        return self.report


def incompleteness(report: RescoreReport) -> list[Incomplete]:
    """Stored runs with no row of this task, rows of another task inside them, headlines left unchecked."""
    found = [
        Incomplete(model, source, f"a row of another task ({task}) inside a stored run of this task: it is not checked")
        for model, source, task in report.foreign_rows
    ]
    for summary in report.models.values():
        checked = {p.hosted_headline for p in summary.parents if p.local_headline is not None}
        for parent in summary.parents:
            inside = parent.source + " "
            # a row of the run with a problem of its own (or a conflicting copy) already explains an unchecked headline
            explained = any(
                row.problem_kind is not None or row.conflict is not None
                for row in summary.rows
                if row.source.startswith(inside)
            ) or any(source.startswith(inside) for _, source, _ in report.foreign_rows)
            if parent.subruns == 0:
                text = "the stored run holds no rows: nothing of it can be verified (it failed before its first row, "
                found.append(Incomplete(parent.model, parent.source, text + "or its rows were removed)"))
            elif parent.rows == 0 and parent.copies == 0:
                found.append(Incomplete(parent.model, parent.source, "the stored run holds no row of this task"))
            elif parent.rows == 0:  # every row a copy of a row counted in another stored run: that run's headline
                if parent.hosted_headline is not None and parent.hosted_headline not in checked:
                    found.append(
                        Incomplete(
                            parent.model,
                            parent.source,
                            f"its rows are copies of rows counted elsewhere, but its headline {parent.hosted_headline} "
                            "is not the headline checked there",
                        )
                    )
            elif (
                parent.hosted_headline is not None
                and parent.local_headline is None
                and parent.copies == 0
                and not explained
            ):
                found.append(
                    Incomplete(
                        parent.model,
                        parent.source,
                        f"its headline {parent.hosted_headline} could not be recomputed: {parent.rows} of its "
                        f"{parent.subruns} rows were read, not all of them verified",
                    )
                )
    return found


def _without(row: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """The row without the keys its spec declares machine-dependent (none for most versions)."""
    return {key: value for key, value in row.items() if key not in keys} if keys else row


def _run_identity(run: Run) -> str:
    """What tells one run of a row from another: its start time and conversation ids (copies keep both).

    Without either (nothing recorded), the row can only be told apart by its content, so each
    different content counts as its own run and no conflict can be found for it.
    """
    stamp = run.start_time.isoformat() if run.start_time is not None else ""
    chats = ",".join(conversation.id for conversation in run.conversations)
    return f"{stamp}|{chats}" if stamp or chats else ""


def _fingerprint(run: Run, messages: Sequence[LoggedMessage]) -> str:
    """A digest of what a copy of a row could differ in besides its result value: messages, state, error.

    Each message goes in as its role, its length and its UTF-8 bytes, which no two different
    conversations share. Two copies are the same row when their digests and results are the same
    (`_same`): the result is compared only then, so a rescore does not write every row out as
    JSON to hash it (that cost a tenth of the whole rescore).
    """
    result = run.result
    head = [run.state.value, run.error_message, None if result is None else type(result).__name__]
    digest = hashlib.sha256(json.dumps(head, ensure_ascii=True).encode("ascii"))
    for message in messages:
        text = message.text.encode("utf-8", "surrogatepass")
        digest.update(f"\n{message.role}\n{len(text)}\n".encode("utf-8", "surrogatepass"))
        digest.update(text)
    hexdigest = digest.hexdigest()
    return hexdigest if _run_identity(run) else f"content:{hexdigest}"


def _same(a: RunResult | None, b: RunResult | None) -> bool:
    """Whether two copies' results are the same: their values as sorted JSON (key order is not content)."""
    return a is b or _result_json(a) == _result_json(b)


def _result_json(result: RunResult | None) -> str:
    value = None if result is None else [type(result).__name__, result.value]
    return json.dumps(value, sort_keys=True, ensure_ascii=True, default=str)


def rescore_runs(
    task: TaskFile,
    runs: Iterable[tuple[Run, str]],
    file_errors: Iterable[str] = (),
    *,
    newer: TaskFile | None = None,
    keep_messages: bool = False,
    spec: ProtocolSpec | None = None,
    newer_spec: ProtocolSpec | None = None,
    option_overrides: Mapping[str, str] | None = None,
    jail_accept: frozenset[str] = frozenset(),
) -> RescoreReport:
    """Rescore loaded runs (each with a label naming its file) against `task`.

    `runs` may be a generator that loads files one at a time: each stored-task run is rescored
    as it arrives and then let go, so memory holds one run file plus the rows' results; loose
    row runs are kept and rescored after every stored-task run (so a row that also sits inside a
    parent counts once, for its parent). `file_errors` is read after `runs` is exhausted.
    `newer`: a newer version's task file whose scorer also scores every verified row (see `newer.py`).
    `keep_messages`: keep each row's logged conversation (for a report that shows prompts and replies).
    `spec` / `newer_spec`: the declarations of the frozen and the newer version (their hooks: prepared cases,
    `comparable`, run options); None for a task file no registry declares (every default). Each row is replayed
    under the run options it recorded, changed by `option_overrides` (`options.py`).
    `jail_accept`: jail layers the user accepts missing (a version that runs model code replays in the jail).
    """
    rescorer = Rescorer(
        task,
        newer,
        keep_messages=keep_messages,
        spec=spec,
        newer_spec=newer_spec,
        option_overrides=option_overrides,
        jail_accept=jail_accept,
    )
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
