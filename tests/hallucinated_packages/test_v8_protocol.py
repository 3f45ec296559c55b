"""hallucinated-packages/v8 is v7's protocol with a new scorer: the same cases and byte-identical prompts."""

from __future__ import annotations

from pathlib import Path

from hallubench.tooling.taskfile.reader import FrozenProtocol, read_task_file

ROOT = Path(__file__).resolve().parents[2]
V7 = ROOT / "tasks" / "hallucinated_packages_v7.py"
V8 = ROOT / "tasks" / "hallucinated_packages_v8.py"


def test_every_v8_prompt_equals_the_frozen_v7_prompt() -> None:
    v7, v8 = read_task_file(V7), read_task_file(V8)
    cases7, cases8 = v7.case_by_id(), v8.case_by_id()
    assert list(cases8) == list(cases7), "v8 must hold v7's cases, in v7's order"
    assert cases8 == cases7
    with FrozenProtocol(v7) as old, FrozenProtocol(v8) as new:
        differing = [cid for cid in cases7 if new.entry.render(cases8[cid]) != old.entry.render(cases7[cid])]
    assert not differing, f"{len(differing)} prompt(s) differ from v7, e.g. {differing[:3]}"
    assert v8.payload_sha256 != v7.payload_sha256, "v8 must be a different scorer, not a copy of the v7 file"
