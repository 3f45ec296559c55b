"""`rescore --task hallucinated-packages/v8 --scorer hallucinated-packages/v9` on a run made under v8.

The run is made the way Kaggle makes it (the real kaggle-benchmarks, a loopback model stub, the loopback
registry serving the type-flow wheels of `data/typeflow.toml`). The reply calls `append` on a parameter
annotated with the package's frame type, a method the package's latest release removed: the frozen v8 gate
records no use of it and passes the row; v9 follows the annotation, finds the method only in an older
release and fails the row with `removed-api`, and the rescore lists the row as changed, with the reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from registry_server import FakeRegistry
from test_checker import populate
from test_typeflow import SPEC

from hallubench.tooling.cli import main

from support.hosted import run_like_kaggle

pytest.importorskip("kaggle_benchmarks")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
V8 = ROOT / "tasks" / "hallucinated_packages_v8.py"
V9 = ROOT / "tasks" / "hallucinated_packages_v9.py"
REPLY = """Add the row with tabula:

```bash
pip install tabula
```

```python
import tabula


def add(frame: tabula.Frame, row):
    return frame.append(row)
```
"""


def _reply(messages: list[dict[str, Any]]) -> str:
    return REPLY


def test_a_v8_run_rescored_with_v9_reports_the_annotated_removed_method(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    with FakeRegistry(tmp_path / "registry") as registry:
        populate(registry)
        for dist in SPEC["dist"]:
            registry.add_wheel(dist["name"], dist["version"], dist["files"])
        options = {"pypi_url": registry.base_url, "npm_url": f"{registry.base_url}/npm"}
        env = {"HALLUBENCH_PYPI_URL": options["pypi_url"], "HALLUBENCH_NPM_URL": options["npm_url"]}
        run_options = {"HALLUBENCH_RUN_OPTIONS": json.dumps(options)}
        run_like_kaggle(V8, runs, _reply, env={"HALLUBENCH_LIMIT": "2", **env, **run_options})
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        report = tmp_path / "report.json"
        code = main(["rescore", str(runs), "--task", str(V8), "--scorer", str(V9), "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 0, out
    data = json.loads(report.read_text())
    rows = [row for model in data["models"].values() for row in model["rows"]]
    assert len(rows) == 2
    for row in rows:
        frozen = {v["name"]: v["verdict"] for v in row["row"]["verdicts"] if v["level"] == "symbol"}
        newer = {v["name"]: v for v in row["newer_row"]["verdicts"] if v["level"] == "symbol"}
        assert not any(name.endswith(".append") for name in frozen), frozen
        (use,) = [v for name, v in newer.items() if name.endswith(".append")]
        assert use["verdict"] == "removed-api" and "1.5.0" in use["reason"], use
        assert (row["row"]["verdict"], row["newer_row"]["verdict"]) == ("pass", "fail")
        uses = row["newer_row"]["scores"]["uses"]
        assert uses["all"] >= 1 and uses["decided"] == uses["all"]
    (changes,) = data["benchmark"]["scorer_changes"].values()
    assert (changes["from"], changes["to"]) == ("hallucinated-packages/v8", "hallucinated-packages/v9")
    assert [c["verdict"] for c in changes["verdict_changes"]] == [["pass", "fail"]] * 2
    assert "Rows the newer scorer changed, and why:" in out and "not checked -> removed-api" in out
