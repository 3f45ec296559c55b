"""Start the fake Kaggle API and run `hallubench` against it in a clean subprocess.

The CLI runs in its own process because the kaggle package decides things at import time
(config directory from HOME, a module-level authentication), so each run must start from an
environment the test controls: HOME is a scratch folder, no proxies, no real credentials.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from .fake_kaggle_api import TEST_PORT, FakeKaggleApi


@contextmanager
def running_fake(**options: object) -> Iterator[FakeKaggleApi]:
    """A started fake on 127.0.0.1:7777, or a skipped test when that port is taken."""
    fake = FakeKaggleApi(**options)  # type: ignore[arg-type]
    try:
        fake.start()
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            pytest.skip(
                f"127.0.0.1:{TEST_PORT} is in use; kagglesdk's TEST environment points only at "
                "localhost:7777, so the fake Kaggle API cannot run"
            )
        raise
    try:
        yield fake
    finally:
        fake.stop()


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment with nothing of the caller's Kaggle setup or proxies in it."""
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.update(extra)
    return env


def run_hallubench(
    args: list[str], env: dict[str, str], cwd: Path | None = None, timeout: float = 90
) -> subprocess.CompletedProcess[str]:
    """`python -m hallubench ARGS` with exactly `env`."""
    return subprocess.run(
        [sys.executable, "-m", "hallubench", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def kaggle_test_env(home: Path, fake: FakeKaggleApi) -> dict[str, str]:
    """Point the kaggle client at the fake, with the fake's token as KAGGLE_API_TOKEN."""
    return clean_env(home, KAGGLE_API_ENVIRONMENT="TEST", KAGGLE_API_TOKEN=fake.token)
