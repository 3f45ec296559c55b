"""Check that the code Kaggle holds for a task is the code of its frozen task file.

Where the hosted code comes from. kagglesdk 0.1.38's `GetBenchmarkTask` does not return the
pushed text (`definition.notebook` is an empty message there), so the only copy Kaggle hands
back is the one a run leaves: `DownloadBenchmarkTaskRunOutput` with `include_source` adds the
kernel session's `__notebook_source__.ipynb` and the executed `__notebook__.ipynb` to the run's
output zip. That is better evidence than the pushed text would be, since it is the code the run
actually executed; its price is that a version without a finished run has no copy to compare.
So: `GetBenchmarkTask` for the slug the task file pushes under (the current server version),
`ListBenchmarkTaskRuns` (each run names the task version it ran), and for every version one
finished run's output (completed before errored, newest first), both notebooks compared.

How it is compared. `hallubench push` (like `kaggle b t push`) turns the py:percent file into
ipynb with jupytext and records in `metadata.jupytext` which metadata the text keeps. Both
sides are turned back into py:percent with those same options: the frozen file's own notebook
(py -> ipynb -> py, which gives every file `hallubench build` writes back byte for byte) and
the hosted notebook (ipynb -> py). Outputs, execution counts, cell ids and the metadata Kaggle
adds drop out; every line of code, every cell boundary and cell type counts. A difference is
reported at its first line, numbered in the frozen file, with both lines.

The requests go through the real kaggle 2.2.5 client's own helpers (`_get_benchmark_task`,
`_fetch_task_runs`, `with_retry`, `download_file`: what `kaggle b t download` runs), so
model filters and retries behave as there. Errors from Kaggle propagate from `fetch_task`;
an error about one version's run is recorded on that version so the others still report.
"""

from __future__ import annotations

import json
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from .publish import convert_from_notebook

SOURCE_NOTEBOOKS = ("__notebook_source__.ipynb", "__notebook__.ipynb")
_RUN_STATE_PREFIX = "BENCHMARK_TASK_RUN_STATE_"
_CREATION_STATE_PREFIX = "BENCHMARK_TASK_VERSION_CREATION_STATE_"
_FINISHED = ("completed", "errored")  # the states `kaggle b t download` fetches, in the order preferred
_SHOWN_CHARACTERS = 120


class Outcome(Enum):
    SAME = "same code"
    DIFFERS = "differs"
    NOT_COMPARED = "nothing to compare"
    ERROR = "error"


@dataclass(frozen=True)
class FrozenCode:
    """The frozen task file after the round trip `push` makes, and the jupytext options of that trip."""

    path: Path
    text: str
    jupytext_options: dict[str, Any]

    @classmethod
    def from_notebook(cls, path: Path, notebook_text: str) -> FrozenCode:
        """From the ipynb `convert_to_notebook` made of the file (what `push` sends)."""
        options = dict(json.loads(notebook_text)["metadata"].get("jupytext", {}))
        return cls(path, convert_from_notebook(notebook_text, options), options)

    @property
    def same_as_file(self) -> bool:
        """Whether line numbers of the round trip are line numbers of the file itself."""
        return self.text == self.path.read_text(encoding="utf-8")


@dataclass(frozen=True)
class LineDifference:
    """The first line where two texts differ (1-based line and column; None: past the end)."""

    line: int
    column: int
    frozen: str | None
    hosted: str | None


@dataclass(frozen=True)
class HostedRun:
    run_id: int
    model: str
    state: str  # lower case without the enum prefix: completed, errored, running, queued, ...
    version: int


@dataclass(frozen=True)
class VersionCheck:
    """What one server version's hosted copy showed."""

    version: int
    outcome: Outcome
    detail: str
    run: HostedRun | None = None
    notebook: str | None = None  # the output file that differs
    difference: LineDifference | None = None


@dataclass(frozen=True)
class HostedTask:
    """`GetBenchmarkTask` and `ListBenchmarkTaskRuns` for the slug (`current_version` None: not on Kaggle)."""

    slug: str
    current_version: int | None
    creation_state: str
    creation_error: str
    runs: tuple[HostedRun, ...]


def _lines(text: str) -> list[str]:
    """Lines as an editor numbers them: split at "\n" only (`str.splitlines` also splits at form
    feeds and other separators Python source may hold in strings), each with its ending."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def first_difference(frozen: str, hosted: str) -> LineDifference | None:
    """Where `hosted` first departs from `frozen`; line endings count too."""
    frozen_lines = _lines(frozen)
    hosted_lines = _lines(hosted)
    for index in range(max(len(frozen_lines), len(hosted_lines))):
        ours = frozen_lines[index] if index < len(frozen_lines) else None
        theirs = hosted_lines[index] if index < len(hosted_lines) else None
        if ours == theirs:
            continue
        column = 1
        if ours is not None and theirs is not None:
            column = next((i + 1 for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), 0)
            column = column or min(len(ours), len(theirs)) + 1
        return LineDifference(index + 1, column, ours, theirs)
    return None


def show_line(line: str | None, column: int, other: str | None) -> str:
    """A line for a report: quoted, its terminator shown only when that is the difference,
    and a long line cut to a window around `column`."""
    if line is None:
        return "(no such line: the text ends before it)"
    body = line.rstrip("\r\n")
    if other is not None and body == other.rstrip("\r\n"):
        return repr(line)
    if len(body) <= _SHOWN_CHARACTERS:
        return repr(body)
    start = max(0, column - 1 - _SHOWN_CHARACTERS // 2)
    window = body[start : start + _SHOWN_CHARACTERS]
    return ("..." if start else "") + repr(window) + ("..." if start + _SHOWN_CHARACTERS < len(body) else "")


def _short(state: object, prefix: str) -> str:
    name = getattr(state, "name", str(state))
    return name.removeprefix(prefix).lower()


def fetch_task(api: Any, kaggle: Any, slug: str, models: Sequence[str] = ()) -> HostedTask:
    """The task's current server version and its runs (none when Kaggle has no such task).

    A run whose listing carries no version number is taken to be of the current version, as
    `kaggle b t download` files every run."""
    task = api._get_benchmark_task(slug, kaggle, allow_not_found=True)
    if task is None:
        return HostedTask(slug, None, "", "", ())
    current = int(task.slug.version_number) if task.slug is not None else 0
    listed = api._fetch_task_runs(kaggle, slug, list(models) or None)
    runs = tuple(
        HostedRun(
            run_id=int(run.id),
            model=str(run.model_version_slug),
            state=_short(run.state, _RUN_STATE_PREFIX),
            version=int(run.task_slug.version_number if run.task_slug is not None else 0) or current,
        )
        for run in listed
    )
    return HostedTask(
        slug,
        current,
        _short(task.creation_state, _CREATION_STATE_PREFIX),
        str(task.creation_error_message or ""),
        runs,
    )


def choose_run(runs: Sequence[HostedRun]) -> HostedRun | None:
    """The run whose source stands for its version: completed before errored, then the newest."""
    finished = [run for run in runs if run.state in _FINISHED]
    finished.sort(key=lambda run: (_FINISHED.index(run.state), -run.run_id))
    return finished[0] if finished else None


def download_source_notebooks(api: Any, kaggle: Any, run_id: int) -> dict[str, str]:
    """The notebooks in the run's output downloaded with `include_source` (name -> ipynb text)."""
    from kagglesdk.benchmarks.types.benchmark_tasks_api_service import (  # type: ignore[import-untyped]
        ApiDownloadBenchmarkTaskRunOutputRequest,
    )

    request = ApiDownloadBenchmarkTaskRunOutputRequest()
    request.run_id = run_id
    request.include_source = True
    client = kaggle.benchmarks.benchmark_tasks_api_client
    response = api.with_retry(client.download_benchmark_task_run_output)(request)
    with tempfile.TemporaryDirectory(prefix="hallubench-hosted-") as scratch:
        archive_path = Path(scratch) / f"run-{run_id}.zip"
        api.download_file(response, str(archive_path), kaggle.http_client(), quiet=True)
        with zipfile.ZipFile(archive_path) as archive:
            names = set(archive.namelist())
            return {name: archive.read(name).decode("utf-8") for name in SOURCE_NOTEBOOKS if name in names}


def _runs_summary(runs: Sequence[HostedRun]) -> str:
    if not runs:
        return "no runs"
    states = sorted({run.state for run in runs})
    return f"{len(runs)} run(s), none finished ({', '.join(states)})"


def compare_notebooks(frozen: FrozenCode, run: HostedRun, notebooks: dict[str, str]) -> VersionCheck:
    """The verdict on one run's source notebooks: each one present must carry the frozen code."""
    if not notebooks:
        return VersionCheck(
            run.version,
            Outcome.NOT_COMPARED,
            f"the output of run {run.run_id} ({run.model}) holds neither {' nor '.join(SOURCE_NOTEBOOKS)}",
            run,
        )
    for name in SOURCE_NOTEBOOKS:
        if name not in notebooks:
            continue
        try:
            hosted = convert_from_notebook(notebooks[name], frozen.jupytext_options)
        except Exception as error:  # jupytext and nbformat raise many types for a malformed notebook
            return VersionCheck(
                run.version, Outcome.ERROR, f"cannot read {name} of run {run.run_id} as a notebook: {error}", run
            )
        difference = first_difference(frozen.text, hosted)
        if difference is not None:
            return VersionCheck(
                run.version,
                Outcome.DIFFERS,
                f"{name} of run {run.run_id} ({run.model}, {run.state}) differs from the frozen file",
                run,
                name,
                difference,
            )
    compared = [name for name in SOURCE_NOTEBOOKS if name in notebooks]
    verb = "have" if len(compared) > 1 else "has"
    return VersionCheck(
        run.version,
        Outcome.SAME,
        f"{' and '.join(compared)} of run {run.run_id} ({run.model}, {run.state}) {verb} the frozen file's code",
        run,
    )


def describe_kaggle_error(error: BaseException) -> str:
    """One line for an error from the kaggle client: the HTTP status beside Kaggle's message."""
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    message = " ".join(str(error).split()) or type(error).__name__
    return f"HTTP {status}: {message}" if status is not None else message


def check_versions(api: Any, kaggle: Any, task: HostedTask, frozen: FrozenCode) -> list[VersionCheck]:
    """One check per server version known (the current one and every one a run names), newest first."""
    assert task.current_version is not None
    versions = sorted({task.current_version, *(run.version for run in task.runs)}, reverse=True)
    checks = []
    for version in versions:
        runs = [run for run in task.runs if run.version == version]
        run = choose_run(runs)
        if run is None:
            detail = f"{_runs_summary(runs)}, so Kaggle offers no copy of the source yet"
            if version == task.current_version and task.creation_state not in ("completed", "unspecified", ""):
                detail += f" (task creation {task.creation_state}"
                detail += f": {task.creation_error})" if task.creation_error else ")"
            checks.append(VersionCheck(version, Outcome.NOT_COMPARED, detail))
            continue
        try:
            notebooks = download_source_notebooks(api, kaggle, run.run_id)
        except (OSError, ValueError, zipfile.BadZipFile) as error:  # requests' errors are OSErrors
            detail = f"download of run {run.run_id}'s output failed: {describe_kaggle_error(error)}"
            checks.append(VersionCheck(version, Outcome.ERROR, detail, run))
            continue
        checks.append(compare_notebooks(frozen, run, notebooks))
    return checks
