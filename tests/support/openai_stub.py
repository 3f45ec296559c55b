"""A real OpenAI-compatible HTTP server on 127.0.0.1 whose replies come from a script.

Why: end-to-end tests must send real HTTP requests through the real clients
(`openai`, kaggle-benchmarks) and then check what went over the wire, byte for byte, without
a model. The stub answers every chat completion from a script, records every request body,
and can be told to fail in the ways real endpoints fail.

Quick start
-----------
```python
from support.openai_stub import Fault, OpenAIStub

with OpenAIStub(replies=["first reply", "second reply"], model="stub/model-a") as stub:
    client = openai.OpenAI(base_url=stub.base_url, api_key="x")   # .../v1
    ...                                   # or MODEL_PROXY_URL=stub.proxy_url (kbench adds /openapi)
    stub.chat_messages()                  # [[{"role": "user", "content": ...}], ...] one per call
```

Endpoints (all on `http://127.0.0.1:<port>`, port chosen by the OS):

* `POST /v1/chat/completions` and `POST /openapi/chat/completions` (kaggle-benchmarks'
  `ModelProxy` appends `/openapi` to `MODEL_PROXY_URL`): a `chat.completion` object with one
  choice, `finish_reason: "stop"` and `usage`. Usage counts whitespace-separated words
  (prompt: all message contents; completion: the reply), good enough to check that usage
  flows into run files, not a tokenizer. `stream: true` is refused with 400 (nothing in
  hallubench streams; a silent non-stream answer would hide a client change).
* `GET /v1/models` and `GET /openapi/models`: lists the stub's model.
* Anything else: 404 with an OpenAI-style error body.

Replies (`replies=`):

* a `str`: the same reply to every request;
* a sequence of `str`: replies in order; one request too many gets HTTP 500 with
  `"reply script exhausted"` (a test that sends more requests than it planned fails loudly);
* a callable `(messages: list[dict]) -> str`: computed from the request's messages
  (e.g. echo the last user message); an exception in it becomes HTTP 500 with its text.

Faults (`stub.add_faults(...)`, consumed one per chat request, before the script):

* `Fault.status(500)` (any status): an OpenAI-style error body with that status;
* `Fault.malformed()`: HTTP 200 with a body that is not JSON;
* `Fault.delay(2.0)`: wait, then answer normally from the script (client timeouts).

A faulted request is still logged, and a failing request (500, malformed) does NOT consume a
scripted reply, so a client's retry gets the reply the script meant for that call. Note that
`openai.OpenAI` retries 5xx twice by default: one `Fault.status(500)` then costs one retry,
not a failed call; queue three to make one call fail for good.

Recorded requests (`stub.requests`, a list of `RecordedRequest` in arrival order):
`method`, `path`, `headers` (dict, lower-case names), `body` (raw bytes), `json` (parsed body
or None), `fault` (the `Fault` applied, or None), `reply` (the text answered, or None).
Helpers: `chat_requests()` (chat completion bodies), `chat_messages()` (their `messages`
lists). Access is thread-safe.

Manual use: `python tests/support/openai_stub.py --reply "Paris." --port 8000` serves a fixed
reply until Ctrl-C and prints each request's messages (handy for `hallubench run --base-url`).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import Any

try:
    from support.loopback import LoopbackServer
except ImportError:  # run as a script (`python tests/support/openai_stub.py`): its own folder is on sys.path
    from loopback import LoopbackServer  # type: ignore[no-redef]

Message = dict[str, Any]
ReplyScript = str | Sequence[str] | Callable[[list[Message]], str]

CHAT_PATHS = ("/v1/chat/completions", "/openapi/chat/completions")
MODELS_PATHS = ("/v1/models", "/openapi/models")


@dataclass(frozen=True)
class Fault:
    """One injected failure; build with `Fault.status`, `Fault.malformed` or `Fault.delay`."""

    kind: str
    status_code: int = 200
    seconds: float = 0.0

    @classmethod
    def status(cls, code: int = 500) -> Fault:
        return cls(kind="status", status_code=code)

    @classmethod
    def malformed(cls) -> Fault:
        return cls(kind="malformed")

    @classmethod
    def delay(cls, seconds: float) -> Fault:
        return cls(kind="delay", seconds=seconds)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any = None
    fault: Fault | None = None
    reply: str | None = field(default=None)


class OpenAIStub:
    """The stub server; use as a context manager, or call `start()` / `stop()`."""

    def __init__(self, replies: ReplyScript = "ok", *, model: str = "stub-model") -> None:
        self.model = model
        self._script = replies
        self._queued_replies: deque[str] | None = (
            deque(replies) if not isinstance(replies, str) and not callable(replies) else None
        )
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._http = LoopbackServer(_handler_for(self), name="openai-stub")
        self._completion_counter = 0

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> OpenAIStub:
        self._http.start()
        return self

    def stop(self) -> None:
        self._http.stop()

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- addresses -------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return self._http.port

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """For `openai.OpenAI(base_url=...)`."""
        return f"{self.root_url}/v1"

    @property
    def proxy_url(self) -> str:
        """For `MODEL_PROXY_URL` (kaggle-benchmarks appends `/openapi`)."""
        return self.root_url

    # -- script and faults -----------------------------------------------------------------

    def add_faults(self, *faults: Fault) -> None:
        """Queue faults; each following chat request consumes one."""
        with self._lock:
            self._faults.extend(faults)

    # -- the log ---------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def chat_requests(self) -> list[Any]:
        """Parsed JSON bodies of the chat completion requests, in arrival order."""
        return [r.json for r in self.requests if r.path in CHAT_PATHS and r.method == "POST"]

    def chat_messages(self) -> list[list[Message]]:
        """The `messages` list of every chat completion request, in arrival order."""
        return [body.get("messages", []) for body in self.chat_requests() if isinstance(body, dict)]

    # -- internals used by the handler -----------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_fault(self) -> Fault | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _reply_for(self, messages: list[Message]) -> str:
        """The scripted reply; raises `LookupError` when a list script is exhausted."""
        script = self._script
        if isinstance(script, str):
            return script
        if callable(script):
            return script(messages)
        with self._lock:
            assert self._queued_replies is not None
            if not self._queued_replies:
                raise LookupError(f"reply script exhausted after {len(script)} replies")
            return self._queued_replies.popleft()

    def _completion_id(self) -> str:
        with self._lock:
            self._completion_counter += 1
            return f"chatcmpl-stub-{self._completion_counter}"


def _handler_for(stub: OpenAIStub) -> type[BaseHTTPRequestHandler]:
    class Handler(_StubHandler):
        owner = stub

    return Handler


def _word_count(value: Any) -> int:
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, list):  # content parts: [{"type": "text", "text": ...}]
        return sum(_word_count(part.get("text", "")) for part in value if isinstance(part, dict))
    return 0


class _StubHandler(BaseHTTPRequestHandler):
    owner: OpenAIStub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        return

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, payload: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _send_json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode("utf-8"))

    def _send_error(self, status: int, message: str) -> None:
        self._send_json(status, {"error": {"message": message, "type": "stub_error", "code": status}})

    def _recorded(self, body: bytes) -> RecordedRequest:
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            json=parsed,
        )
        self.owner._record(request)
        return request

    def do_GET(self) -> None:
        self._recorded(b"")
        if self.path in MODELS_PATHS:
            model = {"id": self.owner.model, "object": "model", "created": 0, "owned_by": "openai-stub"}
            self._send_json(200, {"object": "list", "data": [model]})
        else:
            self._send_error(404, f"no route for GET {self.path}")

    def do_POST(self) -> None:
        request = self._recorded(self._read_body())
        if self.path not in CHAT_PATHS:
            self._send_error(404, f"no route for POST {self.path}")
            return
        body = request.json
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self._send_error(400, "request body must be a JSON object with a 'messages' list")
            return
        if body.get("stream"):
            self._send_error(400, "the stub does not stream")
            return
        fault = self.owner._next_fault()
        request.fault = fault
        if fault is not None and fault.kind == "status":
            self._send_error(fault.status_code, f"injected fault: HTTP {fault.status_code}")
            return
        if fault is not None and fault.kind == "malformed":
            self._send(200, b'{"id": "chatcmpl-broken", "choices": [')
            return
        if fault is not None and fault.kind == "delay":
            time.sleep(fault.seconds)
        messages: list[Message] = body["messages"]
        try:
            reply = self.owner._reply_for(messages)
        except Exception as error:  # a broken script is the test's bug: make it visible
            self._send_error(500, f"stub reply script failed: {type(error).__name__}: {error}")
            return
        request.reply = reply
        prompt_tokens = sum(_word_count(m.get("content")) for m in messages if isinstance(m, dict))
        completion_tokens = _word_count(reply)
        self._send_json(
            200,
            {
                "id": self.owner._completion_id(),
                "object": "chat.completion",
                "created": int(time.time()),
                "model": str(body.get("model", self.owner.model)),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
        )


def _serve_forever(argv: Sequence[str] | None = None) -> int:
    """`python tests/support/openai_stub.py`: a fixed-reply stub for manual experiments."""
    import argparse
    import contextlib

    parser = argparse.ArgumentParser(description="OpenAI-compatible stub on 127.0.0.1 with a fixed reply.")
    parser.add_argument("--reply", default="ok", help="the reply to every chat completion (default 'ok')")
    parser.add_argument("--model", default="stub-model", help="model id listed by /v1/models")
    parser.add_argument("--port", type=int, default=0, help="TCP port (default: a free one)")
    args = parser.parse_args(argv)

    def echo(messages: list[Message]) -> str:
        print(json.dumps(messages, ensure_ascii=False), flush=True)
        return str(args.reply)

    stub = OpenAIStub(replies=echo, model=args.model)
    server = LoopbackServer(_handler_for(stub), port=args.port, name="openai-stub")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_in_foreground(lambda url: print(f"ready {url}/v1", flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(_serve_forever())
