"""Each generated task file, run with plain `python tasks/<file>.py` under the real
kaggle-benchmarks against a loopback OpenAI-compatible stub (MODEL_PROXY_URL, as on Kaggle),
writes run files that `hallubench rescore` verifies byte for byte."""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.build import load_specs
from hallubench.tooling.cli import main

from support.hosted import run_like_kaggle
from support.registry_urls import registry_env

pytest.importorskip("kaggle_benchmarks")

ROOT = Path(__file__).resolve().parents[1]

MAZE_REPLY = """STEP 1: (0,0) → E | confidence: 80% | open to the east
STEP 2: (0,1) → S | confidence: 60% | guess
BACKTRACK_COUNT: 0
HALLUCINATION_COUNT: 0
CONFIDENCE_LOG: 80, 60
FINAL_PATH: (0,0)→(0,1)→(1,1)
"""

PACKAGES_REPLY = """Use requests with a retry loop:

```python
import requests
import yaml

def fetch(url):
    return requests.get(url)
```
"""


def _misled_reply(messages: list[dict[str, Any]]) -> str:
    prompt = messages[-1]["content"]
    match = re.search(r"from solution import (\w+)", prompt)
    if match is None:  # stage 1 of the model-spec condition asks for a docstring
        return '"""Return the result the function is meant to compute."""'
    name = match.group(1)
    return f"```python\nfrom solution import {name}\n\n\ndef test_callable():\n    assert callable({name})\n```\n"


# One canned reply script per benchmark; a benchmark without one is not exercised here.
REPLIES: dict[str, Callable[[list[dict[str, Any]]], str]] = {
    "hallumaze": lambda messages: MAZE_REPLY,
    "hallucinated-packages": lambda messages: PACKAGES_REPLY,
    "misled-tests": _misled_reply,
    "misled-tests-thinking": _misled_reply,
}


@contextlib.contextmanager
def _environment(benchmark: str) -> Iterator[dict[str, str]]:
    """What a benchmark needs besides the model: a loopback registry for hallucinated-packages."""
    if benchmark != "hallucinated-packages":
        yield {}
        return
    sys.path.insert(0, str(Path(__file__).parent / "packages"))
    import tempfile

    from registry_server import FakeRegistry
    from test_checker import populate

    with tempfile.TemporaryDirectory() as folder, FakeRegistry(Path(folder)) as registry:
        populate(registry)
        yield registry_env(registry.base_url)


SPECS = [spec for spec in load_specs(ROOT) if spec.benchmark in REPLIES]


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS, ids=[spec.protocol_id for spec in SPECS])
def test_task_file_runs_under_kbench_and_rescore_verifies(
    spec: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, require_benchmark_data: Callable[[str], None]
) -> None:
    require_benchmark_data(spec.benchmark)
    task = ROOT / spec.task_path
    with _environment(spec.benchmark) as extra:
        run_like_kaggle(task, tmp_path, REPLIES[spec.benchmark], env={"HALLUBENCH_LIMIT": "3", **extra})
        assert len(list(tmp_path.glob("*.task.json"))) == 1, "exactly one stored task"
        parents = list(tmp_path.glob(f"{spec.task_name}-*.run.json"))
        assert len(parents) == 1
        report = tmp_path / "report.json"
        for name, value in extra.items():  # rescoring hallucinated-packages asks the (same) registries again
            monkeypatch.setenv(name, value)
        assert main(["rescore", str(tmp_path), "--task", str(task), "--json", str(report)]) == 0
    data = json.loads(report.read_text())
    assert data["benchmark"], "the benchmark's own report section is missing"
    summary = data["summary"]
    assert summary[0]["rows"] == 3 and summary[0]["prompts_verified"] == 3
    assert summary[0]["scores_agree"] == 3
