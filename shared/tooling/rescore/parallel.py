"""`hallubench rescore --jobs N`: the rows of hosted runs rescored in N processes, with the one-process report.

Rescoring a row (replaying the frozen `play` on its logged conversation, and with `--scorer` the
newer one too) depends on no other row but its own copies; for a protocol that executes model
code it runs a sandbox per row. So N worker processes each hold the unchanged engine (one `engine.Rescorer`, its frozen
modules loaded once) and the main process streams rows to them while it reads the run files:
reading overlaps scoring. The main process is one of the N: it scores its own share of each file
right after handing the other shares on, so N jobs are N busy processes, never N + 1 (on N cores a
reader process of its own would take a core from the scoring). Every copy of a row (same model and
run, or the same content where the run file records no run identity) goes to the same worker, and
every worker takes its rows in the order one process would (stored-task rows as their files come,
loose row runs after all of them), so duplicates, row-file copies and conflicting copies are
found, and counted, exactly as one process finds them. The main process then puts the outcomes
back in the one-process order (every stored-task run's rows in file order, then the loose rows),
orders the conflicts as one process meets them, recomputes each stored-task run's headline from
its rows, and each model's aggregates with the frozen `aggregate`.

What it costs: each row is pickled to its worker and its outcome pickled back (about 0.15 ms each
way for a row of a few kilobytes), so rows that score in about a millisecond gain less than rows
that run a sandbox, where the copying is noise.
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ...errors import HallubenchError
from ..kaggle_runs.model import Run
from ..specs import ProtocolSpec
from ..taskfile.reader import TaskFile
from .bounded import MODEL_LIMIT, shorten
from .engine import (
    Conflict,
    ModelSummary,
    Rescorer,
    RescoreReport,
    RowOutcome,
    _fingerprint,
    _results_kept_out_of_gc,
    _run_identity,
    logged_messages,
)


class WorkerFailed(HallubenchError, RuntimeError):
    """A rescore worker process ended without its results (an exception, or it was killed)."""


@dataclass(frozen=True)
class _Row:
    label: str  # the source label the engine gives the row
    model: str
    run: Run
    in_stored_run: bool


@dataclass(frozen=True)
class _Parent:
    run: Run  # without its subruns (they went to the workers)
    source: str
    model: str
    labels: list[str]
    subruns: int


@dataclass
class _Scored:
    outcomes: list[RowOutcome] = field(default_factory=list)
    duplicates: int = 0
    row_file_copies: int = 0
    conflicts: list[Conflict] = field(default_factory=list)
    protocol_cpu_s: float = 0.0


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _worker_of(row: _Row, jobs: int) -> int:
    """The worker for every copy of this row: the engine tells copies apart by model, case and run identity."""
    identity = _run_identity(row.run) or _fingerprint(row.run, logged_messages(row.run))
    digest = hashlib.sha256(f"{row.model}\x00{identity}".encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % jobs


def _work(
    task: TaskFile,
    newer: TaskFile | None,
    settings: dict[str, Any],
    inherited: Rescorer | None,
    inbox: Any,
    outbox: Any,
) -> None:
    """A worker process: score every batch of rows it receives, in order; then send what it found.

    `inherited`: the main process's Rescorer, not yet given a row, when the worker was forked (its frozen
    modules and prepared cases are then already loaded); otherwise the worker makes its own.
    """
    try:
        rescorer = inherited if inherited is not None else Rescorer(task, newer, **settings)
        scored = _Scored()
        gc.freeze()  # what the worker inherited is never rescanned by the collector
        while True:
            batch: list[_Row] | None = inbox.get()
            if batch is None:
                break
            for row in batch:
                outcome = rescorer.add_row(row.run, row.label, row.model, in_stored_run=row.in_stored_run)
                if outcome is not None:
                    scored.outcomes.append(outcome)
            gc.freeze()  # the results only grow: keep them out of later full collections
        report = rescorer.report
        scored.duplicates, scored.row_file_copies = report.duplicates, report.row_file_copies
        scored.conflicts, scored.protocol_cpu_s = report.conflicts, report.protocol_cpu_s
        rescorer.close()
        outbox.put(("done", scored))  # at the end: a later conflict may still mark an earlier outcome
    except BaseException:
        outbox.put(("failed", traceback.format_exc()[-3000:]))


class _Workers:
    """Worker 0, the main process's own Rescorer, and N - 1 worker processes, one inbox each and one shared outbox."""

    def __init__(
        self, task: TaskFile, newer: TaskFile | None, settings: dict[str, Any], jobs: int, local: Rescorer
    ) -> None:
        forking = "fork" in multiprocessing.get_all_start_methods()
        context: Any = multiprocessing.get_context("fork" if forking else "spawn")
        inherited = local if forking else None  # a forked worker starts from a copy of `local`, not yet given a row
        self.local = local
        self.scored = _Scored()  # what worker 0 found (its conflicts and counters stay in local.report)
        self.outbox = context.Queue()
        self.inboxes = [context.Queue() for _ in range(jobs - 1)]
        ours = not gc.get_freeze_count()  # left alone when the process froze objects of its own
        if ours:
            gc.freeze()  # forked workers then copy fewer pages
        self.processes = [
            context.Process(target=_work, args=(task, newer, settings, inherited, inbox, self.outbox), daemon=True)
            for inbox in self.inboxes
        ]
        for process in self.processes:
            process.start()
        if ours:
            gc.unfreeze()

    def send(self, worker: int, rows: list[_Row]) -> None:
        """Hand `rows` to worker `worker`; worker 0's are scored here and now (send the others first)."""
        if not rows:
            return
        if worker:
            self.inboxes[worker - 1].put(rows)
            return
        for row in rows:
            outcome = self.local.add_row(row.run, row.label, row.model, in_stored_run=row.in_stored_run)
            if outcome is not None:
                self.scored.outcomes.append(outcome)

    def finish(self) -> list[_Scored]:
        """What every worker process found (worker 0's is `self.scored` and `local.report`)."""
        for inbox in self.inboxes:
            inbox.put(None)
        found: list[_Scored] = []
        while len(found) < len(self.processes):
            try:
                message = self.outbox.get(timeout=5.0)
            except Exception:  # queue.Empty: is every worker still alive?
                if any(process.exitcode not in (None, 0) for process in self.processes):
                    raise WorkerFailed("a rescore worker process died") from None
                continue
            if message[0] != "done":
                raise WorkerFailed(f"a rescore worker failed:\n{message[1]}")
            found.append(message[1])
        for process in self.processes:
            process.join()
        return found

    def close(self) -> None:
        for process in self.processes:
            if process.is_alive():
                process.kill()
            process.join()


def _local_last(jobs: int) -> list[int]:
    """The order rows are handed out: the worker processes first, then worker 0 (this process)."""
    return [*range(1, jobs), 0]


def rescore_runs_parallel(
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
    jobs: int,
) -> RescoreReport:
    """`engine.rescore_runs` with the rows spread over `jobs` processes (this one included); the same report."""
    settings: dict[str, Any] = {
        "keep_messages": keep_messages,
        "spec": spec,
        "newer_spec": newer_spec,
        "option_overrides": dict(option_overrides or {}),
        "jail_accept": jail_accept,
    }
    rescorer = Rescorer(task, newer, **settings)
    report = rescorer.report
    workers = _Workers(task, newer, settings, jobs, rescorer)  # before the main process gives it any row
    try:
        with _results_kept_out_of_gc() as keep:  # as engine.rescore_runs: results grow, never rescanned
            parents: list[_Parent] = []
            loose: list[_Row] = []
            foreign_loose: list[tuple[str, str]] = []
            order: dict[str, int] = {}
            for run, source in runs:
                if run.task.name == task.task_name:
                    model = shorten(run.model_slug, MODEL_LIMIT) if run.model_slug else "(no model)"
                    labels = []
                    batches: list[list[_Row]] = [[] for _ in range(jobs)]
                    for index, sub in enumerate(run.subruns):
                        if sub.task.name != task.row_task_name:
                            report.foreign_rows.append((model, f"{source} subruns[{index}]", sub.task.name))
                            continue
                        row = _Row(f"{source} subruns[{index}]", model, sub, in_stored_run=True)
                        batches[_worker_of(row, jobs)].append(row)
                        labels.append(row.label)
                        order.setdefault(row.label, len(order))
                    for worker in _local_last(jobs):  # the processes get their rows before this one scores its own
                        workers.send(worker, batches[worker])
                    parents.append(_Parent(replace(run, subruns=[]), source, model, labels, len(run.subruns)))
                    keep()
                elif run.task.name == task.row_task_name:
                    model = shorten(run.model_slug, MODEL_LIMIT) if run.model_slug else "(no model)"
                    loose.append(_Row(source, model, run, in_stored_run=False))
                else:
                    foreign_loose.append((source, run.task.name))
            for source, name in foreign_loose:
                report.foreign_runs.append(f"{source} ({name})")
                report.foreign_tasks.add(name)
            batches = [[] for _ in range(jobs)]
            for row in loose:  # after every stored-task row, as one process takes them
                batches[_worker_of(row, jobs)].append(row)
                order.setdefault(row.label, len(order))
            for worker in _local_last(jobs):
                workers.send(worker, batches[worker])
            scored = [workers.scored, *workers.finish()]
            by_label = {outcome.source: outcome for part in scored for outcome in part.outcomes}
            report.duplicates += sum(part.duplicates for part in scored)  # worker 0 counted its own in `report`
            report.row_file_copies += sum(part.row_file_copies for part in scored)
            report.protocol_cpu_s += sum(part.protocol_cpu_s for part in scored)
            conflicts = [*report.conflicts, *(conflict for part in scored for conflict in part.conflicts)]
            # one process meets a conflict when it reaches the copy that makes it (the second source)
            report.conflicts[:] = sorted(conflicts, key=lambda c: order.get(c.sources[1], len(order)))
            for parent in parents:
                summary = report.models.setdefault(parent.model, ModelSummary(parent.model))
                kept = [by_label[label] for label in parent.labels if label in by_label]
                summary.rows.extend(kept)
                outcome = rescorer.parent_outcome(
                    parent.run,
                    parent.source,
                    parent.model,
                    kept,
                    subruns=parent.subruns,
                    copies=len(parent.labels) - len(kept),
                )
                summary.parents.append(outcome)
            for row in loose:
                summary = report.models.setdefault(row.model, ModelSummary(row.model))
                found = by_label.get(row.label)
                if found is not None:
                    summary.rows.append(found)
                if not summary.rows and not summary.parents:
                    del report.models[row.model]
            finished = rescorer.finish()
    finally:
        workers.close()
        rescorer.close()
    finished.file_errors.extend(file_errors)
    return finished
