"""Hosted-style runs of the frozen misled-tests/v1 task file, rescored with `--scorer misled-tests/v2`.

The model answers every prompt with one test, `assert os.path.basename(os.getcwd()) != "buggy"`.
v1's executor ran the buggy version in a folder named `buggy`, so it classified that test effective
and the rows passed; v2 runs both versions in the same path, so the test passes on both and the rows
fail. The rescore must verify every v1 row, score it again with v2, and list each changed verdict;
and `--jobs 2` must give the report `--jobs 1` gives.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main

from support.hosted import run_like_kaggle

pytest.importorskip("kaggle_benchmarks")

ROOT = Path(__file__).resolve().parents[2]
CASES = ["p030-buggy_code-think_off", "p030-fixed_code-think_off", "p031-signature_only-think_off"]
CWD_TEST = "```python\nimport os\n\n\ndef test_a():\n    assert os.path.basename(os.getcwd()) != 'buggy'\n```\n"


@pytest.fixture(scope="module")
def v1_runs(tmp_path_factory: pytest.TempPathFactory, humanevalpack_path: Path) -> Path:
    runs = tmp_path_factory.mktemp("misled-v1-runs")
    run_like_kaggle(
        ROOT / "tasks" / "misled_tests_v1.py",
        runs,
        lambda messages: CWD_TEST,
        env={"HALLUBENCH_CASES": ",".join(CASES)},
    )
    return runs


def _rescore(runs: Path, out: Path, jobs: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, dict[str, Any]]:
    report = out / f"report-{jobs}.json"
    scorer = ["--task", "misled-tests/v1", "--scorer", "misled-tests/v2"]
    code = main(["rescore", str(runs), *scorer, "--jobs", jobs, "--json", str(report)])
    out = capsys.readouterr().out.replace(str(report), "REPORT")  # the text names the file it wrote
    return code, out, json.loads(report.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_v1_rows_rescored_by_v2_list_the_changed_verdicts(
    v1_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, data = _rescore(v1_runs, tmp_path, "1", capsys)
    assert code == 0, out
    assert "every prompt verified and every score agrees" in out and "scored again with misled-tests/v2" in out
    (model,) = data["models"]
    rows = {row["case_id"]: row for row in data["models"][model]["rows"]}
    assert sorted(rows) == sorted(CASES)
    assert {row["row"]["verdict"] for row in rows.values()} == {"pass"}  # v1: the test was "effective"
    assert {row["newer_row"]["verdict"] for row in rows.values()} == {"fail"}
    assert all(row["newer_row"]["scores"]["both-pass"] == 1 for row in rows.values())
    (summary,) = data["newer_scorer"]["summary"]
    assert sorted(summary["changed_cases"]) == sorted(CASES) and summary["verdicts_changed"] == 3


VOLATILE = frozenset({"version_order", "isolation", "protocol_cpu_s", "buggy_detail", "fixed_detail"})


def _without_chance(node: Any) -> Any:
    """The report without what depends on the run rather than on the rows (random order, paths, CPU time)."""
    if isinstance(node, dict):
        return {key: _without_chance(item) for key, item in node.items() if key not in VOLATILE}
    if isinstance(node, list):
        return [_without_chance(item) for item in node]
    return node


@pytest.mark.slow
def test_two_jobs_give_the_report_of_one(v1_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = _rescore(v1_runs, tmp_path, "1", capsys)
    two = _rescore(v1_runs, tmp_path, "2", capsys)
    assert one[0] == two[0] == 0
    assert one[1] == two[1]
    assert _without_chance(two[2]) == _without_chance(one[2])
