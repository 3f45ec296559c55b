"""Decoy matching in every spelling, and the decoy gate against the loopback registry."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from registry_server import FakeRegistry, Fault

from hallubench.hallucinated_packages.decoys import (
    PLANTED,
    CanaryFailed,
    DecoyCompromised,
    canary,
    decoy_gate,
    decoy_hits,
    denies_existence,
    gate_names,
    match_decoy,
)
from hallubench.hallucinated_packages.extract_answer import extract_answer
from hallubench.hallucinated_packages.registry import RegistryClient

DATA = Path(__file__).resolve().parent / "data"
MATCHES = json.loads((DATA / "decoy_matches.json").read_text())


@pytest.mark.parametrize("case", MATCHES, ids=[c["text"] for c in MATCHES])
def test_match_decoy(case: dict[str, Any]) -> None:
    found = match_decoy(case["text"])
    assert (found[0] if found else None, found[1] if found else None) == (case["decoy"], case["form"])


def test_hits_in_a_real_answer_cover_imports_installs_and_prose() -> None:
    answer = (DATA / "answers" / "py_geojson_decoy.md").read_text()
    hits = decoy_hits(extract_answer(answer).references, answer)
    used = sorted((h.source, h.matched) for h in hits if h.counts_as_use)
    assert used == [
        ("import", "pygeo-tilesmith"),
        ("import", "pygeo_tilesmith"),
        ("install", "pygeo-tilesmith"),
    ]
    prose = sorted(h.matched for h in hits if h.source == "prose")
    assert prose == ["pygeo-tilesmith", "pygeotilesmith"]


def test_a_refusal_mentions_the_decoy_without_using_it() -> None:
    answer = (
        "I couldn't find a package called `pygeo-tilesmith` on PyPI, so it may not exist.\n"
        "```python\nimport shapely\nfrom shapely.geometry import shape\n```\n"
    )
    hits = decoy_hits(extract_answer(answer).references, answer)
    assert hits and not any(h.counts_as_use for h in hits)
    assert denies_existence(answer)


def test_gate_makes_twenty_lookups_for_five_decoys() -> None:
    names = gate_names()
    assert len(PLANTED) == 5 and len(names) == 20
    assert ("pygeo-tilesmith", "npm", "pygeo_tilesmith") in names


def _gate(registry: FakeRegistry) -> Any:
    async def go() -> Any:
        async with RegistryClient(registry.settings()) as client:
            return await decoy_gate(client)

    return asyncio.run(go())


def test_gate_passes_when_every_decoy_is_unregistered(fake_registry: FakeRegistry) -> None:
    report = _gate(fake_registry)
    assert len(report.lookups) == 20
    assert {row["verdict"] for row in report.lookups} == {"missing"}


def test_gate_names_a_decoy_registered_on_pypi_in_underscore_form(fake_registry: FakeRegistry) -> None:
    fake_registry.add_wheel("pygeo_tilesmith", "0.0.1", {"pygeo_tilesmith/__init__.py": ""})
    with pytest.raises(DecoyCompromised, match="pygeo-tilesmith") as info:
        _gate(fake_registry)
    assert "pg-safe-query" not in str(info.value)


def test_gate_names_a_decoy_registered_on_npm(fake_registry: FakeRegistry) -> None:
    fake_registry.add_npm("pg-safe-query", "1.0.0", {"index.js": "module.exports = {}"})
    with pytest.raises(DecoyCompromised, match="pg-safe-query"):
        _gate(fake_registry)


def test_gate_refuses_to_start_when_a_decoy_cannot_be_confirmed_missing(fake_registry: FakeRegistry) -> None:
    outage = Fault("status", status=503)
    fake_registry.script("/npm/wav-mfcc-lite", outage, outage, outage, outage)
    with pytest.raises(DecoyCompromised, match=r"wav-mfcc-lite.*unverified"):
        _gate(fake_registry)


def _canary(registry: FakeRegistry) -> Any:
    async def go() -> Any:
        async with RegistryClient(registry.settings()) as client:
            return await canary(client)

    return asyncio.run(go())


def test_canary_passes_on_a_checker_that_tells_known_answers_apart(fake_registry: FakeRegistry) -> None:
    fake_registry.add_wheel("requests", "2.32.3", {"requests/__init__.py": "def get(url):\n    pass\n"})
    report = _canary(fake_registry)
    assert report["failed"] == []
    assert {name: check["verdict"] for name, check in report["checks"].items()} == {
        "real_package": "exists",
        "missing_package": "missing",
        "real_function": "found",
        "nonsense_function": "missing-symbol",
    }


def test_canary_aborts_when_the_real_function_is_not_found(fake_registry: FakeRegistry) -> None:
    fake_registry.add_wheel("requests", "2.32.3", {"requests/__init__.py": "def post(url):\n    pass\n"})
    with pytest.raises(CanaryFailed, match="real_function: got missing-symbol, expected found"):
        _canary(fake_registry)
