"""The coverage panel (tests/hallucinated_packages/data/coverage_panel.json): its shape offline, its figures live.

Live (`pytest --live`): every panel name through the real checker against PyPI and npm, on one
client so each artifact is read once. Targets: at least 95 % of the names decided (found or
missing, not unverified), no wrong decision, and every unverified name says why. Set
HALLUBENCH_PANEL_REPORT=path to keep every outcome as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from coverage_panel import Outcome, load_panel, measure, summary

from hallubench.hallucinated_packages.registry import RegistryClient
from hallubench.hallucinated_packages.settings import RegistrySettings


def test_the_panel_is_25_python_and_25_javascript_packages_with_3_real_and_2_invented_names() -> None:
    panel = load_panel()
    packages = panel["packages"]
    assert Counter(p["ecosystem"] for p in packages) == {"pypi": 25, "npm": 25}
    assert len({(p["ecosystem"], p["package"]) for p in packages}) == 50
    for entry in packages:
        assert entry["version"][:1].isdigit(), f"{entry['package']}: a pinned version"
        assert sorted(s["real"] for s in entry["symbols"]) == [False, False, True, True, True], entry["package"]
        names = [s["name"] for s in entry["symbols"]]
        assert len(set(names)) == 5, f"{entry['package']}: one verdict name per symbol"


@pytest.mark.live
def test_the_live_panel_meets_its_targets(capsys: pytest.CaptureFixture[str]) -> None:
    panel = load_panel()

    async def go() -> list[Outcome]:
        async with RegistryClient(RegistrySettings()) as client:
            return await measure(client, panel)

    outcomes = asyncio.run(go())
    figures = summary(outcomes)
    report = os.environ.get("HALLUBENCH_PANEL_REPORT")
    if report:
        rows = [o.__dict__ | {"decided": o.decided, "wrong": o.wrong} for o in outcomes]
        Path(report).write_text(json.dumps({"summary": figures, "outcomes": rows}, indent=1), encoding="utf-8")
    with capsys.disabled():
        for part in ("pypi", "npm", "overall"):
            f = figures[part]
            print(f"\n{part}: {f['decided']}/{f['names']} decided ({f['decided_share']:.1%}), {len(f['wrong'])} wrong")
        for line in figures["overall"]["unverified"] + figures["overall"]["wrong"]:
            print("  ", line)
    assert figures["overall"]["wrong"] == []
    assert figures["overall"]["decided_share"] >= 0.95
    assert all(o.reason for o in outcomes if not o.decided)
