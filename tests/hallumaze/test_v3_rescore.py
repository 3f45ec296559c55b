"""A hosted hallumaze v2 run rescored with v3's scorer: every row it changes is listed, with the reason.

The run is made the way Kaggle makes it (the real kaggle-benchmarks against a loopback model),
so the rows `rescore --scorer` reads are the ones a hosted v2 run stores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main
from hallubench.tooling.hallumaze.changes import REASONS

from support.hosted import STUB_MODEL, run_like_kaggle

pytest.importorskip("kaggle_benchmarks")

ROOT = Path(__file__).resolve().parents[2]
REPLY = (Path(__file__).resolve().parent / "data" / "replies" / "sharp_s_before_final_path.txt").read_text(
    encoding="utf-8"
)
CASES = "n05-s0000-mirage-A-r0,n05-s0000-plain-A-r0,n05-s0001-mirage-A-r0"


def _reply(messages: list[dict[str, Any]]) -> str:
    return REPLY  # the honest solution of maze n05 seed 0, with four 'ß' before FINAL_PATH


@pytest.mark.slow
def test_v2_runs_rescored_by_v3_list_every_changed_row_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    run_like_kaggle(ROOT / "tasks" / "hallumaze_v2.py", runs, _reply, env={"HALLUBENCH_CASES": CASES})
    report = tmp_path / "report.json"
    assert (
        main(["rescore", str(runs), "--task", "hallumaze/v2", "--scorer", "hallumaze/v3", "--json", str(report)]) == 0
    )
    out = capsys.readouterr().out
    data = json.loads(report.read_text())
    (summary,) = data["newer_scorer"]["summary"]
    assert summary["scored"] == 3 and summary["changed_cases"] == ["n05-s0000-mirage-A-r0", "n05-s0000-plain-A-r0"]

    changes = data["benchmark"]["scorer_changes"][STUB_MODEL]
    assert (changes["from"], changes["to"], changes["rows"]) == ("hallumaze/v2", "hallumaze/v3", 3)
    verdicts = {change["case_id"]: change for change in changes["verdict_changes"]}
    assert sorted(verdicts) == ["n05-s0000-mirage-A-r0", "n05-s0000-plain-A-r0"]
    for change in verdicts.values():
        assert change["verdict"] == ["fail", "pass"]
        assert change["reasons"] == [REASONS["final_path"]]
        assert "scores.sr" in change["changed"] and "scores.final_path.starts_at_start" in change["changed"]
    # seed 1: the reply is wrong for that maze either way; the path v3 reads is still the whole one
    (other,) = [c for c in changes["changed"] if c["case_id"] == "n05-s0001-mirage-A-r0"]
    assert other["verdict"] == ["fail", "fail"] and other["reason_ids"] == ["final_path"]
    assert "scores.final_path.length" in other["changed"]
    assert "unexplained" not in {r for c in changes["changed"] for r in c["reason_ids"]}
    assert "case n05-s0000-mirage-A-r0: fail -> pass: FINAL_PATH is read where its label stands" in out
    assert "Rows the newer scorer changed, and why:" in out
