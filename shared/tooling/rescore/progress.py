"""Progress of a long rescore on stderr, so thousands of run files do not look like a hang.

On a terminal one line is rewritten in place; in a log (CI) a line is written at each tenth
of the files, and nothing at all for a handful of files.
"""

from __future__ import annotations

import time
from typing import TextIO

QUIET_BELOW_FILES = 10  # a log gets no progress lines for fewer files than this


class FileProgress:
    """Counts files and rows read; call `advance` per file and `close` at the end."""

    def __init__(self, total_files: int, stream: TextIO, *, enabled: bool = True) -> None:
        self.total = total_files
        self.stream = stream
        self.tty = stream.isatty()
        self.enabled = enabled and (self.tty or total_files >= QUIET_BELOW_FILES)
        self.files = 0
        self.rows = 0
        self._started = time.monotonic()
        self._next_tenth = 1

    def advance(self, rows: int) -> None:
        self.files += 1
        self.rows += rows
        if not self.enabled:
            return
        elapsed = time.monotonic() - self._started
        text = f"rescore: {self.files}/{self.total} files, {self.rows} rows, {elapsed:.1f}s"
        if self.tty:
            self.stream.write(f"\r{text}\x1b[K")
            self.stream.flush()
        elif self.files * 10 >= self._next_tenth * self.total:
            while self.files * 10 >= self._next_tenth * self.total:
                self._next_tenth += 1
            self.stream.write(text + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty and self.files:
            self.stream.write("\n")
            self.stream.flush()
