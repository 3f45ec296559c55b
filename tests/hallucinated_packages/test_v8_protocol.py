"""hallucinated-packages v8 and v9 are v7's protocol with new scorers: the same cases and byte-identical prompts."""

from __future__ import annotations

from pathlib import Path

import pytest

from hallubench.tooling.taskfile.reader import FrozenProtocol, read_task_file

ROOT = Path(__file__).resolve().parents[2]
V7 = ROOT / "tasks" / "hallucinated_packages_v7.py"


@pytest.mark.parametrize("version", ["v8", "v9"])
def test_every_prompt_of_a_newer_scorer_equals_the_frozen_v7_prompt(version: str) -> None:
    v7, v8 = read_task_file(V7), read_task_file(ROOT / "tasks" / f"hallucinated_packages_{version}.py")
    cases7, cases8 = v7.case_by_id(), v8.case_by_id()
    assert list(cases8) == list(cases7), f"{version} must hold v7's cases, in v7's order"
    assert cases8 == cases7
    with FrozenProtocol(v7) as old, FrozenProtocol(v8) as new:
        differing = [cid for cid in cases7 if new.entry.render(cases8[cid]) != old.entry.render(cases7[cid])]
    assert not differing, f"{len(differing)} prompt(s) differ from v7, e.g. {differing[:3]}"
    assert v8.payload_sha256 != v7.payload_sha256, f"{version} must be a different scorer, not a copy of v7's file"
