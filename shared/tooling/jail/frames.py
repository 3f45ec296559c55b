"""Length-prefixed JSON frames over a pipe: the only thing that crosses the jail's boundary.

JSON only (never pickle): whatever a frame from inside holds, reading it runs no code here. Each
frame is the decimal length, a newline, then that many bytes of ASCII JSON (lone surrogates stay
escaped, so every logged text survives the trip). A frame over the size limit or not JSON is a
`FrameError`, and the reader stops.
"""

from __future__ import annotations

import json
import os
import select
import time
from typing import Any

from ...errors import HallubenchError

FRAME_LIMIT = 1 << 28
_HEADER_LIMIT = 20


class FrameError(HallubenchError):
    """The other side closed the pipe, stalled, or sent something that is not a frame."""


def encode(message: dict[str, Any]) -> bytes:
    data = json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return f"{len(data)}\n".encode("ascii") + data


def send(fd: int, message: dict[str, Any]) -> None:
    view = memoryview(encode(message))
    while view:
        view = view[os.write(fd, view) :]


class FrameReader:
    """Reads whole frames from `fd`, waiting at most until a deadline (None: forever)."""

    def __init__(self, fd: int, limit: int = FRAME_LIMIT) -> None:
        self.fd = fd
        self.limit = limit
        self.buffer = bytearray()

    def _fill(self, deadline: float | None) -> None:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
                raise FrameError("no answer in time")
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            raise FrameError("the other side closed the pipe")
        self.buffer += chunk

    def receive(self, deadline: float | None = None) -> dict[str, Any]:
        while b"\n" not in self.buffer[:_HEADER_LIMIT]:
            if len(self.buffer) >= _HEADER_LIMIT:
                raise FrameError(f"not a frame header: {bytes(self.buffer[:_HEADER_LIMIT])!r}")
            self._fill(deadline)
        header, _, _ = self.buffer.partition(b"\n")
        if not header.isdigit():
            raise FrameError(f"not a frame header: {bytes(header)!r}")
        size = int(header)
        if size > self.limit:
            raise FrameError(f"a frame of {size} bytes is over the limit of {self.limit}")
        start = len(header) + 1
        while len(self.buffer) < start + size:
            self._fill(deadline)
        data = bytes(self.buffer[start : start + size])
        del self.buffer[: start + size]
        try:
            message = json.loads(data)
        except ValueError as exc:
            raise FrameError(f"a frame that is not JSON: {exc}") from exc
        if not isinstance(message, dict):
            raise FrameError("a frame that is not a JSON object")
        return message
