"""Decoded JSON (dicts and lists) -> the typed run model, with errors that say where.

The reader is strict about shapes (a string where an object belongs, an unknown enum name, a
missing key that kbench always writes) and lenient about what proto3 JSON legitimately leaves
out (default values, empty lists, unknown extra keys). Every error carries a location such as
`subruns[1].conversations[0].requests[2].contents[0].role`, so a bad file can be fixed or
reported without a debugger.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar

from ...errors import HallubenchError
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

_ROLES = {
    "CONTENT_ROLE_UNSPECIFIED": Role.UNSPECIFIED,
    "CONTENT_ROLE_USER": Role.USER,
    "CONTENT_ROLE_ASSISTANT": Role.ASSISTANT,
    "CONTENT_ROLE_SYSTEM": Role.SYSTEM,
    "CONTENT_ROLE_DEVELOPER": Role.DEVELOPER,
    "CONTENT_ROLE_CONTEXT": Role.TOOL,
}
_TIMESTAMP = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})")
_INT_TEXT = re.compile(r"-?\d+")
_SPECIAL_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}

_E = TypeVar("_E", bound=StrEnum)


class RunFormatError(HallubenchError, ValueError):
    """The JSON decoded but is not a run file kbench could have written; `location` says where."""

    def __init__(self, location: str, message: str) -> None:
        super().__init__(f"{location}: {message}" if location else message)
        self.location = location
        self.message = message


def parse_run(data: object, *, numbers_are_floats: bool = False) -> Run:
    """Build a `Run` from the decoded JSON of a `*.run.json` file.

    `numbers_are_floats`: the JSON was decoded with `parse_int=float`, so a `dictResult` already
    reads as the protobuf Struct it is and needs no conversion (what `load_run` does).
    """
    if isinstance(data, dict) and "taskVersion" not in data and "versionNumber" in data:
        raise RunFormatError("", "this is a task file (*.task.json), not a run file (*.run.json)")
    return _run(_Node.of(data, None), numbers_are_floats)


def parse_task_version(data: object) -> TaskVersion:
    """Build a `TaskVersion` from the decoded JSON of a `*.task.json` file."""
    if isinstance(data, dict) and "taskVersion" in data:
        raise RunFormatError("", "this is a run file (*.run.json), not a task file (*.task.json)")
    return _task_version(_Node.of(data, None))


class _Node:
    """A JSON object plus the location it was found at, with typed, located accessors.

    The location text ("subruns[3].conversations[0]...") is built only when an error needs it:
    formatting it for every node cost more than the rest of the parse.
    """

    __slots__ = ("_parent", "_step", "data")

    def __init__(self, data: dict[str, Any], parent: _Node | None = None, step: str | int = "") -> None:
        self.data = data
        self._parent = parent
        self._step = step

    @classmethod
    def of(cls, value: object, parent: _Node | None, step: str | int = "") -> _Node:
        if not isinstance(value, dict):
            raise RunFormatError(_location(parent, step), f"expected a JSON object, got {_kind(value)}")
        return cls(value, parent, step)

    @property
    def location(self) -> str:
        return _location(self._parent, self._step)

    def at(self, key: str) -> str:
        location = self.location
        return f"{location}.{key}" if location else key

    def require(self, key: str, why: str) -> Any:
        if key not in self.data:
            raise RunFormatError(self.at(key), f"missing key ({why})")
        return self.data[key]

    def child(self, key: str, why: str) -> _Node:
        return _Node.of(self.require(key, why), self, key)

    def node(self, key: str) -> _Node | None:
        if key not in self.data:
            return None
        return _Node.of(self.data[key], self, key)

    def nodes(self, key: str) -> list[_Node]:
        value = self.data.get(key, ())
        if not isinstance(value, list | tuple):
            raise RunFormatError(self.at(key), f"expected a JSON array, got {_kind(value)}")
        if not value:
            return []
        holder = _Node({}, self, key)  # names the array in locations: "<key>[<index>]"
        return [
            _Node(item, holder, index) if type(item) is dict else _Node.of(item, holder, index)
            for index, item in enumerate(value)
        ]

    def text(self, key: str, default: str = "") -> str:
        value = self.opt_text(key)
        return default if value is None else value

    def opt_text(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is not None and not isinstance(value, str):
            raise RunFormatError(self.at(key), f"expected a string, got {_kind(value)}")
        return value

    def texts(self, key: str) -> list[str]:
        value = self.data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise RunFormatError(self.at(key), "expected an array of strings")
        return list(value)

    def integer(self, key: str, default: int = 0) -> int:
        value = self.opt_integer(key)
        return default if value is None else value

    def opt_integer(self, key: str) -> int | None:
        """An integer; int64 fields arrive as strings ("1100"), int32 ones as numbers."""
        value = self.data.get(key)
        if value is None:
            return None
        if type(value) is float and value.is_integer():  # the common case: `load_run` reads numbers as floats
            return int(value)
        if isinstance(value, str) and _INT_TEXT.fullmatch(value):
            return int(value)
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise RunFormatError(self.at(key), f"expected an integer, got {value!r}")

    def opt_number(self, key: str) -> float | None:
        """A double; proto3 JSON spells non-finite values as the strings NaN/Infinity/-Infinity."""
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str) and value in _SPECIAL_FLOATS:
            return _SPECIAL_FLOATS[value]
        raise RunFormatError(self.at(key), f"expected a number, got {value!r}")

    def enum(self, key: str, prefix: str, kind: type[_E], default: _E) -> _E:
        value = self.data.get(key)
        if value is None:
            return default
        if isinstance(value, str) and value.startswith(prefix):
            try:
                return kind(value.removeprefix(prefix))
            except ValueError:
                pass
        raise RunFormatError(self.at(key), f"unknown value {value!r} (expected {prefix}*)")

    def timestamp(self, key: str) -> datetime | None:
        value = self.opt_text(key)
        if value is None:
            return None
        match = _TIMESTAMP.fullmatch(value)
        if not match:
            raise RunFormatError(self.at(key), f"expected an RFC 3339 timestamp, got {value!r}")
        base, fraction, zone = match.groups()
        micros = (fraction or "").ljust(6, "0")[:6]  # nanoseconds are truncated to microseconds
        offset = "+00:00" if zone == "Z" else zone
        try:
            return datetime.fromisoformat(f"{base}.{micros}{offset}")
        except ValueError as exc:
            raise RunFormatError(self.at(key), f"invalid timestamp {value!r}: {exc}") from exc


def _run(node: _Node, floats: bool) -> Run:
    task = node.child("taskVersion", "every run file names its task")
    model = node.node("modelVersion")
    node.require("state", "kbench always records the run state")
    results = [_result(item, floats) for item in node.nodes("results")]
    if not results:
        raise RunFormatError(node.at("results"), "missing or empty (kbench writes one result per run)")
    return Run(
        task=_task_version(task),
        model_slug=(model.opt_text("slug") or None) if model else None,
        state=node.enum("state", "BENCHMARK_TASK_RUN_STATE_", RunState, RunState.UNSPECIFIED),
        start_time=node.timestamp("startTime"),
        end_time=node.timestamp("endTime"),
        conversations=[_conversation(item) for item in node.nodes("conversations")],
        results=results,
        assertions=[_assertion(item) for item in node.nodes("assertions")],
        subruns=[_run(item, floats) for item in node.nodes("subruns")],
        py_run_id=node.text("pyRunId"),
        error_message=node.opt_text("errorMessage"),
        cached="conversations" not in node.data and "startTime" not in node.data,
        location=node.location,
    )


def _task_version(node: _Node) -> TaskVersion:
    node.require("name", "kbench always records the task name")
    return TaskVersion(
        name=node.text("name"),
        version_number=node.opt_integer("versionNumber"),
        description=node.opt_text("description"),
        definition=node.text("definition"),
        subtask_file_names=node.texts("subtaskFileNames"),
    )


def _conversation(node: _Node) -> Conversation:
    metrics = node.node("metrics")
    return Conversation(
        id=node.text("id"),
        requests=[_request(item) for item in node.nodes("requests")],
        metrics=_metrics(metrics) if metrics else None,
    )


def _request(node: _Node) -> Request:
    metrics = node.node("metrics")
    return Request(
        id=node.text("id"),
        contents=_messages(node),
        metrics=_metrics(metrics) if metrics else None,
        reasoning_traces=node.opt_text("reasoningTraces"),
    )


def _messages(request: _Node) -> list[Message]:
    """`contents`: read in place while every message is plain text; else each through `_message`, with locations."""
    contents = request.data.get("contents")
    if type(contents) is list:
        plain = [_plain_message(item) for item in contents]
        if None not in plain:
            return plain  # type: ignore[return-value]  # no None in it, checked just above
    return [_message(item) for item in request.nodes("contents")]


def _plain_message(data: object) -> Message | None:
    """A message as kbench writes a plain text one (known role, string sender, one text-only part), else None.

    None sends the message down `_message`, which reads every other shape and reports the bad ones.
    """
    if type(data) is not dict:
        return None
    role = data.get("role")
    sender = data.get("senderName", "")
    parts = data.get("parts")
    if (role is not None and (type(role) is not str or role not in _ROLES)) or type(sender) is not str:
        return None
    if type(parts) is not list:
        return None
    if len(parts) != 1 or type(part := parts[0]) is not dict or len(part) != 1 or type(part.get("text")) is not str:
        return None
    return Message(role=_ROLES[role] if role is not None else Role.UNSPECIFIED, text=part["text"], sender_name=sender)


def _message(node: _Node) -> Message:
    role = node.data.get("role")
    if role is not None and (not isinstance(role, str) or role not in _ROLES):
        raise RunFormatError(node.at("role"), f"unknown value {role!r} (expected CONTENT_ROLE_*)")
    role_value = _ROLES[role] if role is not None else Role.UNSPECIFIED
    texts: list[str] = []
    attachments: list[Attachment] = []
    for part in node.nodes("parts"):
        inline = part.node("inlineData")
        file = part.node("fileData")
        if inline:
            attachments.append(
                Attachment(
                    kind="inline_data",
                    mime_type=inline.opt_text("mimeType"),
                    data=inline.opt_text("data"),
                    display_name=inline.opt_text("displayName"),
                )
            )
        if file:
            attachments.append(
                Attachment(
                    kind="file_data",
                    mime_type=file.opt_text("mimeType"),
                    file_uri=file.opt_text("fileUri"),
                    display_name=file.opt_text("displayName"),
                )
            )
        # proto3 drops an empty `text`, so a part with nothing in it is an empty text.
        texts.append(part.text("text"))
    return Message(
        role=role_value,
        text="".join(texts),
        sender_name=node.text("senderName"),
        attachments=attachments,
    )


def _metrics(node: _Node) -> RequestMetrics:
    data = node.data
    if all(type(value) is float and value.is_integer() for value in data.values()):  # numbers, as `load_run` reads them
        get = data.get
        return RequestMetrics(
            input_tokens=int(get("inputTokens", 0)),
            output_tokens=int(get("outputTokens", 0)),
            duration_ms=int(get("durationMs", 0)),
            thinking_tokens=_int_or_none(get("thinkingTokens")),
            input_tokens_cost_nanodollars=_int_or_none(get("inputTokensCostNanodollars")),
            output_tokens_cost_nanodollars=_int_or_none(get("outputTokensCostNanodollars")),
            total_backend_latency_ms=_int_or_none(get("totalBackendLatencyMs")),
        )
    return RequestMetrics(
        input_tokens=node.integer("inputTokens"),
        output_tokens=node.integer("outputTokens"),
        duration_ms=node.integer("durationMs"),
        thinking_tokens=node.opt_integer("thinkingTokens"),
        input_tokens_cost_nanodollars=node.opt_integer("inputTokensCostNanodollars"),
        output_tokens_cost_nanodollars=node.opt_integer("outputTokensCostNanodollars"),
        total_backend_latency_ms=node.opt_integer("totalBackendLatencyMs"),
    )


def _int_or_none(value: float | None) -> int | None:
    return None if value is None else int(value)


def _result(node: _Node, floats: bool) -> RunResult:
    kinds = [key for key in ("booleanResult", "numericResult", "dictResult") if key in node.data]
    if len(kinds) != 1:
        found = ", ".join(kinds) or "none"
        raise RunFormatError(
            node.location, f"expected exactly one of booleanResult, numericResult, dictResult; found {found}"
        )
    result_type = node.text("type", default="UNSPECIFIED").removeprefix("BENCHMARK_TASK_RUN_RESULT_TYPE_")
    if kinds[0] == "booleanResult":
        value = node.data["booleanResult"]
        if not isinstance(value, bool):
            raise RunFormatError(node.at("booleanResult"), f"expected true or false, got {value!r}")
        return BooleanResult(value=value, type=result_type)
    if kinds[0] == "numericResult":
        numeric = node.child("numericResult", "checked above")
        value_or_none = numeric.opt_number("value")
        return NumericResult(
            value=0.0 if value_or_none is None else value_or_none,  # proto3 drops a zero value
            confidence_interval=numeric.opt_number("confidenceInterval"),
            type=result_type,
        )
    struct = node.child("dictResult", "checked above")
    if floats:
        return DictResult(value=struct.data, type=result_type)
    try:  # a JSON round trip reads every number as a float at C speed; the walk below is the reference
        value = json.loads(json.dumps(struct.data), parse_int=float)
    except (TypeError, ValueError):
        value = {key: _struct_value(item) for key, item in struct.data.items()}
    return DictResult(value=value, type=result_type)


def _location(parent: _Node | None, step: str | int) -> str:
    if parent is None:
        return str(step)
    base = parent.location
    if isinstance(step, int):
        return f"{base}[{step}]"
    return f"{base}.{step}" if base else step


def _struct_value(value: Any) -> JsonValue:
    """A protobuf Struct value: numbers are doubles, so ints read back as floats."""
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [_struct_value(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _struct_value(item) for key, item in value.items()}
    raise RunFormatError("", f"unexpected value in dictResult: {value!r}")  # pragma: no cover


def _assertion(node: _Node) -> Assertion:
    return Assertion(
        expectation=node.text("expectation"),
        status=node.enum(
            "status", "BENCHMARK_TASK_RUN_ASSERTION_STATUS_", AssertionStatus, AssertionStatus.UNSPECIFIED
        ),
        line_number=node.integer("lineNumber"),
        definition=node.text("definition"),
        request_refs=[
            RequestRef(conversation_id=ref.text("conversationId"), request_id=ref.text("requestId"))
            for ref in node.nodes("conversationRequestIds")
        ],
    )


def _kind(value: object) -> str:
    """The JSON name of a decoded value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
