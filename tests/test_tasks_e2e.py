"""Each generated task file, run with plain `python tasks/<file>.py` under the real
kaggle-benchmarks against a loopback OpenAI-compatible stub (MODEL_PROXY_URL, as on Kaggle),
writes run files that `hallubench rescore` verifies byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hallubench.build import load_specs
from hallubench.cli import main

from support.openai_stub import OpenAIStub

pytest.importorskip("kaggle_benchmarks")

ROOT = Path(__file__).resolve().parents[1]

MAZE_REPLY = """STEP 1: (0,0) → E | confidence: 80% | open to the east
STEP 2: (0,1) → S | confidence: 60% | guess
BACKTRACK_COUNT: 0
HALLUCINATION_COUNT: 0
CONFIDENCE_LOG: 80, 60
FINAL_PATH: (0,0)→(0,1)→(1,1)
"""

# One canned reply script per benchmark; a benchmark without one is not exercised here.
REPLIES: dict[str, Callable[[list[dict[str, Any]]], str]] = {
    "hallumaze": lambda messages: MAZE_REPLY,
}

SPECS = [spec for spec in load_specs(ROOT) if spec.benchmark in REPLIES]


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS, ids=[spec.protocol_id for spec in SPECS])
def test_task_file_runs_under_kbench_and_rescore_verifies(spec: Any, tmp_path: Path) -> None:
    task = ROOT / spec.task_path
    with OpenAIStub(replies=REPLIES[spec.benchmark], model="stub/model-a") as stub:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MODEL_PROXY", "LLM"))}
        env.update(
            MODEL_PROXY_URL=stub.proxy_url,
            MODEL_PROXY_API_KEY="dummy",
            LLM_DEFAULT="stub/model-a",
            HALLUBENCH_LIMIT="3",
        )
        done = subprocess.run(
            [sys.executable, str(task)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(list(tmp_path.glob("*.task.json"))) == 1, "exactly one stored task"
    parents = list(tmp_path.glob(f"{spec.task_name}-*.run.json"))
    assert len(parents) == 1
    report = tmp_path / "report.json"
    assert main(["rescore", str(tmp_path), "--task", str(task), "--json", str(report)]) == 0
    summary = json.loads(report.read_text())["summary"]
    assert summary[0]["rows"] == 3 and summary[0]["prompts_verified"] == 3
