"""Fixtures for the hallucinated-packages tests: the loopback fake registry.

Live tests (`@pytest.mark.live`) are skipped unless `--live` is given (root conftest).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


from registry_server import FakeRegistry


@pytest.fixture
def fake_registry(tmp_path: Path) -> Iterator[FakeRegistry]:
    """A running loopback PyPI + npm fake with no packages; tests add what they need."""
    with FakeRegistry(tmp_path / "registry") as registry:
        yield registry
