"""`hallubench plan` and the drift check, end to end on real run files (hallumaze under kaggle-benchmarks).

A two-model pilot is planned by the command, and the plan is then checked by simulation: experiments of the
planned size are drawn from the pilot's own per-case differences (shifted to the difference asked for) and
tested as the leaderboard tests them; the share that separates the pair must be the planned power. Drift: one
slug that got worse between two runs on different days is flagged, with the dates; two copies of one run,
however they are dated, never are.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hallumaze.walkers import solver

from hallubench.tooling.cli import main
from hallubench.tooling.statistics.paired import paired_arrays

from support.hosted import run_like_kaggle
from support.run_copies import another_run

pytest.importorskip("kaggle_benchmarks")
pytestmark = [pytest.mark.kbench, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
TASK = ROOT / "tasks" / "hallumaze_v3.py"
CASES = 24
LATER = "2027-01-15"


def _run(out: Path, name: str, skill: float) -> Path:
    run_like_kaggle(TASK, out, solver(name, skill), env={"HALLUBENCH_LIMIT": str(CASES)}, model=name)
    return out


def _redate(folder: Path, day: str) -> None:
    """Every start time of the run files in `folder` moved to `day` (a later run of the same slug)."""
    for path in folder.glob("*.run.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        _set_day(data, day)
        path.write_text(json.dumps(data), encoding="utf-8")


def _set_day(node: Any, day: str) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("startTime", "endTime") and isinstance(value, str) and len(value) > 10:
                node[key] = day + value[10:]
            else:
                _set_day(value, day)
    elif isinstance(node, list):
        for item in node:
            _set_day(item, day)


@pytest.fixture(scope="module")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("pilot")
    _run(base / "strong", "stub/strong", 0.85)
    _run(base / "weak", "stub/weak", 0.35)
    _run(base / "mid", "stub/mid", 0.6)  # a third model, left out by --pair
    return base


def _scores(result: Path) -> dict[str, dict[str, float]]:
    data = json.loads(result.read_text(encoding="utf-8"))
    found: dict[str, dict[str, float]] = {}
    for model, summary in data["models"].items():
        for row in summary["rows"]:
            local = row.get("row") or {}
            score = (local.get("scores") or {}).get("score")
            if row.get("case_id") is not None and isinstance(score, (int, float)):
                found.setdefault(model, {})[str(row["case_id"])] = float(score)
    return found


def test_plan_gives_a_detectable_difference_and_a_size_that_simulation_confirms(pilot: Path, tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    code = main(["plan", str(pilot), "--task", "hallumaze/v3", "--detect", "0.15", "--json", str(out), "--quiet",
                 "--pair", "stub/strong", "stub/weak"])  # fmt: skip
    assert code == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["rows"] == {"stub/strong": CASES, "stub/weak": CASES} and data["rows_left_out"] == 0
    (found,) = data["plans"]
    assert {found["first"], found["second"]} == {"stub/strong", "stub/weak"}
    assert found["cases"] == CASES and 0 < found["mdd"] < 1
    (option,) = [o for o in found["options"] if o["repeats"] == 1]
    needed = option["cases"]
    assert needed is not None and needed > 2

    # The pilot's own per-case differences, shifted to the difference planned for, drawn at the planned size.
    result = tmp_path / "pilot.json"
    assert main(["rescore", str(pilot / "strong"), str(pilot / "weak"), "--task", "hallumaze/v3", "--json",
                 str(result), "--quiet"]) == 0  # fmt: skip
    scores = _scores(result)
    first, second = scores[found["first"]], scores[found["second"]]
    diffs = np.array([first[case] - second[case] for case in sorted(first) if case in second])
    assert len(diffs) == CASES
    rng = np.random.default_rng(7)
    experiments = 4000
    drawn = rng.choice(diffs - diffs.mean() + 0.15, size=(experiments, needed), replace=True)
    ones = np.ones_like(drawn)
    simulated = float(np.mean(paired_arrays(ones, drawn, ones, np.zeros_like(drawn)).p <= 0.05))
    # The plan promises 80 %; resampling 24 pilot cases is rougher than the model behind it, so allow 8 points.
    assert abs(simulated - 0.8) <= 0.08, (simulated, needed, found)

    # Half the planned cases fall clearly short: the plan is not generous by accident.
    half = rng.choice(diffs - diffs.mean() + 0.15, size=(experiments, max(needed // 2, 2)), replace=True)
    ones = np.ones_like(half)
    short = float(np.mean(paired_arrays(ones, half, ones, np.zeros_like(half)).p <= 0.05))
    assert short < simulated - 0.1


def test_plan_with_one_model_plans_against_a_like_model(pilot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["plan", str(pilot / "strong"), "--task", "hallumaze/v3", "--detect", "0.1", "--quiet"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "stub/strong vs a like model" in printed and "minimum detectable difference" in printed
    assert "repeat(s) per case:" in printed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--detect", "1.5"], "--detect must lie in (0, 1]"),
        (["--power", "0.01"], "--power must lie between --alpha and 1"),
        (["--pair", "stub/strong", "nobody"], "no verified rows of nobody"),
    ],
)
def test_plan_says_what_is_wrong_with_its_input(
    pilot: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", str(pilot), "--task", "hallumaze/v3", "--quiet", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_slug_that_changed_between_runs_is_flagged_with_its_dates(
    tmp_path_factory: pytest.TempPathFactory, pilot: Path
) -> None:
    base = tmp_path_factory.mktemp("drift")
    shutil.copytree(pilot / "strong", base / "before")
    _run(base / "after", "stub/strong-later", 0.2)  # the same slug, answering like another model
    for path in (base / "after").glob("*.run.json"):
        text = path.read_text(encoding="utf-8").replace("stub/strong-later", "stub/strong")
        path.write_text(text, encoding="utf-8")
    _redate(base / "after", LATER)
    result, page = base / "result.json", base / "report.html"
    code = main(["rescore", str(base / "before"), str(base / "after"), "--task", "hallumaze/v3", "--json",
                 str(result), "--html", str(page), "--quiet"])  # fmt: skip
    assert code == 0
    drift = json.loads(result.read_text(encoding="utf-8"))["drift"]
    (found,) = drift["runs"]
    assert found["model"] == "stub/strong" and found["flagged"]
    assert found["later_run"] == LATER and found["earlier_run"] < LATER
    assert "same slug, different behaviour" in found["text"]
    metric, *others = found["metrics"]  # the headline first, then the other metrics the benchmark declares
    assert metric["metric"] == "hallumaze score" and [m["metric"] for m in others] == ["SR", "MEI"]
    assert metric["change"] < 0 and metric["high"] < 0 and metric["cases"] == CASES and metric["flagged"]
    success = others[0]
    assert success["change"] < 0 and success["earlier"] > success["later"]

    html = page.read_text(encoding="utf-8")
    board = html[html.index('<section id="leaderboard">') : html.index('<section id="rows">')]
    assert board.index('id="saturation"') < board.index("<table"), "the verdict stands above the board"
    assert '<svg class="ranks"' in board and '<figure class="power" data-pair="0">' in board
    drift_table = board[board.index('id="drift"') :]
    assert "stub/strong" in drift_table and LATER in drift_table and "same slug, different behaviour" in drift_table


def test_two_copies_of_one_run_never_drift(tmp_path_factory: pytest.TempPathFactory, pilot: Path) -> None:
    base = tmp_path_factory.mktemp("copies")
    shutil.copytree(pilot / "strong", base / "first")
    (base / "copy").mkdir()
    for path in (pilot / "strong").glob("*.run.json"):  # the same run as another one, a month later
        data = another_run(json.loads(path.read_text(encoding="utf-8")), 1)
        _set_day(data, LATER)
        (base / "copy" / path.name).write_text(json.dumps(data), encoding="utf-8")
    result = base / "result.json"
    code = main(["rescore", str(base / "first"), str(base / "copy"), "--task", "hallumaze/v3", "--json",
                 str(result), "--quiet"])  # fmt: skip
    assert code == 0
    drift = json.loads(result.read_text(encoding="utf-8"))["drift"]
    (found,) = drift["runs"]
    assert not found["flagged"] and len(found["metrics"]) == 3
    assert all(metric["change"] == 0.0 and not metric["flagged"] for metric in found["metrics"])
