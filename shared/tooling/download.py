"""Fetch hosted runs of a task with the real kaggle client and say what arrived.

`KaggleApi.benchmarks_tasks_download_cli` (the function behind `kaggle b t download`) writes
`<out>/<task-slug>/<server version>/<model>/<run id>/` and skips run folders that already
exist unless forced. It prints progress but returns nothing, so afterwards we read the tree
back: per version and model, how many runs and how many `*.run.json` files, which is what
`hallubench rescore` consumes. A run folder without a run file is pointed out, because a
rescore would otherwise be silently missing that model's results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class DownloadedModel:
    """Run folders of one model under one server version of a task."""

    version: str
    model: str
    runs: int
    run_files: int
    runs_without_run_file: tuple[str, ...]


def download_runs(
    api: Any,
    task_slug: str,
    out_dir: Path,
    *,
    models: Sequence[str] = (),
    force: bool = False,
) -> None:
    """Download run outputs with `KaggleApi.benchmarks_tasks_download_cli`; errors propagate."""
    api.benchmarks_tasks_download_cli(
        task_slug,
        model=list(models) or None,
        output=str(out_dir),
        include_source=False,
        force=force,
    )


def task_download_dir(out_dir: Path, task_slug: str) -> Path:
    """Where the kaggle client puts one task's runs (`owner/task` keeps its owner folder)."""
    return out_dir.joinpath(*task_slug.split("/"))


def summarize_downloads(task_dir: Path) -> list[DownloadedModel]:
    """Read `<task_dir>/<version>/<model>/<run id>/` back, counting `*.run.json` per model."""
    summary: list[DownloadedModel] = []
    if not task_dir.is_dir():
        return summary
    for version_dir in sorted(p for p in task_dir.iterdir() if p.is_dir()):
        for model_dir in sorted(p for p in version_dir.iterdir() if p.is_dir()):
            run_dirs = sorted(p for p in model_dir.iterdir() if p.is_dir())
            counts = {run_dir.name: len(list(run_dir.rglob("*.run.json"))) for run_dir in run_dirs}
            summary.append(
                DownloadedModel(
                    version=version_dir.name,
                    model=model_dir.name,
                    runs=len(run_dirs),
                    run_files=sum(counts.values()),
                    runs_without_run_file=tuple(name for name, count in counts.items() if count == 0),
                )
            )
    return summary


def format_summary(summary: Sequence[DownloadedModel]) -> list[str]:
    """A small table of what is on disk, one line per (version, model)."""
    if not summary:
        return ["no runs on disk for this task"]
    model_width = max(len("model"), *(len(item.model) for item in summary))
    lines = [f"{'version':<8} {'model':<{model_width}} {'runs':>5} {'*.run.json':>10}"]
    for item in summary:
        line = f"{item.version:<8} {item.model:<{model_width}} {item.runs:>5} {item.run_files:>10}"
        if item.runs_without_run_file:
            line += f"  (no *.run.json in run {', '.join(item.runs_without_run_file)})"
        lines.append(line)
    return lines
