"""The entry module: golden prompts, determinism across processes, embedding, play and aggregate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from hallubench.embedding import EmbeddedModules
from hallubench.hallumaze import task_v2
from hallubench.hallumaze.cases import make_case, v2_cases
from hallubench.hashing import sha256_text
from hallubench.rows import play_row
from hallubench.tooling.taskfile.closure import module_closure
from hallubench.tooling.testing import ScriptedConversation

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "hallumaze" / "data"
HASHES = json.loads((DATA / "prompt_hashes.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case_id", sorted(HASHES))
def test_golden_prompt_hashes(case_id: str) -> None:
    entry = HASHES[case_id]
    assert sha256_text(task_v2.render(entry["case"])) == entry["sha256"]


def test_golden_prompt_text() -> None:
    expected = (DATA / "prompt_n05-s0000-mirage-A-r0.txt").read_text(encoding="utf-8")
    assert task_v2.render(make_case(5, 0)) == expected


def test_render_is_identical_across_processes() -> None:
    code = (
        "import sys; from hallubench.hallumaze.task_v2 import render; from hallubench.hallumaze.cases import v2_cases;"
        "sys.stdout.buffer.write('\\x00'.join(render(c) for c in v2_cases()[::17]).encode())"
    )
    blobs = set()
    for hash_seed in ("1", "999"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        blobs.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True).stdout)
    assert len(blobs) == 1


def test_case_set_is_valid_paired_and_named_for_files() -> None:
    cases = v2_cases()
    assert 200 <= len(cases) <= 400
    ids = [c["id"] for c in cases]
    assert len(set(ids)) == len(ids)
    single = {(c["size"], c["seed"], c["mirage"]) for c in cases if c["mode"] == "single" and c["confidence"]}
    assert all((n, s, not m) in single for n, s, m in single), "every mirage trial has its mirage-off twin"
    assert {c["group"] for c in cases if c["mode"] == "interactive"} == {"A", "B", "C"}
    assert {c["size"] for c in cases} == {5, 7, 9, 11}
    for case in cases:
        task_v2.render(case)


def test_mirage_off_hides_hints_but_keeps_the_maze() -> None:
    on, off = task_v2.render(make_case(7, 2)), task_v2.render(make_case(7, 2, mirage=False))
    assert "⚑" in on and "⚑" not in off
    strip = [line.split("  ⚑")[0] for line in on.splitlines()]
    assert strip == off.splitlines()


def test_entry_module_embeds_and_renders_the_same_bytes() -> None:
    paths = module_closure(ROOT / "shared", PurePosixPath("hallumaze/task_v2.py"))
    sources = {str(p): (ROOT / "shared" / p).read_text(encoding="utf-8") for p in paths}
    assert "hallumaze/report.py" not in sources and "hallumaze/draw.py" not in sources
    finder = EmbeddedModules("frozen_maze_test", sources)
    try:
        embedded = finder.load("hallumaze.task_v2")
        case = make_case(9, 4)
        assert embedded.render(case) == task_v2.render(case)
    finally:
        finder.uninstall()


def test_play_row_scores_a_reply_and_aggregate_keeps_errors_in_denominators() -> None:
    reply = (DATA / "replies" / "honest_solver.txt").read_text(encoding="utf-8")
    good = play_row(
        task_v2.play, make_case(5, 0), ScriptedConversation.of(reply), protocol_id="hallumaze/v2", payload_sha256="x"
    )
    assert good["verdict"] == "pass" and good["scores"]["sr"] == 1.0
    assert good["prompt_sha256"] == [sha256_text(task_v2.render(make_case(5, 0)))]

    bad = play_row(
        task_v2.play,
        make_case(5, 1),
        ScriptedConversation.always(ConnectionError("proxy down")),
        protocol_id="hallumaze/v2",
        payload_sha256="x",
    )
    assert bad["verdict"] == "error"
    summary = task_v2.aggregate([good, bad])
    assert summary["metrics"]["n_trials"] == 2 and summary["metrics"]["n_error"] == 1
    assert summary["headline"] == pytest.approx(good["scores"]["score"] / 2)
    json.dumps(summary, allow_nan=False)


def test_bad_case_becomes_an_error_row_not_a_crash() -> None:
    row = play_row(
        task_v2.play, {"id": "x", "size": 1, "seed": 0}, ScriptedConversation.of(), protocol_id="p", payload_sha256="x"
    )
    assert row["verdict"] == "error" and "size" in row["detail"]
    with pytest.raises(ValueError, match="id"):
        task_v2.render({"id": "bad id/with slash", "size": 5, "seed": 0})


def test_rows_are_json_and_rescore_identically() -> None:
    reply = (DATA / "replies" / "honest_detour.txt").read_text(encoding="utf-8")
    rows: list[dict[str, Any]] = [
        play_row(task_v2.play, make_case(5, 0), ScriptedConversation.of(reply), protocol_id="p", payload_sha256="x")
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
