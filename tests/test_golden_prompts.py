"""Every committed task file re-renders every case's first prompt to its golden sha256.

This runs in a different process from the build that wrote the goldens (different hash seed,
different import order), so a render that depends on dict order, a global RNG, the clock or
the environment fails here even when `build --check` passes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hallubench.tooling.build import golden_hashes, load_specs
from hallubench.tooling.lockfile import read_lock

ROOT = Path(__file__).resolve().parents[1]
SPECS = load_specs(ROOT)


@pytest.mark.parametrize("spec", SPECS, ids=[spec.protocol_id for spec in SPECS])
def test_task_file_renders_the_golden_prompts(spec: object) -> None:
    from hallubench.tooling.specs import ProtocolSpec

    assert isinstance(spec, ProtocolSpec)
    task = ROOT / spec.task_path
    if not task.exists():
        pytest.fail(f"{spec.task_path} missing: run `hallubench build {spec.benchmark}`")
    committed = json.loads((ROOT / spec.golden_path).read_text(encoding="utf-8"))
    rendered = golden_hashes(task.read_text(encoding="utf-8"), task)
    differing = sorted(case for case in committed if rendered.get(case) != committed[case])
    assert not differing, f"{len(differing)} case(s) render differently, e.g. {differing[:5]}"
    assert set(rendered) == set(committed)


def test_every_locked_protocol_is_still_registered() -> None:
    registered = {spec.protocol_id for spec in SPECS}
    missing = sorted(set(read_lock(ROOT).protocols) - registered)
    assert not missing, f"frozen protocols without a spec: {missing}"
