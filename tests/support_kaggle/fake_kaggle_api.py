"""A loopback fake of the Kaggle API, enough for `kaggle b t push` and `kaggle b t download`.

It speaks the wire format kagglesdk 0.1.38 uses: `POST /api/v1/<service>/<Method>` with a
camelCase JSON body (non-production endpoints carry the `/api` prefix), JSON answers, errors
as `{"code": N, "message": ...}` with that HTTP status. Run outputs are served the way
Kaggle serves files: `DownloadBenchmarkTaskRunOutput` answers with a redirect to a blob URL,
which the client follows; with `includeSource` the zip also holds the run's notebook as
`__notebook__.ipynb` (executed) and `__notebook_source__.ipynb`, the notebook text that
`CreateBenchmarkTask` received for the run's task version, dressed in the metadata a Kaggle
kernel session adds. kagglesdk's `TEST` environment (`KAGGLE_API_ENVIRONMENT=TEST`)
points at `http://localhost:7777`, so the fake listens on 127.0.0.1:7777.

Every request is recorded (method, path, body, Authorization header), so tests can assert on
exactly what the real client sent.
"""

from __future__ import annotations

import io
import json
import threading
import zipfile
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from support.loopback import LoopbackServer

TEST_PORT = 7777
TASKS_SERVICE = "benchmarks.BenchmarkTasksApiService"
OAUTH_SERVICE = "security.OAuthService"
COMPLETED = "BENCHMARK_TASK_VERSION_CREATION_STATE_COMPLETED"
ERRORED = "BENCHMARK_TASK_VERSION_CREATION_STATE_ERRORED"
RUN_COMPLETED = "BENCHMARK_TASK_RUN_STATE_COMPLETED"
RUN_ERRORED = "BENCHMARK_TASK_RUN_STATE_ERRORED"
RUN_RUNNING = "BENCHMARK_TASK_RUN_STATE_RUNNING"


@dataclass
class RecordedCall:
    """One request as the fake received it."""

    method: str  # `CreateBenchmarkTask`, or `GET /blobs/...` for blob downloads
    path: str
    body: dict[str, Any]
    authorization: str | None


@dataclass
class FakeTask:
    slug: str
    version: int
    creation_state: str = COMPLETED
    error: str = ""
    datasets: list[str] = field(default_factory=list)


@dataclass
class FakeRun:
    run_id: int
    task_slug: str
    model: str
    state: str
    output_zip: bytes
    version: int = 1  # the task version the run ran
    source_notebook: str | None = None  # ipynb text the run ran; None: the one pushed for its version


def make_zip(files: dict[str, bytes]) -> bytes:
    """A zip archive holding `files` (name -> bytes), like a run's output download."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(files.items()):
            archive.writestr(name, data)
    return buffer.getvalue()


class FakeKaggleApi:
    """State of the fake Kaggle (tasks, runs, recorded calls) and its HTTP server."""

    def __init__(
        self,
        *,
        token: str = "dummy-kaggle-token",
        username: str = "fake-user",
        port: int = TEST_PORT,
        runs_page_size: int = 2,
    ) -> None:
        self.token = token
        self.username = username
        self.port = port
        self.runs_page_size = runs_page_size
        self.creation_state_after_push = COMPLETED
        self.creation_error_after_push = ""
        self.tasks: dict[str, FakeTask] = {}
        self.runs: list[FakeRun] = []
        self.pushed_notebooks: dict[tuple[str, int], str] = {}  # (slug, version) -> ipynb text pushed
        self.failures: dict[str, tuple[int, str]] = {}  # method -> (HTTP status, message) to answer with
        self.calls: list[RecordedCall] = []
        self._lock = threading.Lock()
        self._http: LoopbackServer | None = None

    # -- state that tests set up --------------------------------------------------------

    def add_task(self, slug: str, version: int = 1, datasets: list[str] | None = None) -> FakeTask:
        task = FakeTask(slug, version, datasets=list(datasets or []))
        self.tasks[slug] = task
        return task

    def add_run(
        self,
        task_slug: str,
        run_id: int,
        model: str,
        state: str,
        files: dict[str, bytes],
        *,
        version: int | None = None,
    ) -> FakeRun:
        """A run of `version` (default: the task's current version) whose output zip holds `files`."""
        if version is None:
            version = self.tasks[task_slug].version if task_slug in self.tasks else 1
        run = FakeRun(run_id, task_slug, model, state, make_zip(files), version)
        self.runs.append(run)
        return run

    def calls_to(self, method: str) -> list[RecordedCall]:
        with self._lock:
            return [call for call in self.calls if call.method == method]

    # -- server lifecycle ---------------------------------------------------------------

    def start(self) -> FakeKaggleApi:
        """Listen on 127.0.0.1:port (0: any free port); raises OSError when the port is taken."""
        handler = type("Handler", (_Handler,), {"fake": self})
        self._http = LoopbackServer(handler, port=self.port, name="fake-kaggle-api").start()
        self.port = self._http.port  # the real one when 0 asked for any free port
        return self

    def stop(self) -> None:
        if self._http is not None:
            self._http.stop()

    def __enter__(self) -> FakeKaggleApi:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the API ------------------------------------------------------------------------

    def record(self, call: RecordedCall) -> None:
        with self._lock:
            self.calls.append(call)

    def answer(self, service: str, method: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """(status, JSON body) for one API call."""
        if (service, method) == (OAUTH_SERVICE, "IntrospectToken"):
            active = body.get("token") == self.token
            return 200, {"active": True, "username": self.username} if active else {"active": False}
        if service != TASKS_SERVICE:
            return 404, {"code": 404, "message": f"the fake does not serve {service}"}
        handler = getattr(self, f"_{method}", None)
        if handler is None:
            return 404, {"code": 404, "message": f"the fake does not serve {service}/{method}"}
        result: tuple[int, dict[str, Any]] = handler(body)
        return result

    def _task_json(self, task: FakeTask) -> dict[str, Any]:
        data: dict[str, Any] = {
            "slug": {"ownerSlug": self.username, "taskSlug": task.slug, "versionNumber": task.version},
            "url": f"/benchmarks/tasks/{self.username}/{task.slug}/{task.version}",
            "creationState": task.creation_state,
        }
        if task.error:
            data["creationErrorMessage"] = task.error
        if task.datasets:
            data["options"] = {"datasetDataSources": task.datasets}
        return data

    def _not_found(self, slug: str) -> tuple[int, dict[str, Any]]:
        return 404, {"code": 404, "message": f"benchmark task {slug!r} not found"}

    def _GetBenchmarkTask(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        slug = body.get("slug", {}).get("taskSlug", "")
        task = self.tasks.get(slug)
        return (200, self._task_json(task)) if task else self._not_found(slug)

    def _CreateBenchmarkTask(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        slug = body.get("slug", "")
        datasets = list(body.get("options", {}).get("datasetDataSources", []))
        previous = self.tasks.get(slug)
        task = self.add_task(slug, previous.version + 1 if previous else 1, datasets)
        self.pushed_notebooks[(slug, task.version)] = str(body.get("text", ""))
        task.creation_state = self.creation_state_after_push
        task.error = self.creation_error_after_push
        response = self._task_json(task)
        response["creationState"] = "BENCHMARK_TASK_VERSION_CREATION_STATE_QUEUED"
        return 200, response

    def _ListBenchmarkTaskRuns(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        slug = body.get("taskSlug", {}).get("taskSlug", "")
        if slug not in self.tasks:
            return self._not_found(slug)
        models = set(body.get("modelVersionSlugs", []))
        runs = [r for r in self.runs if r.task_slug == slug and (not models or r.model in models)]
        start = int(body.get("pageToken") or 0)
        page = runs[start : start + self.runs_page_size]
        data: dict[str, Any] = {
            "runs": [
                {
                    "taskSlug": {"taskSlug": slug, "versionNumber": run.version},
                    "modelVersionSlug": run.model,
                    "id": run.run_id,
                    "state": run.state,
                }
                for run in page
            ]
        }
        if start + self.runs_page_size < len(runs):
            data["nextPageToken"] = str(start + self.runs_page_size)
        return 200, data

    def blob_for(self, run_id: int, include_source: bool = False) -> bytes | None:
        """The run's output zip; with `include_source`, plus its notebook as a kernel session saves it."""
        run = next((run for run in self.runs if run.run_id == run_id), None)
        if run is None:
            return None
        notebook = run.source_notebook or self.pushed_notebooks.get((run.task_slug, run.version))
        if not include_source or notebook is None or not zipfile.is_zipfile(io.BytesIO(run.output_zip)):
            return run.output_zip  # a test's corrupt output stays corrupt
        with zipfile.ZipFile(io.BytesIO(run.output_zip)) as archive:
            files = {name: archive.read(name) for name in archive.namelist()}
        files["__notebook_source__.ipynb"] = as_kernel_session_notebook(notebook, executed=False)
        files["__notebook__.ipynb"] = as_kernel_session_notebook(notebook, executed=True)
        return make_zip(files)


def as_kernel_session_notebook(text: str, *, executed: bool) -> bytes:
    """The notebook as a Kaggle kernel session writes it back: Kaggle's notebook and cell
    metadata added, and for the executed copy outputs and execution counts. None of it is code,
    so a check of the hosted copy must not depend on it."""
    notebook = json.loads(text)
    notebook["metadata"]["kaggle"] = {"accelerator": "none", "dataSources": [], "isInternetEnabled": True}
    notebook["metadata"]["language_info"] = {"name": "python", "version": "3.11.13"}
    for number, cell in enumerate(notebook["cells"], start=1):
        cell["metadata"].update({"_uuid": f"cell-{number}", "trusted": True})
        if executed and cell["cell_type"] == "code":
            cell["metadata"]["execution"] = {"iopub.status.idle": "2026-01-01T00:00:00.000000Z"}
            cell["execution_count"] = number
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["ran\n"]}]
    return json.dumps(notebook, indent=1).encode("utf-8")


class _Handler(BaseHTTPRequestHandler):
    fake: FakeKaggleApi

    def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
        return

    def _send(self, status: int, payload: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _send_json(self, status: int, data: dict[str, Any]) -> None:
        self._send(status, json.dumps(data).encode("utf-8"), "application/json")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsable": raw.decode("utf-8", "replace")}
        parts = self.path.split("/")
        # /api/v1/<service>/<Method>
        method = parts[4] if len(parts) == 5 and parts[1:3] == ["api", "v1"] else f"POST {self.path}"
        authorization = self.headers.get("Authorization")
        self.fake.record(RecordedCall(method, self.path, body, authorization))
        if method.startswith("POST "):
            self._send_json(404, {"code": 404, "message": f"no route {self.path}"})
            return
        if authorization != f"Bearer {self.fake.token}":
            self._send_json(401, {"code": 401, "message": "unauthenticated"})
            return
        if method in self.fake.failures:
            status, message = self.fake.failures[method]
            self._send_json(status, {"code": status, "message": message})
            return
        if method == "DownloadBenchmarkTaskRunOutput":
            run_id = int(body.get("runId", 0))
            if self.fake.blob_for(run_id) is None:
                self._send_json(404, {"code": 404, "message": f"run {run_id} has no output"})
                return
            suffix = "-with-source" if body.get("includeSource") else ""
            self._send(302, b"", "text/plain", {"Location": f"/blobs/run-{run_id}{suffix}.zip"})
            return
        status, data = self.fake.answer(parts[3], method, body)
        self._send_json(status, data)

    def do_GET(self) -> None:
        self.fake.record(RecordedCall(f"GET {self.path}", self.path, {}, self.headers.get("Authorization")))
        name = self.path.rsplit("/", 1)[-1]
        if self.path.startswith("/blobs/run-") and name.endswith(".zip"):
            run, with_source = name[len("run-") : -len(".zip")], name.endswith("-with-source.zip")
            blob = self.fake.blob_for(int(run.removesuffix("-with-source")), include_source=with_source)
            if blob is not None:
                self._send(200, blob, "application/zip")
                return
        self._send_json(404, {"code": 404, "message": f"no blob at {self.path}"})
