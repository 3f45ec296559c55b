"""Row results: one self-identifying dict per case, whatever happened while playing it.

Run files do not store a task's inputs, so every row result carries the protocol id, the
task file's payload sha256, the case id and the sha256 of every message the protocol sent.
A scorer that raises, or a model call that fails, still yields a row (verdict `error`, with
the kind of error), so no sample is ever dropped and no harness error counts as a model
failure. Embedded into task files: standard library only.
"""

from __future__ import annotations

import math
import traceback
from collections.abc import Callable
from typing import Any

from .conversation import Conversation, ModelCallError
from .hashing import sha256_text

VERDICTS = ("pass", "fail", "error", "unscored")
ROW_FORMAT = 1

PlayFunction = Callable[[dict[str, Any], Conversation], dict[str, Any]]


class RecordingConversation:
    """Wraps a conversation, hashing every message sent and turning call failures into ModelCallError."""

    def __init__(self, inner: Conversation) -> None:
        self._inner = inner
        self.sent_sha256: list[str] = []
        self.calls = 0

    def system(self, text: str) -> None:
        self.sent_sha256.append(sha256_text(text))
        self._inner.system(text)

    def ask(self, text: str) -> str:
        self.sent_sha256.append(sha256_text(text))
        self.calls += 1
        try:
            reply = self._inner.ask(text)
        except ModelCallError:
            raise
        except Exception as exc:
            raise ModelCallError(f"model call {self.calls} failed: {type(exc).__name__}: {exc}") from exc
        if not isinstance(reply, str):
            raise ModelCallError(f"model call {self.calls} returned {type(reply).__name__}, not text")
        return reply


class JsonSafeOutcome(dict[str, Any]):
    """A play outcome its protocol built JSON-safe: str keys, lists (no tuples), finite floats only.

    `play_row` takes such an outcome as it is, instead of walking every value of the row through
    `json_safe` (a recursive clean-up that cost a benchmark's scorer a tenth of its time on every
    rescore). The protocol's tests check the promise on generated replies.
    """


def json_safe(value: Any) -> Any:
    """`value` with NaN and infinities replaced by None.

    Run files store row dicts as protobuf Structs and scores as doubles in proto3 JSON, and
    neither accepts NaN: kaggle-benchmarks would refuse to store the whole run. An undefined
    rate (0 of 0) therefore travels as null, its denominator beside it.
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    return value


def headline_value(summary: dict[str, Any]) -> float:
    """The stored task's score: the aggregate's headline, 0.0 when it is undefined (see json_safe)."""
    value = summary.get("headline")
    try:
        number = float(value) if value is not None else 0.0
    except (TypeError, ValueError):
        return 0.0
    return number if math.isfinite(number) else 0.0


def _short_traceback(exc: BaseException, limit: int = 1500) -> str:
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return text if len(text) <= limit else "..." + text[-limit:]


def identity(protocol_id: str, payload_sha256: str, case_id: str) -> dict[str, Any]:
    """The fields that let a row be matched to its case and task file without the inputs."""
    return {
        "row_format": ROW_FORMAT,
        "protocol": protocol_id,
        "payload_sha256": payload_sha256,
        "case_id": case_id,
    }


def error_row(protocol_id: str, payload_sha256: str, case_id: str, kind: str, detail: str) -> dict[str, Any]:
    """A row for a case whose play could not finish: counted in denominators, never a pass or a fail."""
    row = identity(protocol_id, payload_sha256, case_id)
    row.update({"verdict": "error", "error_kind": kind, "detail": detail, "prompt_sha256": [], "calls": 0})
    return row


def play_row(
    play: PlayFunction,
    case: dict[str, Any],
    conversation: Conversation,
    *,
    protocol_id: str,
    payload_sha256: str,
) -> dict[str, Any]:
    """Play one case and return its row; never raises for model or scorer failures."""
    recorder = RecordingConversation(conversation)
    case_id = str(case.get("id", ""))
    outcome: dict[str, Any]
    built_safe = False
    try:
        outcome = play(case, recorder)
        if not isinstance(outcome, dict):
            raise TypeError(f"play returned {type(outcome).__name__}, not dict")
        verdict = outcome.get("verdict")
        if verdict not in VERDICTS:
            raise ValueError(f"play returned verdict {verdict!r}, not one of {VERDICTS}")
        built_safe = type(outcome) is JsonSafeOutcome
    except ModelCallError as exc:
        outcome = {"verdict": "error", "error_kind": "model_call", "detail": str(exc)}
    except Exception as exc:
        outcome = {"verdict": "error", "error_kind": "scorer", "detail": _short_traceback(exc)}
    row = identity(protocol_id, payload_sha256, case_id)
    row.update(outcome)
    row["prompt_sha256"] = list(recorder.sent_sha256)
    row["calls"] = recorder.calls
    if built_safe:
        return row
    safe: dict[str, Any] = json_safe(row)
    return safe
