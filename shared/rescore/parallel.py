"""`hallubench rescore --jobs N`: the rows of hosted runs rescored in N processes, with the one-process report.

Rescoring a row (replaying the frozen `play` on its logged conversation, and with `--scorer` the
newer one too) depends on no other row; for misled-tests it runs a sandbox per row. So N worker
processes each hold the unchanged engine (one `engine.Rescorer`, its frozen modules loaded once)
and the main process streams rows to them while it reads the run files: reading overlaps scoring.
Each row goes to the worker its model and conversation choose, and every worker takes its rows in
the order one process would (stored-task rows as their files come, loose row runs after all of
them), so duplicates are recognised, and counted, exactly as one process does. The main process
then puts the outcomes back in the one-process order (every stored-task run's rows in file order,
then the loose rows), recomputes each stored-task run's headline from its rows, and each model's
aggregates with the frozen `aggregate`.
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from ..kaggle_runs.model import Run
from ..taskfile.reader import TaskFile
from .engine import ModelSummary, Rescorer, RescoreReport, RowOutcome, logged_messages


class WorkerFailed(RuntimeError):
    """A rescore worker process ended without its results (an exception, or it was killed)."""


@dataclass(frozen=True)
class _Row:
    label: str  # the source label the engine gives the row
    model: str
    run: Run  # a row run, with its stored-task run's model


@dataclass(frozen=True)
class _Parent:
    run: Run  # without its subruns (they went to the workers)
    source: str
    model: str
    labels: list[str]
    subruns: int


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _worker_of(row: _Row, jobs: int) -> int:
    digest = hashlib.sha256(row.model.encode("utf-8", "surrogatepass"))
    for message in logged_messages(row.run):
        digest.update(b"\x00" + message.text.encode("utf-8", "surrogatepass"))
    return int.from_bytes(digest.digest()[:8], "big") % jobs


def _work(task: TaskFile, newer: TaskFile | None, inbox: Any, outbox: Any) -> None:
    """A worker process: score every batch of rows it receives, in order; then report its counts."""
    try:
        rescorer = Rescorer(task, newer)
        report = rescorer.report
        gc.freeze()  # what the worker inherited is never rescanned by the collector
        while True:
            batch: list[_Row] | None = inbox.get()
            if batch is None:
                break
            before = {model: len(summary.rows) for model, summary in report.models.items()}
            for row in batch:
                rescorer.add_run(row.run, row.label)
            outcomes = [o for m, summary in report.models.items() for o in summary.rows[before.get(m, 0) :]]
            outbox.put(("rows", outcomes))
            gc.freeze()  # the results only grow: keep them out of later full collections
        outbox.put(("done", report.duplicates, report.protocol_cpu_s))
        rescorer.close()
    except BaseException:
        outbox.put(("failed", traceback.format_exc()[-3000:]))


class _Workers:
    """N worker processes, one inbox each and one shared outbox."""

    def __init__(self, task: TaskFile, newer: TaskFile | None, jobs: int) -> None:
        methods = multiprocessing.get_all_start_methods()
        context: Any = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self.outbox = context.Queue()
        self.inboxes = [context.Queue() for _ in range(jobs)]
        gc.freeze()  # forked workers then copy fewer pages
        self.processes = [
            context.Process(target=_work, args=(task, newer, inbox, self.outbox), daemon=True) for inbox in self.inboxes
        ]
        for process in self.processes:
            process.start()
        gc.unfreeze()

    def send(self, worker: int, rows: list[_Row]) -> None:
        if rows:
            self.inboxes[worker].put(rows)

    def finish(self) -> tuple[list[RowOutcome], int, float]:
        """Every outcome the workers made, the duplicates they skipped and their protocol CPU time."""
        for inbox in self.inboxes:
            inbox.put(None)
        outcomes: list[RowOutcome] = []
        duplicates, cpu, done = 0, 0.0, 0
        while done < len(self.processes):
            try:
                message = self.outbox.get(timeout=5.0)
            except Exception:  # queue.Empty: is every worker still alive?
                if any(process.exitcode not in (None, 0) for process in self.processes):
                    raise WorkerFailed("a rescore worker process died") from None
                continue
            if message[0] == "rows":
                outcomes.extend(message[1])
            elif message[0] == "done":
                duplicates += message[1]
                cpu += message[2]
                done += 1
            else:
                raise WorkerFailed(f"a rescore worker failed:\n{message[1]}")
        for process in self.processes:
            process.join()
        return outcomes, duplicates, cpu

    def close(self) -> None:
        for process in self.processes:
            if process.is_alive():
                process.kill()
            process.join()


def rescore_runs_parallel(
    task: TaskFile,
    runs: Iterable[tuple[Run, str]],
    file_errors: Iterable[str] = (),
    *,
    newer: TaskFile | None = None,
    jobs: int,
) -> RescoreReport:
    """`engine.rescore_runs` with the rows spread over `jobs` processes; the same report, in the same order."""
    rescorer = Rescorer(task, newer)
    report = rescorer.report
    workers = _Workers(task, newer, jobs)
    try:
        parents: list[_Parent] = []
        loose: list[_Row] = []
        foreign_loose: list[tuple[str, str]] = []
        for run, source in runs:
            if run.task.name == task.task_name:
                model = run.model_slug or "(no model)"
                labels = []
                batches: list[list[_Row]] = [[] for _ in range(jobs)]
                for index, sub in enumerate(run.subruns):
                    if sub.task.name != task.row_task_name:
                        report.foreign_runs.append(f"{source} subruns[{index}] ({sub.task.name})")
                        report.foreign_tasks.add(sub.task.name)
                        continue
                    row = _Row(f"{source} subruns[{index}]", model, replace(sub, model_slug=run.model_slug))
                    batches[_worker_of(row, jobs)].append(row)
                    labels.append(row.label)
                for worker, batch in enumerate(batches):
                    workers.send(worker, batch)
                parents.append(_Parent(replace(run, subruns=[]), source, model, labels, len(run.subruns)))
            elif run.task.name == task.row_task_name:
                loose.append(_Row(source, run.model_slug or "(no model)", run))
            else:
                foreign_loose.append((source, run.task.name))
        for source, name in foreign_loose:
            report.foreign_runs.append(f"{source} ({name})")
            report.foreign_tasks.add(name)
        batches = [[] for _ in range(jobs)]
        for row in loose:  # after every stored-task row, as one process takes them
            batches[_worker_of(row, jobs)].append(row)
        for worker, batch in enumerate(batches):
            workers.send(worker, batch)
        outcomes, duplicates, cpu = workers.finish()
        by_label = {outcome.source: outcome for outcome in outcomes}
        report.duplicates += duplicates
        report.protocol_cpu_s += cpu
        for parent in parents:
            summary = report.models.setdefault(parent.model, ModelSummary(parent.model))
            kept = [by_label[label] for label in parent.labels if label in by_label]
            summary.rows.extend(kept)
            outcome = rescorer.parent_outcome(parent.run, parent.source, parent.model, kept, subruns=parent.subruns)
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
