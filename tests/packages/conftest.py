"""Fixtures for the hallucinated-packages tests: the loopback fake registry.

Live tests (`@pytest.mark.live`) are skipped unless selected with `-m live` (or a root
`--live` option, when one exists), so the default run never touches the real registries.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import contextlib

from registry_server import FakeRegistry


@pytest.fixture
def fake_registry(tmp_path: Path) -> Iterator[FakeRegistry]:
    """A running loopback PyPI + npm fake with no packages; tests add what they need."""
    with FakeRegistry(tmp_path / "registry") as registry:
        yield registry


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    selected = "live" in (config.getoption("-m", default="") or "")
    with contextlib.suppress(ValueError):
        selected = selected or bool(config.getoption("--live"))
    if selected:
        return
    skip = pytest.mark.skip(reason="live registry test: run with -m live")
    for item in items:
        if "live" in item.keywords and str(item.fspath).startswith(str(Path(__file__).parent)):
            item.add_marker(skip)
