"""hallumaze v2, superseded by v3, as its frozen task file has it: golden prompts, determinism across processes,
play and aggregate. Never today's `shared/hallumaze/task_v2.py`, which imports today's scorer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hallubench.hallumaze.cases import make_case, v2_cases
from hallubench.hashing import sha256_text
from hallubench.tooling.taskfile.reader import FrozenProtocol
from hallubench.tooling.testing import ScriptedConversation

from support.frozen import frozen, task_path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "hallumaze" / "data"
HASHES = json.loads((DATA / "prompt_hashes.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def v2() -> Iterator[FrozenProtocol]:
    """v2's entry (`.entry`) and row helpers (`.rows`) from its frozen task file."""
    with frozen("hallumaze/v2") as loaded:
        yield loaded


@pytest.mark.parametrize("case_id", sorted(HASHES))
def test_golden_prompt_hashes(case_id: str, v2: FrozenProtocol) -> None:
    entry = HASHES[case_id]
    assert sha256_text(v2.entry.render(entry["case"])) == entry["sha256"]


def test_golden_prompt_text(v2: FrozenProtocol) -> None:
    expected = (DATA / "prompt_n05-s0000-mirage-A-r0.txt").read_text(encoding="utf-8")
    assert v2.entry.render(make_case(5, 0)) == expected


def test_render_is_identical_across_processes() -> None:
    code = (
        "import sys; from pathlib import Path; from hallubench.tooling.taskfile.reader import FrozenProtocol, "
        f"read_task_file; v2 = FrozenProtocol(read_task_file(Path({str(task_path('hallumaze/v2'))!r})));"
        "sys.stdout.buffer.write('\\x00'.join(v2.entry.render(c) for c in v2.task.cases[::17]).encode())"
    )
    blobs = set()
    for hash_seed in ("1", "999"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        blobs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True).stdout)
    assert len(blobs) == 1


def test_case_set_is_valid_paired_and_named_for_files(v2: FrozenProtocol) -> None:
    cases = v2.task.cases
    assert cases == v2_cases(), "today's factory still gives the frozen case set (v3 uses it)"
    assert 200 <= len(cases) <= 400
    ids = [c["id"] for c in cases]
    assert len(set(ids)) == len(ids)
    single = {(c["size"], c["seed"], c["mirage"]) for c in cases if c["mode"] == "single" and c["confidence"]}
    assert all((n, s, not m) in single for n, s, m in single), "every mirage trial has its mirage-off twin"
    assert {c["group"] for c in cases if c["mode"] == "interactive"} == {"A", "B", "C"}
    assert {c["size"] for c in cases} == {5, 7, 9, 11}
    for case in cases:
        v2.entry.render(case)


def test_mirage_off_hides_hints_but_keeps_the_maze(v2: FrozenProtocol) -> None:
    on, off = v2.entry.render(make_case(7, 2)), v2.entry.render(make_case(7, 2, mirage=False))
    assert "⚑" in on and "⚑" not in off
    strip = [line.split("  ⚑")[0] for line in on.splitlines()]
    assert strip == off.splitlines()


def test_play_row_scores_a_reply_and_aggregate_keeps_errors_in_denominators(v2: FrozenProtocol) -> None:
    reply = (DATA / "replies" / "honest_solver.txt").read_text(encoding="utf-8")
    good = v2.rows.play_row(
        v2.entry.play, make_case(5, 0), ScriptedConversation.of(reply), protocol_id="hallumaze/v2", payload_sha256="x"
    )
    assert good["verdict"] == "pass" and good["scores"]["sr"] == 1.0
    assert good["prompt_sha256"] == [sha256_text(v2.entry.render(make_case(5, 0)))]

    bad = v2.rows.play_row(
        v2.entry.play,
        make_case(5, 1),
        ScriptedConversation.always(ConnectionError("proxy down")),
        protocol_id="hallumaze/v2",
        payload_sha256="x",
    )
    assert bad["verdict"] == "error"
    summary = v2.entry.aggregate([good, bad])
    assert summary["metrics"]["n_trials"] == 2 and summary["metrics"]["n_error"] == 1
    assert summary["headline"] == pytest.approx(good["scores"]["score"] / 2)
    json.dumps(summary, allow_nan=False)


def test_bad_case_becomes_an_error_row_not_a_crash(v2: FrozenProtocol) -> None:
    row = v2.rows.play_row(
        v2.entry.play, {"id": "x", "size": 1, "seed": 0}, ScriptedConversation.of(), protocol_id="p", payload_sha256="x"
    )
    assert row["verdict"] == "error" and "size" in row["detail"]
    with pytest.raises(ValueError, match="id"):
        v2.entry.render({"id": "bad id/with slash", "size": 5, "seed": 0})


def test_rows_are_json_and_rescore_identically(v2: FrozenProtocol) -> None:
    reply = (DATA / "replies" / "honest_detour.txt").read_text(encoding="utf-8")
    rows: list[dict[str, Any]] = [
        v2.rows.play_row(
            v2.entry.play, make_case(5, 0), ScriptedConversation.of(reply), protocol_id="p", payload_sha256="x"
        )
        for _ in range(2)
    ]
    assert json.dumps(rows[0], sort_keys=True, allow_nan=False) == json.dumps(rows[1], sort_keys=True, allow_nan=False)


def test_rows_survive_a_json_round_trip_unchanged() -> None:
    """Hosted results come back through JSON; a tuple or NaN in a row would break the comparison."""
    from hallubench.tooling.hallumaze.baselines import baseline_rows

    produced = baseline_rows([make_case(5, 3), make_case(5, 3, group="B", mode="interactive")])
    for rows in produced.values():
        for row in rows:
            assert json.loads(json.dumps(row, allow_nan=False)) == row
