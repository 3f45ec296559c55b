"""`hallubench rescore --jobs 2` against `--jobs 1` on the same run files, in one run: wall time and equal reports.

Writes hallumaze rows as kaggle-benchmarks run files (the generator of scripts/bench/rescore.py),
then rescores them in one process (`engine.rescore_runs`) and spread over 2 processes
(`parallel.rescore_runs_parallel`), alternately, best of `--repeat`. Checks that both give the same
rows in the same order and the same aggregates, and prints the speed-up (target >= 1.7x on 2 cores;
a shared machine lowers it: read the ratio measured when it is quiet).

    .venv/bin/python scripts/bench/rescore_jobs.py [--rows 4000] [--jobs 2] [--repeat 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rescore import TASK, make_runs

from hallubench.kaggle_runs import Run, load_run
from hallubench.rescore.engine import RescoreReport, rescore_runs
from hallubench.rescore.parallel import rescore_runs_parallel
from hallubench.taskfile.reader import read_task_file


def _runs(paths: list[Path]) -> Iterator[tuple[Run, str]]:
    for path in paths:
        loaded = load_run(path)
        yield loaded.run, str(loaded.path)


def _fingerprint(report: RescoreReport) -> Any:
    rows = [(row.source, row.case_id, row.prompt_verified, row.score_agrees, row.local_row) for row in report.rows]
    parents = [(p.source, p.local_headline, p.agrees) for s in report.models.values() for p in s.parents]
    headlines = {model: summary.metrics.get("headline") for model, summary in report.models.items()}
    return rows, parents, headlines, report.duplicates


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=4000)
    parser.add_argument("--rows-per-file", type=int, default=240)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    task = read_task_file(TASK)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = make_runs(folder, args.rows, args.rows_per_file)
        paths = sorted(folder.glob("*.run.json"))
        print(f"{args.rows} hallumaze rows in {files} run files")
        one_s: list[float] = []
        many_s: list[float] = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            one = rescore_runs(task, _runs(paths))
            one_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            many = rescore_runs_parallel(task, _runs(paths), jobs=args.jobs)
            many_s.append(time.perf_counter() - started)
    same = _fingerprint(one) == _fingerprint(many)
    print(f"--jobs 1:          {min(one_s):7.2f} s wall (best of {args.repeat})")
    print(f"--jobs {args.jobs}:          {min(many_s):7.2f} s wall (best of {args.repeat})")
    print(f"same rows, order and aggregates: {same}")
    print(f"speed-up at {args.jobs} jobs: {min(one_s) / min(many_s):.2f}x  (target >= 1.7x on 2 cores)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
