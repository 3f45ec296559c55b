"""`hallubench rescore --jobs 2` against `--jobs 1` on the same run files, in one run: wall time and equal reports.

Two kinds of rows, written as kaggle-benchmarks run files:

* misled-tests/v2 rows (the case `--jobs` is for: every row runs the sandbox): the model's reply to
  each `buggy_code` case is HumanEvalPack's own test for the problem, one test per assert
  (scripts/bench/execute.py's split; data from --data or $HALLUBENCH_HUMANEVALPACK, never from this
  repository);
* hallumaze/v3 rows (pure Python scoring, ~1 ms a row), from scripts/bench/rescore.py's generator.

Each set is rescored in one process (`engine.rescore_runs`) and over `--jobs` processes
(`parallel.rescore_runs_parallel`), alternately, best of `--repeat`; the script checks that both
give the same rows in the same order and the same aggregates and prints the speed-up (target
>= 1.7x at 2 jobs on 2 cores; a shared machine lowers it: read the ratio measured when it is quiet).

    .venv/bin/python scripts/bench/rescore_jobs.py [--misled-rows 120] [--maze-rows 10000] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from execute import _cpu_ticks, split_asserts
from rescore import Recording, _requests, make_runs

from hallubench.tooling.kaggle_runs import Run, load_run
from hallubench.tooling.rescore.engine import RescoreReport, rescore_runs
from hallubench.tooling.rescore.parallel import rescore_runs_parallel
from hallubench.tooling.specs import load_registry
from hallubench.tooling.taskfile.reader import FrozenProtocol, TaskFile, read_task_file

ROOT = Path(__file__).resolve().parents[2]
MISLED_TASK = ROOT / "tasks" / "misled_tests_v2.py"
MAZE_TASK = ROOT / "tasks" / "hallumaze_v3.py"
# Buggy versions that loop until the 10 s item limit (Python/76: 11 of its 16 split asserts, 110 s a row,
# which alone would decide any timing of more than 76 problems).
HANGING = {"Python/10", "Python/76", "Python/156", "Python/160"}
VOLATILE = frozenset({"version_order", "isolation", "buggy_detail", "fixed_detail"})


class BundledTestReplies:
    """Answers a misled-tests prompt with the problem's own HumanEvalPack tests, as a model might."""

    def __init__(self, reply: str) -> None:
        self.reply = reply

    def ask(self, text: str) -> str:
        return self.reply


def make_misled_runs(folder: Path, rows: int) -> int:
    """One parent run file of `rows` misled-tests/v2 buggy_code rows, played through the task file itself."""
    task = read_task_file(MISLED_TASK)
    model = "bench/model-misled"
    with FrozenProtocol(task) as frozen:
        package = frozen.entry.__package__
        problems = __import__(f"{package}.data", fromlist=["cached_problems"]).cached_problems()
        subruns: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        for case in frozen.entry.prepare(task.cases):  # v2 declares prepare: the cases with their problem
            if len(subruns) >= rows:
                break
            if case["condition"] != "buggy_code" or case["problem"] in HANGING:
                continue
            reply = "```python\n" + split_asserts(problems[case["problem"]]) + "```\n"
            recording = Recording(BundledTestReplies(reply))
            row = frozen.rows.play_row(
                frozen.entry.play, case, recording, protocol_id=task.protocol_id, payload_sha256=task.payload_sha256
            )
            chat = f"{task.row_task_name}-{len(subruns):08x}"
            subruns.append(_subrun(task, model, chat, recording.messages, json.loads(json.dumps(row))))
            results.append(row)
        headline = float(frozen.entry.aggregate(results)["headline"] or 0.0)
    _write_parent(folder, task, model, subruns, headline)
    return len(subruns)


def _subrun(task: TaskFile, model: str, chat: str, messages: list[tuple[str, str]], row: Any) -> dict[str, Any]:
    return {
        "taskVersion": {"versionNumber": 1, "name": task.row_task_name, "description": ""},
        "modelVersion": {"slug": model},
        "state": "BENCHMARK_TASK_RUN_STATE_COMPLETED",
        "startTime": "2026-11-30T00:00:00Z",
        "endTime": "2026-11-30T00:00:01Z",
        "conversations": [{"id": chat, "requests": _requests(messages, chat, model)}],
        "results": [{"type": "AGGREGATED", "dictResult": row}],
        "pyRunId": f"{task.row_task_name}-{chat}",
    }


def _write_parent(folder: Path, task: TaskFile, model: str, subruns: list[Any], headline: float) -> None:
    parent = {
        "taskVersion": {"versionNumber": task.version, "name": task.task_name, "description": ""},
        "modelVersion": {"slug": model},
        "state": "BENCHMARK_TASK_RUN_STATE_COMPLETED",
        "conversations": [{"id": f"{task.task_name}-00000000", "requests": []}],
        "results": [{"type": "AGGREGATED", "numericResult": {"value": headline} if headline else {}}],
        "subruns": subruns,
        "pyRunId": f"{task.task_name}-Run #1",
    }
    path = folder / f"{task.task_name}-run_id_Run_1_{model.replace('/', '_')}.run.json"
    path.write_text(json.dumps(parent, indent=2, ensure_ascii=True), encoding="utf-8")


def _runs(paths: list[Path]) -> Iterator[tuple[Run, str]]:
    for path in paths:
        loaded = load_run(path)
        yield loaded.run, str(loaded.path)


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _stable(item) for key, item in value.items() if key not in VOLATILE}
    if isinstance(value, list):
        return [_stable(item) for item in value]
    return value


def _fingerprint(report: RescoreReport) -> Any:
    rows = [
        (row.source, row.case_id, row.prompt_verified, row.score_agrees, _stable(row.local_row)) for row in report.rows
    ]
    parents = [(p.source, p.local_headline, p.agrees) for s in report.models.values() for p in s.parents]
    headlines = {model: summary.metrics.get("headline") for model, summary in report.models.items()}
    return rows, parents, headlines, report.duplicates


def compare(name: str, task: TaskFile, paths: list[Path], jobs: int, repeat: int) -> bool:
    one_s: list[float] = []
    many_s: list[float] = []
    idle, total = _cpu_ticks()
    one = many = None
    spec = load_registry(ROOT).spec(task.protocol_id)  # its hooks (prepare, comparable), as the command passes them
    for _ in range(repeat):
        started = time.perf_counter()
        one = rescore_runs(task, _runs(paths), spec=spec)
        one_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        many = rescore_runs_parallel(task, _runs(paths), spec=spec, jobs=jobs)
        many_s.append(time.perf_counter() - started)
    assert one is not None and many is not None
    idle_after, total_after = _cpu_ticks()
    idle_share = (idle_after - idle) / max(1, total_after - total)
    same = bool(_fingerprint(one) == _fingerprint(many))
    agree = sum(1 for row in many.rows if row.score_agrees)
    print(f"{name}: {len(one.rows)} rows, {agree} scores agree (machine idle {idle_share:.0%} meanwhile)")
    print(f"  --jobs 1:      {min(one_s):7.2f} s wall (best of {repeat})")
    print(f"  --jobs {jobs}:      {min(many_s):7.2f} s wall (best of {repeat})")
    print(f"  same rows, order and aggregates: {same}")
    print(f"  speed-up at {jobs} jobs: {min(one_s) / min(many_s):.2f}x  (target >= 1.7x on 2 cores)")
    return same


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("HALLUBENCH_HUMANEVALPACK"))
    parser.add_argument("--misled-rows", type=int, default=120, help="misled-tests/v2 rows (each runs a sandbox)")
    parser.add_argument("--maze-rows", type=int, default=10_000, help="hallumaze/v3 rows")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    if args.data:
        os.environ["HALLUBENCH_HUMANEVALPACK"] = args.data
    sets: list[tuple[str, Path, Callable[[Path], object]]] = [
        ("misled-tests/v2", MISLED_TASK, lambda folder: make_misled_runs(folder, args.misled_rows)),
        ("hallumaze/v3", MAZE_TASK, lambda folder: make_runs(folder, args.maze_rows, 240, MAZE_TASK)),
    ]
    same = True
    for name, task_path, make in sets:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            make(folder)
            same &= compare(name, read_task_file(task_path), sorted(folder.glob("*.run.json")), args.jobs, args.repeat)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
