"""One JSON record per line over a pipe: the only format between the host, the server and its children.

Readers hold at most `limit` bytes, so a child that floods its pipe cannot exhaust the reader's
memory; a reader of untrusted lines (the server reading a version process) gets `None` for a line
that is not a JSON object, never an exception.
"""

from __future__ import annotations

import json
import os
import select
import time
from typing import Any

from ...errors import HallubenchError


class WireError(HallubenchError):
    """The other side broke the format (a line too long, or not JSON from a trusted peer)."""


def encode(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, separators=(",", ":"), ensure_ascii=True) + "\n").encode("ascii")


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def send(fd: int, record: dict[str, Any]) -> None:
    write_all(fd, encode(record))


def parse(line: bytes) -> dict[str, Any] | None:
    """The record on a line, or None when it is not a JSON object."""
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class LineReader:
    """Newline-terminated records from one descriptor, read with deadlines."""

    def __init__(self, fd: int, limit: int) -> None:
        self.fd = fd
        self.limit = limit
        self.eof = False
        self._buffer = bytearray()

    def next_line(self, deadline: float | None) -> bytes | None:
        """The next complete line; None at end of file or when the deadline passes first."""
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[: newline + 1]
                return line
            if self.eof:
                return None
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                self.eof = True
                continue
            self._buffer += chunk
            if len(self._buffer) > self.limit:
                raise WireError(f"a line longer than {self.limit} bytes")

    def next_record(self, deadline: float | None) -> dict[str, Any] | None:
        """The next line that is a JSON object (malformed lines are skipped); None as in `next_line`."""
        while True:
            line = self.next_line(deadline)
            if line is None:
                return None
            record = parse(line)
            if record is not None:
                return record
