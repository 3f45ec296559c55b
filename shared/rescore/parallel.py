"""`hallubench rescore --jobs N`: the rows of hosted runs rescored in N processes, with the one-process report.

Rescoring a row (replaying the frozen `play` on its logged conversation, and with `--scorer` the
newer one too) depends on no other row; for misled-tests it runs a sandbox per row. So the main
process reads the run files and sorts out foreign runs, hands the rows out in buckets, and each
worker process runs the unchanged engine (`engine.rescore_runs`) on its rows as loose row runs
(each carrying its stored-task run's model and its source label). The main process then puts the
outcomes back in the order a one-process rescore gives them (every stored-task run's rows in file
order, then the loose rows), recomputes each stored-task run's headline from its rows, and each
model's aggregates with the frozen `aggregate`. Rows with the same model and conversation share a
bucket, so duplicates are counted as one process counts them.
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import ClassVar

from ..kaggle_runs.model import Run
from ..taskfile.reader import TaskFile
from .engine import ModelSummary, Rescorer, RescoreReport, RowOutcome, logged_messages

BUCKETS_PER_JOB = 3


@dataclass(frozen=True)
class _Row:
    label: str  # the source label the engine gives the row
    model: str
    run: Run  # a row run, with its stored-task run's model


@dataclass(frozen=True)
class _Parent:
    run: Run
    source: str
    model: str
    labels: list[str]


@dataclass(frozen=True)
class _Scored:
    outcomes: list[RowOutcome]
    duplicates: int
    protocol_cpu_s: float


class _WorkerState:
    """What a worker process keeps between buckets: one rescorer (the frozen modules load once) and the work."""

    rescorer: ClassVar[Rescorer | None] = None
    buckets: ClassVar[list[list[_Row]]] = []


def _start(task: TaskFile, newer: TaskFile | None, buckets: list[list[_Row]] | None) -> None:
    """Worker initializer. With fork the buckets are already here; with spawn they come as arguments.

    What the worker holds now (the runs, the frozen modules) moves to the collector's permanent
    generation: rescanning it at every full collection would cost more than the scoring itself.
    """
    _WorkerState.rescorer = Rescorer(task, newer)
    if buckets is not None:
        _WorkerState.buckets = buckets
    gc.freeze()


def _score(index: int) -> _Scored:
    rescorer = _WorkerState.rescorer
    assert rescorer is not None
    report = rescorer.report
    before = {model: len(summary.rows) for model, summary in report.models.items()}
    duplicates, cpu = report.duplicates, report.protocol_cpu_s
    for row in _WorkerState.buckets[index]:
        rescorer.add_run(row.run, row.label)
    gc.freeze()  # the results only grow: keep them out of later full collections (as engine.rescore_runs does)
    outcomes = [outcome for model, summary in report.models.items() for outcome in summary.rows[before.get(model, 0) :]]
    return _Scored(outcomes, report.duplicates - duplicates, report.protocol_cpu_s - cpu)


def _bucket(row: _Row, count: int) -> int:
    digest = hashlib.sha256(row.model.encode("utf-8", "surrogatepass"))
    for message in logged_messages(row.run):
        digest.update(b"\x00" + message.text.encode("utf-8", "surrogatepass"))
    return int.from_bytes(digest.digest()[:8], "big") % count


def default_jobs() -> int:
    """The number of cores this process may use."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


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
    try:
        parents: list[_Parent] = []
        rows: list[_Row] = []
        loose: list[_Row] = []
        foreign_loose: list[tuple[str, str]] = []
        for run, source in runs:
            if run.task.name == task.task_name:
                model = run.model_slug or "(no model)"
                labels = []
                for index, sub in enumerate(run.subruns):
                    if sub.task.name != task.row_task_name:
                        report.foreign_runs.append(f"{source} subruns[{index}] ({sub.task.name})")
                        report.foreign_tasks.add(sub.task.name)
                        continue
                    label = f"{source} subruns[{index}]"
                    rows.append(_Row(label, model, replace(sub, model_slug=run.model_slug)))
                    labels.append(label)
                parents.append(_Parent(run, source, model, labels))
            elif run.task.name == task.row_task_name:
                loose.append(_Row(source, run.model_slug or "(no model)", run))
            else:
                foreign_loose.append((source, run.task.name))
        for source, name in foreign_loose:
            report.foreign_runs.append(f"{source} ({name})")
            report.foreign_tasks.add(name)
        work = rows + loose  # stored-task rows first, as one process takes them
        count = max(1, min(len(work), jobs * BUCKETS_PER_JOB))
        buckets: list[list[_Row]] = [[] for _ in range(count)]
        for row in work:
            buckets[_bucket(row, count)].append(row)
        buckets = [bucket for bucket in buckets if bucket]
        _WorkerState.buckets = buckets
        context = _context()
        if jobs > 1 and len(buckets) > 1:
            shipped = None if context.get_start_method() == "fork" else buckets  # a fork has them already
            gc.freeze()  # forked workers then copy fewer pages (frozen objects are never rescanned)
            with ProcessPoolExecutor(
                max_workers=min(jobs, len(buckets)),
                mp_context=context,
                initializer=_start,
                initargs=(task, newer, shipped),
            ) as pool:
                scored = list(pool.map(_score, range(len(buckets))))
            gc.unfreeze()
        else:
            _start(task, newer, buckets)
            try:
                scored = [_score(index) for index in range(len(buckets))]
            finally:
                assert _WorkerState.rescorer is not None
                _WorkerState.rescorer.close()
        by_label = {outcome.source: outcome for part in scored for outcome in part.outcomes}
        report.duplicates += sum(part.duplicates for part in scored)
        report.protocol_cpu_s += sum(part.protocol_cpu_s for part in scored)
        for parent in parents:
            summary = report.models.setdefault(parent.model, ModelSummary(parent.model))
            outcomes = [by_label[label] for label in parent.labels if label in by_label]
            summary.rows.extend(outcomes)
            summary.parents.append(rescorer.parent_outcome(parent.run, parent.source, parent.model, outcomes))
        for row in loose:
            summary = report.models.setdefault(row.model, ModelSummary(row.model))
            outcome = by_label.get(row.label)
            if outcome is not None:
                summary.rows.append(outcome)
            if not summary.rows and not summary.parents:
                del report.models[row.model]
        finished = rescorer.finish()
    finally:
        rescorer.close()
        _WorkerState.rescorer, _WorkerState.buckets = None, []
    finished.file_errors.extend(file_errors)
    return finished
