"""hallumaze v3's rows are JSON-safe as built, and its simulated baselines are played once per task file."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hallubench.hallumaze import task_v3
from hallubench.hallumaze.cases import make_case, v2_cases
from hallubench.rows import JsonSafeOutcome, json_safe, play_row
from hallubench.tooling.hallumaze import baseline_cache
from hallubench.tooling.hallumaze.baselines import AGENTS
from hallubench.tooling.hallumaze.report import rescore_report
from hallubench.tooling.taskfile.reader import read_task_file
from hallubench.tooling.testing import ScriptedConversation

ROOT = Path(__file__).resolve().parents[2]


_PIECES = st.sampled_from(
    ["STEP 1: (0,0) → [E] | confidence: 90%", "STEP 2: (0,1) → [S]", "Step 3: (9,9) -> west (0.5)", "\n", "\n",
     "CONFIDENCE_LOG: step2:0.25, step3:101", "FINAL_PATH: (0,0)→(0,1)→(99,99)", "BACKTRACK_COUNT: 7", "dead end at",
     "DEAD_END at (1,1)", "LOOP detected", "STEP 4: (0,0) → (3,3)", "STRATEGY_CHANGE", "<think>", "확신도: 30%", "ß",
     "9" * 4400, "BACKTRACK_COUNT: " + "9" * 400, "HALLUCINATION_COUNT: 1" + "0" * 320,
     "STEP 1: (0,0) → [E] | 확신도: ", "FINAL_PATH: (0,0)→(" + "8" * 5000 + ",1)",
     "CONFIDENCE_LOG: step" + "1" * 4500 + ":50"]
)  # fmt: skip


def _safe(value: Any) -> bool:
    """Only what JSON holds: str keys, lists, finite floats (never a tuple, NaN or infinity)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _safe(v) for k, v in value.items())
    if isinstance(value, list):
        return all(map(_safe, value))
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, str | int | bool)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([c for c in v2_cases() if c["size"] == 5]), st.lists(st.lists(_PIECES, max_size=30).map("".join),
                                                                             min_size=1, max_size=4))  # fmt: skip
def test_v3_rows_are_json_safe_as_built(case: dict[str, Any], replies: list[str]) -> None:
    outcome = task_v3.play(case, ScriptedConversation([*replies, ""], repeat_last=True))
    assert type(outcome) is JsonSafeOutcome
    row = play_row(
        task_v3.play, case, ScriptedConversation([*replies, ""], repeat_last=True), protocol_id="p", payload_sha256="x"
    )
    assert _safe(row)
    assert repr(json_safe(row)) == repr(row)
    assert json.loads(json.dumps(row, allow_nan=False)) == row


def test_the_row_wrapper_cleans_other_outcomes_and_takes_a_json_safe_one_as_it_is() -> None:
    def untidy(case: dict[str, Any], conv: Any) -> dict[str, Any]:
        return {"verdict": "fail", "rate": math.nan, "pair": (1, 2)}

    def declared(case: dict[str, Any], conv: Any) -> dict[str, Any]:
        return JsonSafeOutcome(verdict="fail", pair=(1, 2))  # a broken promise is kept, not hidden

    cleaned = play_row(untidy, {"id": "c"}, ScriptedConversation.of(), protocol_id="p", payload_sha256="x")
    assert cleaned["rate"] is None and cleaned["pair"] == [1, 2]
    kept = play_row(declared, {"id": "c"}, ScriptedConversation.of(), protocol_id="p", payload_sha256="x")
    assert kept["pair"] == (1, 2)
    assert type(kept) is dict


def test_the_cache_lives_in_this_sessions_folder_never_the_home_directory() -> None:
    folder = baseline_cache.cache_dir()
    assert "HALLUBENCH_CACHE_DIR" in os.environ or folder == Path(os.environ["XDG_CACHE_HOME"]) / "hallubench"
    assert not folder.resolve().is_relative_to((Path.home() / ".cache").resolve())


def test_baselines_are_played_once_per_task_file_then_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HALLUBENCH_CACHE_DIR", str(tmp_path))
    task = read_task_file(ROOT / "tasks" / "hallumaze_v3.py")
    wanted = [task.cases[0]["id"], task.cases[-1]["id"]]
    first = baseline_cache.task_baselines(task, wanted)
    path = baseline_cache.cache_path(task)
    assert path.parent == tmp_path and path.is_file()
    assert sorted(first) == sorted(f"baseline:{a}" for a in AGENTS)
    assert [row["case_id"] for row in first["baseline:bfs_oracle"]] == wanted
    assert all(row["protocol"] == "hallumaze/v3" and row["payload_sha256"] == task.payload_sha256
               for rows in first.values() for row in rows)  # fmt: skip
    # the second rescore reads the file: an edit made to it shows (a recomputation would undo it)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["rows"]["baseline:bfs_oracle"][0]["detail"] = "read from the cache"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert baseline_cache.task_baselines(task, wanted)["baseline:bfs_oracle"][0]["detail"] == "read from the cache"
    # a damaged file is recomputed and rewritten, never trusted
    path.write_text('{"format": 1, "payload_sha256": "' + task.payload_sha256 + '", "rows": {"baseline:x": []}}')
    again = baseline_cache.task_baselines(task, wanted)
    assert again == first
    assert (
        json.loads(path.read_text(encoding="utf-8"))["rows"]["baseline:bfs_oracle"][0]
        == first["baseline:bfs_oracle"][0]
    )


def test_each_task_file_gets_its_own_scorers_baselines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A v2 report ranks models beside baselines scored by v2, a v3 report beside v3's (their BRS differ)."""
    monkeypatch.setenv("HALLUBENCH_CACHE_DIR", str(tmp_path))
    v2, v3 = (read_task_file(ROOT / "tasks" / f"hallumaze_v{n}.py") for n in (2, 3))
    assert baseline_cache.cache_path(v2) != baseline_cache.cache_path(v3)
    case = make_case(5, 1, mirage=False)
    old = baseline_cache.task_baselines(v2, [case["id"]])["baseline:random_walk"][0]
    new = baseline_cache.task_baselines(v3, [case["id"]])["baseline:random_walk"][0]
    assert old["protocol"] == "hallumaze/v2" and new["protocol"] == "hallumaze/v3"
    assert old["scores"]["lures"] == new["scores"]["lures"]
    lures = new["scores"]["lures"]
    assert new["scores"]["brs"] == (round(lures["resists"] / lures["exposures"], 9) if lures["exposures"] else None)
    assert old["scores"]["hc"] == 0 and old["scores"]["brs"] == 1.0  # v1.1's formula: no wall crossed, BRS 1


def test_the_report_takes_its_baselines_from_the_task_files_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HALLUBENCH_CACHE_DIR", str(tmp_path))
    task = read_task_file(ROOT / "tasks" / "hallumaze_v3.py")
    cases = task.cases[:4]
    step = "STEP 1: (0,0) → [E] | confidence: 50%"
    rows = [
        play_row(
            task_v3.play,
            case,
            ScriptedConversation([step, ""], repeat_last=True),
            protocol_id="hallumaze/v3",
            payload_sha256=task.payload_sha256,
        )
        for case in cases
    ]
    report = rescore_report({"model": rows}, task=task, resamples=50)
    assert sorted(report["json"]["baselines"]) == sorted(f"baseline:{a}" for a in AGENTS)
    assert baseline_cache.cache_path(task).is_file()
    table = {line["model"]: line for line in report["json"]["table"]["rows"]}
    assert table["baseline:bfs_oracle"]["n_trials"] == 4 and table["baseline:bfs_oracle"]["sr"] == 1.0
