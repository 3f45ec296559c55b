"""A real TCP server on 127.0.0.1 that counts the connections it accepts: proof that a sandbox reached the network."""

from __future__ import annotations

import socket
import threading


class ConnectionCounter:
    """Accepts and closes every connection on a free loopback port, counting them; `close` stops it."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop:
            try:
                connection, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            connection.close()

    def close(self) -> None:
        self.stop = True
        self.thread.join()
        self.sock.close()
