"""Fixtures for the misled-tests suite: the local HumanEvalPack copy (never committed here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hallubench.misled_tests.data import ENV_VAR, Problem, load_problems

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def problems(humanevalpack_path: Path) -> dict[str, Problem]:
    return load_problems(humanevalpack_path)


@pytest.fixture
def data_env(monkeypatch: pytest.MonkeyPatch, humanevalpack_path: Path) -> Path:
    """Point the loader (and anything it starts) at the local copy, as CI does."""
    monkeypatch.setenv(ENV_VAR, str(humanevalpack_path))
    return humanevalpack_path
