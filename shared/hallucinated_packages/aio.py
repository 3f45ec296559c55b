"""Run a coroutine to completion from synchronous code, even inside a running event loop.

Protocol entry points (`play`, `preflight`) are synchronous, but the registry layer is async.
Kaggle and Jupyter notebooks already run an event loop in the main thread, where
`asyncio.run` raises, so in that case the coroutine runs on a fresh loop in a worker thread.
Embedded: standard library only.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coroutine)`, moved to a worker thread when this thread already runs a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    outcome: dict[str, Any] = {}

    def worker() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as exc:  # re-raised in the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=worker, name="hallubench-registry", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]
