"""Fixtures for the misled-tests suite: the local HumanEvalPack copy (never committed here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hallubench.misled.data import ENV_VAR, Problem, load_problems

DATA = Path(__file__).resolve().parents[1] / "data" / "misled"


@pytest.fixture(scope="session")
def humanevalpack_path(repo_root: Path) -> Path:
    path = repo_root.parent / "shared" / "data" / "humanevalpack" / "humanevalpack.jsonl"
    if not path.is_file():
        pytest.skip(f"HumanEvalPack copy not found at {path} (see PROVENANCE.md there)")
    return path


@pytest.fixture(scope="session")
def problems(humanevalpack_path: Path) -> dict[str, Problem]:
    return load_problems(humanevalpack_path)


@pytest.fixture
def data_env(monkeypatch: pytest.MonkeyPatch, humanevalpack_path: Path) -> Path:
    """Point the loader (and anything it starts) at the local copy, as CI does."""
    monkeypatch.setenv(ENV_VAR, str(humanevalpack_path))
    return humanevalpack_path
