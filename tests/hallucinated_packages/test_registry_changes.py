"""Names whose existence changed between the hosted registry check and a rescore's.

Unit cases live in tests/hallucinated_packages/data/registry_changes.json. The end-to-end case runs the
hallucinated-packages task file under the real kaggle-benchmarks against a loopback model and
registry, registers the invented name afterwards, and rescores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from registry_server import FakeRegistry
from test_checker import populate

from hallubench.tooling.build import load_specs
from hallubench.tooling.cli import main
from hallubench.tooling.hallucinated_packages.registry_changes import REGISTERED_SINCE, change_lines, registry_changes

from support.hosted import run_like_kaggle
from support.registry_urls import registry_env

ROOT = Path(__file__).resolve().parents[2]
CASES: list[dict[str, Any]] = json.loads(
    (ROOT / "tests" / "hallucinated_packages" / "data" / "registry_changes.json").read_text(encoding="utf-8")
)["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_registry_changes(case: dict[str, Any]) -> None:
    changes = registry_changes([(case["local"], case["hosted"])], model="m")
    assert [{"name": c["name"], "change": c["change"]} for c in changes] == case["expected"]
    for change, line in zip(changes, change_lines(changes), strict=True):
        assert change["name"] in line and change["change"] in line and "m," in line


SLOP_REPLY = "Install it with `pip install slopname`:\n\n```python\nimport slopname\n\nslopname.run()\n```\n"


@pytest.mark.slow
def test_a_name_registered_after_the_run_is_named_by_rescore(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("kaggle_benchmarks")
    spec = max((s for s in load_specs(ROOT) if s.benchmark == "hallucinated-packages"), key=lambda s: s.version)
    task = ROOT / spec.task_path
    runs = tmp_path / "runs"
    with FakeRegistry(tmp_path / "registry") as registry:
        populate(registry)
        urls = registry_env(registry.base_url)
        run_like_kaggle(task, runs, SLOP_REPLY, env={"HALLUBENCH_LIMIT": "1", **urls})
        for name, value in urls.items():
            monkeypatch.setenv(name, value)
        report = tmp_path / "report.json"
        # Before anyone registers the name, the rescore agrees with the hosted run.
        assert main(["rescore", str(runs), "--task", str(task), "--json", str(report)]) == 0
        assert json.loads(report.read_text())["benchmark"]["registry_changes"] == []
        capsys.readouterr()

        registry.add_wheel("slopname", "0.0.1", {"slopname/__init__.py": "def run():\n    pass\n"},
                           upload_time="2099-01-01T00:00:00Z")  # fmt: skip
        assert main(["rescore", str(runs), "--task", str(task), "--json", str(report)]) == 4
    out = capsys.readouterr().out
    assert "Registry changes since the hosted run (1)" in out
    assert "pypi `slopname`** (stub/model-a, case " in out and REGISTERED_SINCE in out
    (change,) = json.loads(report.read_text())["benchmark"]["registry_changes"]
    assert (change["name"], change["hosted_verdict"], change["verdict_now"]) == ("slopname", "missing", "exists")
    assert change["first_upload"] == "2099-01-01T00:00:00Z"
