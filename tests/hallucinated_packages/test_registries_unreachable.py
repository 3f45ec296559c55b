"""Registries that give no answer read as "registries unreachable", never as an attack or a disagreement.

Offline, a frozen hallucinated-packages task file aborts with "DecoyCompromised: decoy gate failed"
and a rescore reported "2 score(s) disagree". Here the registries are a loopback port nothing listens
on: `packages gate` exits 3, `run` exits 2 before the task file starts, and `rescore` lists each row
it could not judge as UNREACHABLE (exit 8) in the text, the JSON and the HTML banner, while the same
runs rescored with the registry answering verify cleanly.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from registry_server import FakeRegistry
from test_checker import populate

from hallubench.tooling.cli import main
from hallubench.tooling.hallucinated_packages.outages import registry_outages

from support.hosted import run_like_kaggle

ROOT = Path(__file__).resolve().parents[2]
V8 = ROOT / "tasks" / "hallucinated_packages_v8.py"
OUTAGES = json.loads((ROOT / "tests" / "hallucinated_packages" / "data" / "outages.json").read_text(encoding="utf-8"))
REPLY = "```python\nimport requests\n\nrequests.get('https://example.org')\n```\n"


def _silent_base_url() -> str:
    """A loopback URL nothing listens on (the port was free a moment ago and is not reused at once)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.mark.parametrize("case", OUTAGES["cases"], ids=lambda case: case["name"])
def test_outages_are_lookups_that_got_no_answer(case: dict[str, Any]) -> None:
    assert registry_outages(case["row"]) == case["expected"]


def test_gate_says_registries_unreachable_and_decides_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    silent = _silent_base_url()
    code = main(["packages", "gate", "--pypi-url", silent, "--npm-url", f"{silent}/npm"])
    captured = capsys.readouterr()
    assert code == 3
    assert "registries unreachable" in captured.err and silent in captured.err
    assert "decoy gate failed" not in captured.out + captured.err
    assert main(["packages", "gate", "--json", "--pypi-url", silent, "--npm-url", f"{silent}/npm"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and len(data["unreachable"]) == 2


def test_run_stops_before_the_task_file_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    silent = _silent_base_url()
    out = tmp_path / "out"
    options = ["--option", f"pypi_url={silent}", "--option", f"npm_url={silent}/npm"]
    code = main(["run", "hallucinated-packages/v8", "--limit", "1", "--out", str(out), *options])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "registries unreachable" in err and "DecoyCompromised" not in err
    assert not out.exists() or not any(out.iterdir()), "nothing was run, so nothing is written"


@pytest.mark.slow
def test_rescore_names_rows_it_cannot_judge_unreachable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("kaggle_benchmarks")
    runs = tmp_path / "runs"
    with FakeRegistry(tmp_path / "registry") as registry:
        populate(registry)
        answering = ["--option", f"pypi_url={registry.base_url}", "--option", f"npm_url={registry.base_url}/npm"]
        options = json.dumps({"pypi_url": registry.base_url, "npm_url": f"{registry.base_url}/npm"})
        run_like_kaggle(
            V8, runs, lambda messages: REPLY, env={"HALLUBENCH_LIMIT": "2", "HALLUBENCH_RUN_OPTIONS": options}
        )
        assert main(["rescore", str(runs), "--task", str(V8), *answering]) == 0, capsys.readouterr().out
        capsys.readouterr()

    silent = _silent_base_url()
    report, page = tmp_path / "report.json", tmp_path / "report.html"
    offline = ["--option", f"pypi_url={silent}", "--option", f"npm_url={silent}/npm"]
    code = main(["rescore", str(runs), "--task", str(V8), "--json", str(report), "--html", str(page), *offline])
    out = capsys.readouterr().out
    assert code == 8, out
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [problem["kind"] for problem in data["problems"]] == ["unreachable", "unreachable"]
    assert all(silent in problem["text"] for problem in data["problems"])
    assert "registries unreachable" in out and "\nSCORE" not in out
    assert "every prompt verified" not in out
    banner = page.read_text(encoding="utf-8").split('id="verdict">', 1)[1].split("</p>", 1)[0]
    assert "registries unreachable" in banner and "disagree" not in banner
