"""Hosted-style runs of the frozen misled-tests/v2 task file, rescored with `--scorer misled-tests/v3`.

The model answers with one unittest test marked `expectedFailure` that checks the right behaviour: it fails
on the buggy program (an expected failure) and passes on the fixed one (an unexpected success). v2 called the
test method itself and counted a pass on fixed and a failure on buggy: effective, a passing row. pytest calls an
unexpected success a failure and an expected failure no failure at all, and v3 takes pytest's verdict: both
versions fail to pass, the row fails. The rescore must verify every v2 row (in the jail), score it again with v3,
and list each changed verdict; and a jail missing a layer must refuse before anything runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main
from hallubench.tooling.jail.policy import SIMULATE_ENV

from support.hosted import run_like_kaggle

pytest.importorskip("kaggle_benchmarks")

ROOT = Path(__file__).resolve().parents[2]
CASES = ["p030-buggy_code-think_off", "p030-fixed_code-think_off"]
EXPECTED_FAILURE_TEST = (
    "```python\nimport unittest\n\nfrom solution import get_positive\n\n\nclass TestPositive(unittest.TestCase):\n"
    "    @unittest.expectedFailure\n    def test_keeps_positive(self):\n"
    "        self.assertEqual(get_positive([1, -1]), [1])\n```\n"
)


@pytest.fixture(scope="module")
def v2_runs(tmp_path_factory: pytest.TempPathFactory, humanevalpack_path: Path) -> Path:
    runs = tmp_path_factory.mktemp("misled-v2-runs")
    env = {"HALLUBENCH_CASES": ",".join(CASES), "HALLUBENCH_HUMANEVALPACK": str(humanevalpack_path)}
    run_like_kaggle(ROOT / "tasks" / "misled_tests_v2.py", runs, lambda messages: EXPECTED_FAILURE_TEST, env=env)
    return runs


def _rescore(runs: Path, out: Path, *extra: str) -> tuple[int, dict[str, Any] | None]:
    report = out / "report.json"
    code = main(
        [
            "rescore",
            str(runs),
            "--task",
            "misled-tests/v2",
            "--scorer",
            "misled-tests/v3",
            "--json",
            str(report),
            *extra,
        ]
    )
    return code, json.loads(report.read_text(encoding="utf-8")) if report.exists() else None


@pytest.mark.slow
def test_v2_rows_rescored_by_v3_list_the_changed_verdicts(
    v2_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], data_env: Path
) -> None:
    code, data = _rescore(v2_runs, tmp_path)
    out = capsys.readouterr().out
    assert code == 0, out
    assert data is not None and "scored again with misled-tests/v3" in out
    (model,) = data["models"]
    rows = {row["case_id"]: row for row in data["models"][model]["rows"]}
    assert sorted(rows) == sorted(CASES)
    assert {row["row"]["verdict"] for row in rows.values()} == {"pass"}  # v2: effective
    assert {row["newer_row"]["verdict"] for row in rows.values()} == {"fail"}
    for row in rows.values():
        (test,) = row["newer_row"]["classification"]["tests"]
        assert (test["buggy_kind"], test["fixed_kind"]) == ("XFailed", "unexpected success")
        assert row["jail"]["missing"] == []
    (summary,) = data["newer_scorer"]["summary"]
    assert sorted(summary["changed_cases"]) == sorted(CASES) and summary["verdicts_changed"] == 2


@pytest.mark.slow
def test_a_jail_without_a_layer_refuses_before_any_row(
    v2_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, data_env: Path
) -> None:
    monkeypatch.setenv(SIMULATE_ENV, "seccomp")
    from hallubench.tooling.jail import probe

    probe._probe.cache_clear()
    code, data = _rescore(v2_runs, tmp_path)
    captured = capsys.readouterr()
    assert code == 7 and data is None
    assert "lack seccomp" in captured.err and "--jail-without seccomp" in captured.err
    code, data = _rescore(v2_runs, tmp_path, "--jail-without", "seccomp")
    assert code == 0 and data is not None
    rows = [row for model in data["models"].values() for row in model["rows"]]
    assert rows and all(row["jail"]["missing"] == ["seccomp"] for row in rows)
    probe._probe.cache_clear()
