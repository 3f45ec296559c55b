"""Reading the `*.run.json` files kaggle-benchmarks 0.6.2 writes, without importing kaggle-benchmarks.

Tooling, never embedded into a task file. The pieces:

* `load_runs(paths)` -> `(runs, errors)`: loose files or whole `kaggle benchmarks tasks
  download` trees; a broken file becomes a `RunFileError` beside the good runs, never an abort.
  `collect_run_files(paths)` + `iter_loaded(files)` do the same one file at a time.
* the typed model (`Run`, `Conversation`, `Request`, `Message`, results, assertions), with
  proto3's dropped defaults put back (`numericResult: {}` is 0.0) and cached subruns flagged;
* `calls(conversation)`: the exact message list of every model call, rebuilt from requests
  1..k (kaggle-benchmarks reference §2.5), plus `unanswered(conversation)` for an errored run's
  last prompt;
* `iter_runs(run)`: the run and all its subruns, depth-first.

Text: `Message.text` is the stored text, exact for plain `llm.prompt(str)` prompts and replies;
`Message.decoded_text` also undoes kbench's double encoding of structured replies (best effort).
"""

from __future__ import annotations

from collections.abc import Iterator

from .files import (
    COMPANION_SUFFIXES,
    RUN_SUFFIX,
    DownloadLayout,
    LoadedRun,
    RunFileError,
    collect_run_files,
    download_layout,
    find_run_files,
    iter_loaded,
    load_run,
    load_runs,
    load_task_file,
)
from .model import (
    Assertion,
    AssertionStatus,
    Attachment,
    BooleanResult,
    Conversation,
    DictResult,
    JsonValue,
    Message,
    NumericResult,
    Request,
    RequestMetrics,
    RequestRef,
    Role,
    Run,
    RunResult,
    RunState,
    TaskVersion,
)
from .parse import RunFormatError, parse_run, parse_task_version
from .prompts import ModelCall, UnansweredMessages, calls, unanswered
from .text import decode_payload_text


def iter_runs(run: Run) -> Iterator[Run]:
    """`run`, then each subrun and its subruns, depth-first in file (completion) order."""
    yield run
    for subrun in run.subruns:
        yield from iter_runs(subrun)


__all__ = [
    "COMPANION_SUFFIXES",
    "RUN_SUFFIX",
    "Assertion",
    "AssertionStatus",
    "Attachment",
    "BooleanResult",
    "Conversation",
    "DictResult",
    "DownloadLayout",
    "JsonValue",
    "LoadedRun",
    "Message",
    "ModelCall",
    "NumericResult",
    "Request",
    "RequestMetrics",
    "RequestRef",
    "Role",
    "Run",
    "RunFileError",
    "RunFormatError",
    "RunResult",
    "RunState",
    "TaskVersion",
    "UnansweredMessages",
    "calls",
    "collect_run_files",
    "decode_payload_text",
    "download_layout",
    "find_run_files",
    "iter_loaded",
    "iter_runs",
    "load_run",
    "load_runs",
    "load_task_file",
    "parse_run",
    "parse_task_version",
    "unanswered",
]
