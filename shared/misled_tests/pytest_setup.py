"""Make sure the sandbox interpreter can import pytest, installing a pinned one when it cannot.

The hosted Kaggle image is not ours; if it lacks pytest, the task installs this pinned
version once per process and records the version it ran with in every row.
Embedded into task files: standard library only.
"""

from __future__ import annotations

import subprocess
import sys

from ..errors import HallubenchError

PINNED_PYTEST = "pytest==8.3.5"
_FOUND: dict[str, str] = {}


class PytestUnavailable(HallubenchError):
    """pytest is missing and could not be installed: a harness error."""


def _probe(python: str) -> str | None:
    probe = subprocess.run(
        [python, "-s", "-P", "-c", "import pytest; print(pytest.__version__)"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return probe.stdout.strip() if probe.returncode == 0 and probe.stdout.strip() else None


def ensure_pytest(python: str | None = None, *, install: bool = True) -> str:
    """The pytest version the sandbox will use (installing `PINNED_PYTEST` if needed)."""
    interpreter = python or sys.executable
    if interpreter in _FOUND:
        return _FOUND[interpreter]
    version = _probe(interpreter)
    if version is None and install:
        done = subprocess.run(
            [interpreter, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", PINNED_PYTEST],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        version = _probe(interpreter)
        if version is None:
            raise PytestUnavailable(f"pytest missing and `pip install {PINNED_PYTEST}` failed: {done.stderr[-800:]}")
    if version is None:
        raise PytestUnavailable(f"{interpreter} cannot import pytest")
    _FOUND[interpreter] = version
    return version
