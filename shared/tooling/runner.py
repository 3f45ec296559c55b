"""Run a generated task file under the real kaggle-benchmarks library, the way Kaggle runs it.

Why a subprocess: kaggle-benchmarks reads its configuration from the environment (and a
`.env` file) at import time, writes task/run files into the current directory, and takes
seconds to import. So the task file runs in its own Python process with `cwd = out_dir`, a
controlled environment, and the model under test injected as `kbench.llm` before the task
file executes. The hallubench process never imports kaggle_benchmarks.

Injection (`child_main`, executed in the child): build
`kaggle_benchmarks.actors.llms.OpenAI(openai.OpenAI(base_url, api_key), model_name,
support_structured_outputs=False, support_temperature=True)`, assign it to
`kaggle_benchmarks.llm`, then `runpy.run_path(task_file, run_name="__main__")`.
With `ModelProxy()` nothing is injected: kaggle-benchmarks configures `kbench.llm` itself from
`MODEL_PROXY_URL` / `MODEL_PROXY_API_KEY` / `LLM_DEFAULT` (and any `.env`), exactly as hosted.

Task-file conventions relied on (the generator writes them): env `HALLUBENCH_LIMIT` caps the
number of cases; when env `HALLUBENCH_PROGRESS_FILE` is set, one JSON line is appended per
finished row: `{"done": i, "total": n, "case_id": "..."}`. The runner tails that file to draw
a progress bar on stderr.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from ..errors import HallubenchError
from .jail.client import run_in_jail
from .jail.policy import JailPolicy

KAGGLE_INSTALL_HINT = "pip install 'hallubench[kaggle]'"
LOG_NAME = "run.log"
PROGRESS_NAME = "progress.jsonl"
COMPLETED = "BENCHMARK_TASK_RUN_STATE_COMPLETED"

# Environment handed from the runner to `child_main`.
ENV_TASK_FILE = "HALLUBENCH_TASK_FILE"
ENV_BASE_URL = "HALLUBENCH_MODEL_BASE_URL"
ENV_MODEL_NAME = "HALLUBENCH_MODEL_NAME"
ENV_API_KEY = "HALLUBENCH_MODEL_API_KEY"  # passed by environment, never on a command line
ENV_LIMIT = "HALLUBENCH_LIMIT"
ENV_CASES = "HALLUBENCH_CASES"
ENV_PROGRESS = "HALLUBENCH_PROGRESS_FILE"
ENV_RUN_OPTIONS = "HALLUBENCH_RUN_OPTIONS"  # JSON object: the run options a local run sets (ProtocolSpec.run_options)

# Variables that would make kaggle-benchmarks configure its own model, or stop it writing files.
_PROXY_VARIABLES = ("LLM_DEFAULT", "LLM_DEFAULT_JUDGE", "LLM_DEFAULT_EVAL", "LLMS_AVAILABLE")
_CHILD_CODE = "from hallubench.tooling.runner import child_main; child_main()"


class RunnerError(HallubenchError):
    """The task could not be started (missing library, task file or endpoint)."""


@dataclass(frozen=True)
class ModelEndpoint:
    """An OpenAI-compatible endpoint: `base_url` ends in `/v1` (or whatever precedes `/chat/completions`)."""

    base_url: str
    model_name: str
    api_key: str = field(default="none", repr=False)

    @property
    def slug(self) -> str:
        return model_slug(self.model_name)


@dataclass(frozen=True)
class ModelProxy:
    """Let kaggle-benchmarks configure `kbench.llm` from `MODEL_PROXY_*` / `LLM_DEFAULT` (and `.env`)."""

    @property
    def slug(self) -> str:
        return model_slug(os.environ.get("LLM_DEFAULT", "model-proxy"))


Model = ModelEndpoint | ModelProxy


@dataclass(frozen=True)
class RunFile:
    """The few fields of a `*.run.json` the runner reports; `hallubench.kaggle_runs` reads the rest."""

    path: Path
    task_name: str
    state: str
    subruns: int

    @property
    def completed(self) -> bool:
        return self.state == COMPLETED


@dataclass(frozen=True)
class RunOutcome:
    """What one run produced. `ok` means the process succeeded and every stored task completed."""

    task_file: Path
    out_dir: Path
    log_path: Path
    returncode: int
    seconds: float
    run_files: tuple[RunFile, ...]
    task_files: tuple[Path, ...]
    timed_out: bool = False
    jail: dict[str, Any] | None = None  # the jail's layers, when the task file ran in one

    @property
    def stored_runs(self) -> tuple[RunFile, ...]:
        """Run files of stored tasks (those with a `*.task.json`), not of row sub-tasks."""
        names = set()
        for path in self.task_files:
            try:
                names.add(json.loads(path.read_text("utf-8")).get("name"))
            except (OSError, ValueError):
                continue
        return tuple(run for run in self.run_files if run.task_name in names)

    @property
    def problem(self) -> str | None:
        """Why the run is not ok, in one line; None when it is."""
        if self.timed_out:
            return "the task file ran past its time limit and was stopped"
        if self.returncode != 0:
            return f"the task file exited with code {self.returncode}"
        stored = self.stored_runs
        if not stored:
            return "the task file finished but wrote no run file of a stored task"
        unfinished = [f"{run.path.name}: {run.state}" for run in stored if not run.completed]
        if unfinished:
            return "stored task run not completed: " + "; ".join(unfinished)
        return None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text("utf-8", "replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


def model_slug(name: str) -> str:
    """A file-name-safe form of a model name (`stub/model-a` -> `stub_model-a`)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "model"


def default_out_dir(task_file: Path, model: Model, root: Path = Path("runs")) -> Path:
    """`runs/<task stem>/<model slug>/<UTC timestamp>`, unique even for two runs in one second."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    base = root / task_file.stem / model.slug / stamp
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{stamp}-{n}")
    return candidate


def kaggle_benchmarks_installed(python: str = sys.executable) -> bool:
    """Whether the child interpreter can import kaggle_benchmarks (checked without importing it here)."""
    if python == sys.executable:
        import importlib.util

        return importlib.util.find_spec("kaggle_benchmarks") is not None
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('kaggle_benchmarks') is None)"
    return subprocess.run([python, "-c", probe], check=False).returncode == 0


def check_endpoint(endpoint: ModelEndpoint, timeout: float = 5.0) -> int:
    """GET `<base_url>/models` so an unreachable endpoint fails in seconds, not per row.

    Any HTTP answer except 401/403 counts as reachable (some servers have no `/models`);
    returns the status code.
    """
    url = endpoint.base_url.rstrip("/") + "/models"
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {endpoint.api_key}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        if error.code in (401, 403):
            raise RunnerError(f"the endpoint {endpoint.base_url} rejected the API key (HTTP {error.code})") from None
        return int(error.code)
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise RunnerError(
            f"the model endpoint {endpoint.base_url} is unreachable ({reason}); is the server running?"
        ) from None


def child_environment(
    model: Model,
    *,
    task_file: Path,
    limit: int | None,
    progress_file: Path,
    base: Mapping[str, str],
    cases: str | None = None,
    run_options: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The child's environment: the caller's, minus anything that would redirect the model or the files."""
    env = dict(base)
    for name in (ENV_BASE_URL, ENV_MODEL_NAME, ENV_API_KEY, ENV_LIMIT, ENV_CASES, ENV_RUN_OPTIONS, "BENCHMARK_MODE"):
        env.pop(name, None)  # BENCHMARK_MODE=TESTING/DOC would write no files
    if isinstance(model, ModelEndpoint):
        for name in list(env):
            if name.startswith("MODEL_PROXY_") or name in _PROXY_VARIABLES:
                del env[name]
        # kaggle-benchmarks loads a `.env` with override=True at import; it could re-add them.
        env["PYTHON_DOTENV_DISABLED"] = "1"
        env[ENV_BASE_URL] = model.base_url
        env[ENV_MODEL_NAME] = model.model_name
        env[ENV_API_KEY] = model.api_key
    env[ENV_TASK_FILE] = str(task_file)
    env[ENV_PROGRESS] = str(progress_file)
    if limit is not None:
        env[ENV_LIMIT] = str(limit)
    if cases:
        env[ENV_CASES] = cases
    if run_options:
        env[ENV_RUN_OPTIONS] = json.dumps(dict(run_options), sort_keys=True)
    env["BENCHMARK_CONSOLE_QUIET"] = "true"  # plain transcript into run.log, no live console UI
    env["BENCHMARK_CONSOLE_COLOR"] = "false"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def run_task_file(
    task_file: Path | str,
    *,
    model: Model,
    out_dir: Path | str,
    limit: int | None = None,
    cases: str | None = None,
    run_options: Mapping[str, str] | None = None,
    progress: bool = True,
    timeout: float | None = None,
    python: str = sys.executable,
    stream: TextIO | None = None,
    jail: JailPolicy | None = None,
    readable: tuple[str, ...] = (),
) -> RunOutcome:
    """Run `task_file` against `model`, writing kbench's task/run files and `run.log` into `out_dir`.

    Raises `RunnerError` before starting anything when kaggle-benchmarks is missing, the task
    file does not exist, `out_dir` already holds run files, or the endpoint is unreachable.
    A task file that fails is not an exception: see `RunOutcome.ok` / `.problem`.
    `jail`: run the task file in the jail (its protocol runs model-written code): `out_dir` is its
    only writable folder, the task file and `readable` its only extra readable paths, and TCP goes
    only to the model's port. Raises JailRefused when a layer is missing and not accepted.
    """
    task_path = Path(task_file).resolve()
    out_path = Path(out_dir).resolve()
    if not task_path.is_file():
        raise RunnerError(f"task file not found: {task_file}")
    if limit is not None and limit < 1:
        raise RunnerError(f"--limit must be at least 1, got {limit}")
    if not kaggle_benchmarks_installed(python):
        raise RunnerError(f"kaggle-benchmarks is not installed; install it with: {KAGGLE_INSTALL_HINT}")
    if out_path.exists() and any(out_path.glob("*.run.json")):
        raise RunnerError(f"{out_path} already holds run files; choose a new output directory")
    if isinstance(model, ModelEndpoint):
        check_endpoint(model)
    out_path.mkdir(parents=True, exist_ok=True)
    log_path = out_path / LOG_NAME
    progress_path = out_path / PROGRESS_NAME
    progress_path.write_text("", "utf-8")
    env = child_environment(
        model,
        task_file=task_path,
        limit=limit,
        progress_file=progress_path,
        base=os.environ,
        cases=cases,
        run_options=run_options,
    )
    display = ProgressDisplay(progress_path, stream or sys.stderr) if progress else None
    started = time.monotonic()
    timed_out = False
    layers: dict[str, Any] | None = None
    with log_path.open("wb") as log:
        if jail is not None:
            policy = jailed_run_policy(jail, model, out_path, (str(task_path), *readable))
            owner = _lend_to_jail(out_path)
            process, layers = run_in_jail(
                policy, [python, "-c", _CHILD_CODE], cwd=str(out_path), environment=env, stdout=log
            )
        else:
            owner = None
            process = subprocess.Popen(
                [python, "-c", _CHILD_CODE],
                cwd=out_path,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        if display is not None:
            display.start()
        try:
            returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            process.kill()
            returncode = process.wait()
        except BaseException:  # Ctrl-C: never leave the child running
            process.kill()
            process.wait()
            raise
        finally:
            if display is not None:
                display.stop()
            if owner is not None:
                _take_back(out_path, owner)
    seconds = time.monotonic() - started
    return RunOutcome(
        task_file=task_path,
        out_dir=out_path,
        log_path=log_path,
        returncode=returncode,
        seconds=seconds,
        run_files=tuple(_read_run_file(path) for path in sorted(out_path.glob("*.run.json"))),
        task_files=tuple(sorted(out_path.glob("*.task.json"))),
        timed_out=timed_out,
        jail=layers,
    )


def jailed_run_policy(base: JailPolicy, model: Model, out_path: Path, readable: tuple[str, ...]) -> JailPolicy:
    """The jail of a run: the host's network (TCP to the model's port only), the output folder writable."""
    url = model.base_url if isinstance(model, ModelEndpoint) else os.environ.get("MODEL_PROXY_URL", "")
    parsed = urllib.parse.urlsplit(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    return dataclasses.replace(
        base,
        network="host",
        tcp_connect_ports=(port,),
        writable=(str(out_path),),
        readable=tuple(path for path in (*base.readable, *readable) if os.path.exists(path)),
    )


def _lend_to_jail(folder: Path) -> tuple[int, int] | None:
    """As root, the jail's user must write the output folder: lend it for the run (see `_take_back`)."""
    from .jail.probe import probe

    available = probe()
    if not available.root or available.jail_ids is None:
        return None
    info = folder.stat()
    for path in (folder, *folder.iterdir()):
        os.lchown(path, *available.jail_ids)
    return info.st_uid, info.st_gid


def _take_back(folder: Path, owner: tuple[int, int]) -> None:
    """Everything in the output folder back to its owner (links are not followed)."""
    for path in (folder, *folder.rglob("*")):
        with contextlib.suppress(OSError):
            os.lchown(path, *owner)


def _read_run_file(path: Path) -> RunFile:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as error:
        return RunFile(path=path, task_name="", state=f"UNREADABLE ({error})", subruns=0)
    return RunFile(
        path=path,
        task_name=str(data.get("taskVersion", {}).get("name", "")),
        state=str(data.get("state", "")),
        subruns=len(data.get("subruns", [])),
    )


class ProgressDisplay:
    """Tails the progress file in a thread; `\\r[#####.....] 3/10 case-id  12.3s` on a TTY, lines otherwise."""

    WIDTH = 20

    def __init__(self, path: Path, stream: TextIO, interval: float = 0.2) -> None:
        self.path = path
        self.stream = stream
        self.interval = interval
        self.tty = stream.isatty()
        self._offset = 0
        self._pending = b""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="progress", daemon=True)
        self._started = time.monotonic()
        self._drew = False

    def start(self) -> None:
        self._started = time.monotonic()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.poll()
        if self.tty and self._drew:
            self.stream.write("\n")
            self.stream.flush()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.poll()

    def poll(self) -> None:
        try:
            with self.path.open("rb") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
        except OSError:
            return
        self._offset += len(chunk)
        data = self._pending + chunk
        *lines, self._pending = data.split(b"\n")
        for raw in lines:
            try:
                event = json.loads(raw)
                done, total, case_id = int(event["done"]), int(event["total"]), str(event.get("case_id", ""))
            except (ValueError, KeyError, TypeError):
                continue  # a malformed line must not kill the display
            self._draw(done, total, case_id)

    def _draw(self, done: int, total: int, case_id: str) -> None:
        elapsed = time.monotonic() - self._started
        if self.tty:
            filled = self.WIDTH * done // total if total > 0 else 0
            bar = "#" * filled + "." * (self.WIDTH - filled)
            self.stream.write(f"\r[{bar}] {done}/{total} {case_id}  {elapsed:.1f}s\x1b[K")
        else:
            self.stream.write(f"{done}/{total} {case_id}  {elapsed:.1f}s\n")
        self.stream.flush()
        self._drew = True


def child_main() -> None:
    """Runs inside the child process: inject the model as `kbench.llm`, then run the task file."""
    import runpy

    task_file = os.environ[ENV_TASK_FILE]
    base_url = os.environ.get(ENV_BASE_URL)
    if base_url is not None:
        api_key = os.environ.pop(ENV_API_KEY, "none")  # the task file has no business seeing it
        import kaggle_benchmarks
        import openai
        from kaggle_benchmarks.actors.llms import OpenAI

        client = openai.OpenAI(base_url=base_url, api_key=api_key)
        llm = OpenAI(
            client,
            os.environ[ENV_MODEL_NAME],
            support_structured_outputs=False,
            support_temperature=True,
        )
        llm.stream_responses = False  # as kaggle-benchmarks' ModelProxy sets it
        kaggle_benchmarks.llm = llm
    sys.argv = [task_file]
    runpy.run_path(task_file, run_name="__main__")
