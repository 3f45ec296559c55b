"""`rescore --task hallucinated-packages/v7 --scorer hallucinated-packages/v8` on a run made under v7.

The run is made the way Kaggle makes it (the real kaggle-benchmarks, a loopback model stub, the
loopback registry) with a reply that calls `numpy.fake_vectorize_all` on a numpy-shaped wheel:
the frozen v7 gate cannot decide it (dynamic globals, a 3.12-syntax stub), v8 reports it missing,
and the rescore lists that row as changed, with the reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from numpy_shape import add_numpy_like
from registry_server import FakeRegistry
from test_checker import populate

from hallubench.tooling.cli import main

from support.hosted import run_like_kaggle

pytest.importorskip("kaggle_benchmarks")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
V7 = ROOT / "tasks" / "hallucinated_packages_v7.py"
V8 = ROOT / "tasks" / "hallucinated_packages_v8.py"
REPLY = """Vectorise the scoring with numpy:

```bash
pip install numpy
```

```python
import numpy as np

def score(values):
    return np.fake_vectorize_all(np.array(values))
```
"""


def _reply(messages: list[dict[str, Any]]) -> str:
    return REPLY


def test_a_v7_run_rescored_with_v8_reports_numpy_fake_vectorize_all_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    with FakeRegistry(tmp_path / "registry") as registry:
        populate(registry)
        add_numpy_like(registry)
        env = {"HALLUBENCH_PYPI_URL": registry.base_url, "HALLUBENCH_NPM_URL": f"{registry.base_url}/npm"}
        run_like_kaggle(V7, runs, _reply, env={"HALLUBENCH_LIMIT": "2", **env})
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        report = tmp_path / "report.json"
        v8_registry = ["--option", f"pypi_url={registry.base_url}", "--option", f"npm_url={registry.base_url}/npm"]
        code = main(["rescore", str(runs), "--task", str(V7), "--scorer", str(V8), "--json", str(report), *v8_registry])
    out = capsys.readouterr().out
    assert code == 0, out
    data = json.loads(report.read_text())
    rows = [row for model in data["models"].values() for row in model["rows"]]
    assert len(rows) == 2
    for row in rows:
        frozen = {v["name"]: v["verdict"] for v in row["row"]["verdicts"] if v["level"] == "symbol"}
        newer = {v["name"]: v["verdict"] for v in row["newer_row"]["verdicts"] if v["level"] == "symbol"}
        assert frozen["numpy.fake_vectorize_all"] == "unverified"
        assert newer["numpy.fake_vectorize_all"] == "missing-symbol"
        assert newer["numpy.array"] == "found"
        assert (row["row"]["verdict"], row["newer_row"]["verdict"]) == ("pass", "fail")
    (summary,) = data["newer_scorer"]["summary"]
    assert summary["verdicts_changed"] == 2
    (changes,) = data["benchmark"]["scorer_changes"].values()
    assert (changes["from"], changes["to"]) == ("hallucinated-packages/v7", "hallucinated-packages/v8")
    assert [c["verdict"] for c in changes["verdict_changes"]] == [["pass", "fail"]] * 2
    for change in changes["verdict_changes"]:
        assert any(
            r.startswith("symbol numpy.fake_vectorize_all: unverified -> missing-symbol") for r in change["reasons"]
        )
    assert "Rows the newer scorer changed, and why:" in out
    assert out.count("symbol numpy.fake_vectorize_all: unverified -> missing-symbol") == 2
