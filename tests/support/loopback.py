"""An HTTP server on 127.0.0.1 in a daemon thread: the start and stop every loopback fake shares.

The OpenAI-compatible model stub, the fake Kaggle API and the fake package registry differ in
what they answer, not in how they listen: each holds one of these.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Listener(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    # socketserver's default listen backlog of 5 drops bursts of concurrent connects (1 s SYN retry).
    request_queue_size = 256


class LoopbackServer:
    """`start()` listens on 127.0.0.1:`port` (0: a free port the OS picks) and serves in a thread; `stop()` ends it."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], *, port: int = 0, name: str = "loopback") -> None:
        self.handler = handler
        self.requested_port = port
        self.name = name
        self._server: _Listener | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> LoopbackServer:
        """Raises OSError when the requested port is taken."""
        self._server = _Listener(("127.0.0.1", self.requested_port), self.handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name=self.name, daemon=True
        )
        self._thread.start()
        return self

    def serve_in_foreground(self, on_ready: Callable[[str], None] = print) -> None:
        """Listen and serve in this thread until interrupted (running a fake by hand); `on_ready` gets the base URL."""
        self._server = _Listener(("127.0.0.1", self.requested_port), self.handler)
        on_ready(self.base_url)
        try:
            self._server.serve_forever()
        finally:
            self._server.server_close()
            self._server = None

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError(f"{self.name} is not running")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"
