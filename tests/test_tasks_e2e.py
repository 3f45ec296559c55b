"""Each generated task file, run with plain `python tasks/<file>.py` under the real
kaggle-benchmarks against a loopback OpenAI-compatible stub (MODEL_PROXY_URL, as on Kaggle),
writes run files that `hallubench rescore` verifies byte for byte."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main
from hallubench.tooling.specs import load_registry

from support.hosted import run_like_kaggle
from support.services import canned_reply, environment

pytest.importorskip("kaggle_benchmarks")

ROOT = Path(__file__).resolve().parents[1]

REGISTRY = load_registry(ROOT)
# A benchmark is run end to end when its tests folder gives a canned reply (tests/<package>/services.py).
REPLIES = {b.name: reply for b in REGISTRY.benchmarks if (reply := canned_reply(REGISTRY, b.name)) is not None}
SPECS = [spec for spec in REGISTRY.protocols if spec.benchmark in REPLIES]


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS, ids=[spec.protocol_id for spec in SPECS])
def test_task_file_runs_under_kbench_and_rescore_verifies(
    spec: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, require_benchmark_data: Callable[[str], None]
) -> None:
    require_benchmark_data(spec.benchmark)
    task = ROOT / spec.task_path
    with environment(REGISTRY, spec) as extra:
        run_like_kaggle(task, tmp_path, REPLIES[spec.benchmark], env={"HALLUBENCH_LIMIT": "3", **extra})
        assert len(list(tmp_path.glob("*.task.json"))) == 1, "exactly one stored task"
        parents = list(tmp_path.glob(f"{spec.task_name}-*.run.json"))
        assert len(parents) == 1
        report = tmp_path / "report.json"
        for name, value in extra.items():  # the rescore asks the same services again
            monkeypatch.setenv(name, value)
        assert main(["rescore", str(tmp_path), "--task", str(task), "--json", str(report)]) == 0
    data = json.loads(report.read_text())
    assert data["benchmark"], "the benchmark's own report section is missing"
    summary = data["summary"]
    assert summary[0]["rows"] == 3 and summary[0]["prompts_verified"] == 3
    assert summary[0]["scores_agree"] == 3
