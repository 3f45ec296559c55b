"""Drive Debian's headless Chromium over the DevTools protocol, through a pipe: no port, no download.

Why a pipe: `--remote-debugging-pipe` makes Chromium read protocol messages from fd 3 and write
its own to fd 4, each a JSON object ended by a NUL byte, so the standard library is all a test
needs (no websocket client, no browser-fetching driver package), and nothing listens on a port.

```python
with Chromium.launch(tmp_path / "profile") as browser:
    page = browser.open_page()
    page.navigate(path.as_uri())                 # waits for the load event
    page.evaluate("document.title")              # a JSON-able value, or raises on a thrown error
    page.click("#hb-rows button.hb-open")        # a real mouse press and release at the element's centre
    page.screenshot(tmp_path / "page.png")
    page.console_errors                          # console.error calls, uncaught exceptions, error log entries
```

The flags keep a sandbox-less, network-less machine quiet: no GPU, no background networking,
no component updates or sync, an empty profile. `HALLUBENCH_CHROMIUM` names another binary.
"""

from __future__ import annotations

import base64
import json
import os
import selectors
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


class BrowserError(RuntimeError):
    """Chromium is missing, died, timed out, or a protocol command failed."""


def chromium_path() -> str | None:
    """The Chromium binary to use, or None when none is installed."""
    named = os.environ.get("HALLUBENCH_CHROMIUM")
    if named:
        return named
    for candidate in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        found = shutil.which(candidate)
        if found:
            return found
    return None


class Page:
    """One tab: navigate, evaluate, click, screenshot; console errors are collected as they come."""

    def __init__(self, browser: Chromium, session: str) -> None:
        self.browser = browser
        self.session = session
        self.console_errors: list[str] = []
        self.load_fired = False
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    def send(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def on_event(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params") or {}
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            texts = [str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", [])]
            self.console_errors.append("console." + str(params.get("type")) + ": " + " ".join(texts))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails") or {}
            exception = details.get("exception") or {}
            self.console_errors.append("uncaught: " + str(exception.get("description") or details.get("text")))
        elif method == "Log.entryAdded" and (params.get("entry") or {}).get("level") == "error":
            entry = params["entry"]
            self.console_errors.append(f"log: {entry.get('text')} {entry.get('url', '')}".strip())
        elif method == "Page.loadEventFired":
            self.load_fired = True

    def navigate(self, url: str, timeout: float = 60.0) -> None:
        """Open `url` and wait for its load event."""
        self.load_fired = False
        result = self.send("Page.navigate", {"url": url}, timeout=timeout)
        if result.get("errorText"):
            raise BrowserError(f"navigation to {url} failed: {result['errorText']}")
        self.browser.wait_for(lambda: self.load_fired, timeout, f"load event of {url}")

    def evaluate(self, expression: str, timeout: float = 30.0) -> Any:
        """The value of a JavaScript expression (awaited when it is a promise); a thrown error raises."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            timeout=timeout,
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise BrowserError(f"{expression!r} threw: {(details.get('exception') or {}).get('description', details)}")
        return (result.get("result") or {}).get("value")

    def click(self, selector: str) -> None:
        """Scroll the element into view and press and release the left mouse button at its centre."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        if box is None:
            raise BrowserError(f"no element matches {selector!r}")
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            params = {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1}
            self.send("Input.dispatchMouseEvent", params)

    def screenshot(self, path: Path, *, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params, timeout=60.0)["data"]
        path.write_bytes(base64.b64decode(data))
        return path


class Chromium:
    """A running headless Chromium and its protocol pipe."""

    def __init__(self, process: subprocess.Popen[bytes], to_browser: int, from_browser: int) -> None:
        self.process = process
        self._write = to_browser
        self._read = from_browser
        self._buffer = b""
        self._next_id = 0
        self._pages: dict[str, Page] = {}
        self._selector = selectors.DefaultSelector()
        self._selector.register(from_browser, selectors.EVENT_READ)

    @classmethod
    @contextmanager
    def launch(cls, profile: Path, *, width: int = 1280, height: int = 900) -> Iterator[Chromium]:
        """Start Chromium with an empty profile in `profile`; closed and reaped on leaving."""
        binary = chromium_path()
        if binary is None:
            raise BrowserError("Chromium is not installed (Debian: apt-get install chromium)")
        profile.mkdir(parents=True, exist_ok=True)
        to_child_read, to_browser = os.pipe()
        from_browser, from_child_write = os.pipe()
        # The browser reads fd 3 and writes fd 4: a small Python trampoline moves the pipe ends there, then
        # becomes Chromium (dash's `exec 3<&N` does not keep the descriptor across exec).
        trampoline = (
            "import os, sys; r, w = int(sys.argv[1]), int(sys.argv[2]); os.dup2(r, 3); os.dup2(w, 4); "
            "[os.close(fd) for fd in {r, w} - {3, 4}]; os.execv(sys.argv[3], sys.argv[3:])"
        )
        command = [sys.executable, "-c", trampoline, str(to_child_read), str(from_child_write), binary, *FLAGS]
        command += [f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"]
        process = subprocess.Popen(
            command,
            pass_fds=(to_child_read, from_child_write),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=(profile / "chromium.log").open("wb"),
        )
        os.close(to_child_read)
        os.close(from_child_write)
        browser = cls(process, to_browser, from_browser)
        try:
            yield browser
        finally:
            browser.close()

    # -- the protocol ------------------------------------------------------------------------------
    def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None, timeout: float = 30.0
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        wanted = self._next_id
        reply: dict[str, Any] = {}

        def answered() -> bool:
            return bool(reply)

        def take(incoming: dict[str, Any]) -> None:
            if incoming.get("id") == wanted:
                reply.update(incoming)

        self._pump(answered, timeout, f"reply to {method}", take)
        if "error" in reply:
            raise BrowserError(f"{method} failed: {reply['error']}")
        result: dict[str, Any] = reply.get("result") or {}
        return result

    def wait_for(self, condition: Any, timeout: float, what: str) -> None:
        self._pump(condition, timeout, what, lambda message: None)

    def _pump(self, done: Any, timeout: float, what: str, take: Any) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"timed out after {timeout}s waiting for {what}")
            if not self._selector.select(left):
                continue
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium closed its pipe while waiting for {what} (exit {self.process.poll()})")
            self._buffer += chunk
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message = json.loads(raw)
                page = self._pages.get(message.get("sessionId", ""))
                if page is not None and "method" in message:
                    page.on_event(message)
                take(message)

    def open_page(self) -> Page:
        """A new tab, attached with its own session."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page.__new__(Page)
        self._pages[session] = page
        Page.__init__(page, self, session)
        return page

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                self.send("Browser.close", timeout=10.0)
        except (BrowserError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self._selector.close()
        for fd in (self._write, self._read):
            with suppress(OSError):
                os.close(fd)
