"""Typed model of a kaggle-benchmarks 0.6.2 run file (`BenchmarkTaskRun` as proto3 JSON).

Field meanings follow the proto; the comments say what kbench actually writes, because proto3
JSON drops default values and a reader has to put them back (a missing `value` is 0.0, a
missing role is UNSPECIFIED, a missing `conversations` list marks a run restored from cache).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TypeAlias

from .text import decode_payload_text

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None

_CHAT_ID_SUFFIX = re.compile(r"-[0-9a-f]{8}$")


class Role(StrEnum):
    """Who wrote a message, named as kbench names it before serialising (`CONTENT_ROLE_*`)."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    DEVELOPER = "developer"
    TOOL = "tool"  # CONTENT_ROLE_CONTEXT; Model Proxy sends it to the model as "system"
    UNSPECIFIED = "unspecified"


class RunState(StrEnum):
    """`BENCHMARK_TASK_RUN_STATE_*` without the prefix."""

    UNSPECIFIED = "UNSPECIFIED"
    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    ERRORED = "ERRORED"


class AssertionStatus(StrEnum):
    """`BENCHMARK_TASK_RUN_ASSERTION_STATUS_*` without the prefix (kbench writes only PASSED/FAILED)."""

    UNSPECIFIED = "UNSPECIFIED"
    PASSED = "PASSED"
    FAILED = "FAILED"
    ERRORED = "ERRORED"


@dataclass(frozen=True)
class Attachment:
    """A non-text part: `inlineData` (base64 `data`) or `fileData` (`file_uri`)."""

    kind: str  # "inline_data" | "file_data"
    mime_type: str | None = None
    data: str | None = None
    file_uri: str | None = None
    display_name: str | None = None


@dataclass(frozen=True)
class Message:
    """One `contents[]` entry.

    `text` is the concatenation of the text parts exactly as stored (after JSON string
    decoding, so `\\u` escapes are already resolved). For plain `llm.prompt(str)` prompts and
    replies this IS the text sent or received. kbench writes one part per message, so nothing is
    lost by joining. `Message(Role.USER, "hi")` compares equal to a loaded user message whose
    text is "hi" and that has no attachments: the sender name is informational only.
    """

    role: Role
    text: str
    sender_name: str = field(default="", compare=False)
    attachments: list[Attachment] = field(default_factory=list)

    @property
    def decoded_text(self) -> str:
        """Best-effort undo of kbench's double encoding of non-str payloads (see `text.py`)."""
        return decode_payload_text(self.text)


@dataclass(frozen=True)
class RequestMetrics:
    """`ModelUsageMetrics`. Plain proto fields read 0 when absent; optional ones read None."""

    input_tokens: int = 0
    output_tokens: int = 0
    duration_ms: int = 0
    thinking_tokens: int | None = None
    input_tokens_cost_nanodollars: int | None = None
    output_tokens_cost_nanodollars: int | None = None
    total_backend_latency_ms: int | None = None


@dataclass(frozen=True)
class Request:
    """Messages added since the previous reply, closed by an assistant reply (or trailing, unanswered)."""

    id: str
    contents: list[Message]
    metrics: RequestMetrics | None  # None: the key is absent, as on a trailing unanswered request
    reasoning_traces: str | None = None

    @property
    def answered(self) -> bool:
        return bool(self.contents) and self.contents[-1].role is Role.ASSISTANT


@dataclass(frozen=True)
class Conversation:
    """One chat (`kbench.chats.new`/fork chats come as further entries, depth-first after their parent)."""

    id: str
    requests: list[Request]
    metrics: RequestMetrics | None

    @property
    def name(self) -> str:
        """The chat's name: the id without kbench's random `-<8 hex>` suffix."""
        return _CHAT_ID_SUFFIX.sub("", self.id)


@dataclass(frozen=True)
class BooleanResult:
    value: bool
    type: str = "AGGREGATED"


@dataclass(frozen=True)
class NumericResult:
    """`numericResult`: a missing `value` is 0.0 (proto3 drops zeros); the interval is optional.

    kbench writes a `(value, radius)` tuple result (MetricWithCI, PassCount `(passed, total)`)
    as value + `confidence_interval`, so for PassCount the "interval" holds the total.
    """

    value: float
    confidence_interval: float | None = None
    type: str = "AGGREGATED"


@dataclass(frozen=True)
class DictResult:
    """`dictResult` (a protobuf Struct): every number is a float, `1` reads back as `1.0`."""

    value: dict[str, JsonValue]
    type: str = "AGGREGATED"


RunResult: TypeAlias = BooleanResult | NumericResult | DictResult


@dataclass(frozen=True)
class RequestRef:
    conversation_id: str
    request_id: str


@dataclass(frozen=True)
class Assertion:
    expectation: str
    status: AssertionStatus
    line_number: int
    definition: str  # only the first source line of the assertion call
    request_refs: list[RequestRef]

    @property
    def passed(self) -> bool:
        return self.status is AssertionStatus.PASSED


@dataclass(frozen=True)
class TaskVersion:
    """`taskVersion` of a run, or a whole `*.task.json` file."""

    name: str
    version_number: int | None
    description: str | None
    definition: str  # "" when kbench could not find the source
    subtask_file_names: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Run:
    """One `BenchmarkTaskRun`, with its subruns (dataset rows) in completion order."""

    task: TaskVersion
    model_slug: str | None  # None for `modelVersion: {}` (a task run without an LLM)
    state: RunState
    start_time: datetime | None
    end_time: datetime | None
    conversations: list[Conversation]
    results: list[RunResult]
    assertions: list[Assertion]
    subruns: list[Run]
    py_run_id: str
    error_message: str | None
    cached: bool  # no conversations and no startTime: restored from kbench's cache
    location: str = field(default="", compare=False)  # "" or e.g. "subruns[1].subruns[0]"
    # Where this run (a top-level subrun, with everything below it) held text no program can encode:
    # located messages from `unencodable`. Its strings were made printable; it must not be scored.
    unreadable_text: tuple[str, ...] = field(default=(), compare=False)

    @property
    def result(self) -> RunResult | None:
        """The AGGREGATED result (kbench writes exactly one), else the first result, else None."""
        for result in self.results:
            if result.type == "AGGREGATED":
                return result
        return self.results[0] if self.results else None
