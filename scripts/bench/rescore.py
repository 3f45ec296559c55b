"""How much does `hallubench rescore` cost compared with merely parsing the same run files?

Writes 10,000 hallumaze rows as kaggle-benchmarks 0.6.2 run files (parent runs with row
subruns, in the JSON shape kbench writes), whose replies come from the simulated baseline
agents (random walk, DFS, BFS oracle) played through the task file exactly as a hosted run
would, then measures in one process (CPU time, best of `--repeat`, the measurements alternated):

* baseline: `json.load` of every file;
* rescore: load the run files, verify every prompt, re-score every reply, recompute metrics,
  split into reading the files, the protocol's own play + aggregate, and the rest;
* the hallumaze report `rescore` prints after it: once with its simulated baselines played and
  cached (the first rescore of a task file), once reading them from the cache (every later one);
* for comparison, the frozen hallumaze/v2 play on the very same conversations (v3 sends v2's
  prompts byte for byte, so the same replies serve both).

Targets (hallumaze v3): the whole rescore within 3x `json.load`, the v3 play + aggregate within
0.25 ms per row. Exit code 1 when a row does not verify or agree.

    .venv/bin/python scripts/bench/rescore.py [--task hallumaze/v3] [--rows 10000] [--rows-per-file 240] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hallubench.tooling.kaggle_runs import Run, RunFileError, load_run
from hallubench.tooling.rescore.engine import RescoreReport, rescore_runs
from hallubench.tooling.taskfile.reader import FrozenProtocol, TaskFile, read_task_file

ROOT = Path(__file__).resolve().parents[2]
V2 = ROOT / "tasks" / "hallumaze_v2.py"
ROLE = {"system": "CONTENT_ROLE_SYSTEM", "user": "CONTENT_ROLE_USER", "assistant": "CONTENT_ROLE_ASSISTANT"}


class Recording:
    """Records the messages a protocol exchanges with a scripted agent."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.messages: list[tuple[str, str]] = []

    def system(self, text: str) -> None:
        self.messages.append(("system", text))

    def ask(self, text: str) -> str:
        self.messages.append(("user", text))
        reply = str(self.agent.ask(text))
        self.messages.append(("assistant", reply))
        return reply


def _requests(messages: list[tuple[str, str]], chat: str, model: str) -> list[dict[str, Any]]:
    requests: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    for role, text in messages:
        sender = {"system": "System", "user": "User"}.get(role, model)
        pending.append({"parts": [{"text": text}], "role": ROLE[role], "senderName": sender})
        if role == "assistant":
            requests.append(
                {
                    "contents": pending,
                    "metrics": {"inputTokens": 100, "outputTokens": 50},
                    "id": f"{chat}-req-{len(requests) + 1}",
                }
            )
            pending = []
    return requests


def make_runs(folder: Path, rows: int, per_file: int, path: Path) -> int:
    """Write `rows` row subruns of the task file at `path` into parent run files; return the number of files."""
    task = read_task_file(path)
    with FrozenProtocol(task) as frozen:
        from hallubench.hallumaze import trial as trial_module
        from hallubench.tooling.hallumaze import baselines

        made = 0
        files = 0
        while made < rows:
            model = f"bench/model-{files:03d}"
            subruns = []
            results = []
            for case in task.cases:
                if made >= rows or len(subruns) >= per_file:
                    break
                agent_name = baselines.AGENTS[(made // len(task.cases)) % len(baselines.AGENTS)]
                trial = trial_module.load_trial(case)
                lines, block = baselines.transcript(trial.maze, baselines.agent_walk(agent_name, trial))
                per_turn = trial.moves_per_turn if trial.mode == "interactive" else None
                recording = Recording(baselines.AgentConversation(lines, block, per_turn))
                row = frozen.rows.play_row(
                    frozen.entry.play, case, recording, protocol_id=task.protocol_id, payload_sha256=task.payload_sha256
                )
                row = json.loads(json.dumps(row).replace("NaN", "null"))
                chat = f"{task.row_task_name}-{made:08x}"
                subruns.append(
                    {
                        "taskVersion": {"versionNumber": 1, "name": task.row_task_name, "description": ""},
                        "modelVersion": {"slug": model},
                        "state": "BENCHMARK_TASK_RUN_STATE_COMPLETED",
                        "startTime": "2026-11-30T00:00:00Z",
                        "endTime": "2026-11-30T00:00:01Z",
                        "conversations": [{"id": chat, "requests": _requests(recording.messages, chat, model)}],
                        "results": [{"type": "AGGREGATED", "dictResult": row}],
                        "pyRunId": f"{task.row_task_name}-Run #{made + 1}",
                    }
                )
                results.append(row)
                made += 1
            headline = float(frozen.entry.aggregate(results)["headline"])
            parent = {
                "taskVersion": {"versionNumber": task.version, "name": task.task_name, "description": ""},
                "modelVersion": {"slug": model},
                "state": "BENCHMARK_TASK_RUN_STATE_COMPLETED",
                "conversations": [{"id": f"{task.task_name}-0000000{files}", "requests": []}],
                "results": [{"type": "AGGREGATED", "numericResult": {"value": headline} if headline else {}}],
                "subruns": subruns,
                "pyRunId": f"{task.task_name}-Run #1",
            }
            path = folder / f"{task.task_name}-run_id_Run_1_bench_model-{files:03d}.run.json"
            path.write_text(json.dumps(parent, indent=2, ensure_ascii=True), encoding="utf-8")
            files += 1
    return files


@dataclass(frozen=True)
class RescoreTiming:
    total_s: float
    reading_s: float
    report: RescoreReport


def time_json_load(paths: list[Path]) -> float:
    """CPU seconds to `json.load` every file, one at a time."""
    started = time.process_time()
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            json.load(handle)
    return time.process_time() - started


def time_rescore(task: TaskFile, paths: list[Path]) -> RescoreTiming:
    """CPU seconds of a whole rescore, reading the files one at a time as `hallubench rescore` does."""
    reading = [0.0]
    errors: list[str] = []

    def stream() -> Iterator[tuple[Run, str]]:
        for path in paths:
            began = time.process_time()
            try:
                item = load_run(path, digest=False)  # as `hallubench rescore` reads them
            except RunFileError as exc:
                errors.append(str(exc))
                continue
            finally:
                reading[0] += time.process_time() - began
            yield item.run, str(item.path)

    started = time.process_time()
    report = rescore_runs(task, stream(), errors)
    return RescoreTiming(time.process_time() - started, reading[0], report)


def time_report(task: TaskFile, report: RescoreReport, cache: Path) -> float:
    """CPU seconds of the benchmark report `hallubench rescore` prints (baselines from the cache folder `cache`)."""
    from hallubench.tooling.hallumaze.report import rescore_report

    os.environ["HALLUBENCH_CACHE_DIR"] = str(cache)
    rows = {model: [row.local_row for row in summary.rows] for model, summary in report.models.items()}
    started = time.process_time()
    rescore_report(rows, task=task)
    return time.process_time() - started


def _line(label: str, seconds: float, note: str = "") -> None:
    print(f"  {label:<44}{seconds:6.2f}s{note}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="hallumaze/v3", help="the task file to rescore (a protocol or a path)")
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rows-per-file", type=int, default=240)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs, for every measurement")
    args = parser.parse_args()
    from hallubench.tooling.task_lookup import find_task

    task_path = find_task(args.task).require_built()
    task = read_task_file(task_path)
    compare = task_path.resolve() != V2.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        folder, v2_folder, cache = Path(tmp) / "runs", Path(tmp) / "v2", Path(tmp) / "cache"
        folder.mkdir()
        started = time.perf_counter()
        files = make_runs(folder, args.rows, args.rows_per_file, task_path)
        size = sum(p.stat().st_size for p in folder.iterdir())
        print(f"wrote {args.rows} {task.protocol_id} rows in {files} files ({size / 1e6:.1f} MB) "
              f"in {time.perf_counter() - started:.1f}s")  # fmt: skip
        paths = sorted(folder.glob("*.run.json"))
        v2_paths: list[Path] = []
        if compare:
            v2_folder.mkdir()
            make_runs(v2_folder, args.rows, args.rows_per_file, V2)
            v2_paths = sorted(v2_folder.glob("*.run.json"))
        v2_task = read_task_file(V2)
        # Alternated, so that a busy spell on a shared machine weighs on all; the best of each is kept.
        parse_times: list[float] = []
        rescores: list[RescoreTiming] = []
        v2_plays: list[float] = []
        for _ in range(args.repeat):
            parse_times.append(time_json_load(paths))
            rescores.append(time_rescore(task, paths))
            if compare:
                v2_plays.append(time_rescore(v2_task, v2_paths).report.protocol_cpu_s)
        parse_s = min(parse_times)
        best = min(rescores, key=lambda timing: timing.total_s)
        first_report = time_report(task, best.report, cache)  # plays the baselines and caches them
        cached_report = min(time_report(task, best.report, cache) for _ in range(args.repeat))

    report = best.report
    verified = sum(1 for row in report.rows if row.prompt_verified)
    agree = sum(1 for row in report.rows if row.score_agrees)
    protocol_s = report.protocol_cpu_s
    spine_s = best.total_s - protocol_s
    per_row_ms = protocol_s / args.rows * 1e3
    ratio = best.total_s / parse_s
    print(f"json.load only:  {parse_s:.2f}s CPU (best of {args.repeat})")
    print(
        f"rescore with {task.protocol_id}: {best.total_s:.2f}s CPU (best of {args.repeat}; "
        f"{verified}/{len(report.rows)} prompts verified, {agree} scores agree)"
    )
    _line("reading the run files:", best.reading_s)
    _line(f"{task.protocol_id}'s own play + aggregate:", protocol_s, f" ({per_row_ms:.3f} ms/row)")
    _line("rescore's own work besides reading:", spine_s - best.reading_s)
    _line("the hallumaze report, baselines cached:", cached_report)
    _line("the hallumaze report, baselines first played:", first_report, " (once per task file)")
    print(f"ratio rescore / json.load: {ratio:.2f}x (target <= 3x) -> {'OK' if ratio <= 3 else 'ABOVE TARGET'}")
    print(f"ratio without the scorer (reading, prompt checks, comparison) / json.load: {spine_s / parse_s:.2f}x")
    with_report = (best.total_s + cached_report) / parse_s
    print(f"ratio rescore + report (baselines cached) / json.load: {with_report:.2f}x")
    print(
        f"{task.protocol_id} play: {per_row_ms:.3f} ms/row (target <= 0.25) -> "
        f"{'OK' if per_row_ms <= 0.25 else 'ABOVE TARGET'}"
    )
    if v2_plays:
        v2_ms = min(v2_plays) / args.rows * 1e3
        print(f"the frozen hallumaze/v2 play, same conversations: {v2_ms:.3f} ms/row ({v2_ms / per_row_ms:.2f}x v3's)")
    return 0 if verified == len(report.rows) == args.rows and agree == args.rows else 1


if __name__ == "__main__":
    sys.exit(main())
