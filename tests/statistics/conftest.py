"""Shared fixtures for the statistics tests: the golden cases and a fixed-seed generator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "statistics" / "golden.json"


@pytest.fixture(scope="session")
def golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return data


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20260522)
