"""`hallubench packages check` and `gate`, in-process, against the loopback registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from registry_server import FakeRegistry
from test_checker import populate

from hallubench.tooling.cli import main

ANSWERS = Path(__file__).resolve().parent / "data" / "answers"


def _urls(registry: FakeRegistry) -> list[str]:
    return ["--pypi-url", registry.base_url, "--npm-url", f"{registry.base_url}/npm"]


def test_check_json_lists_each_reference_once_per_level(
    fake_registry: FakeRegistry, capsys: pytest.CaptureFixture[str]
) -> None:
    populate(fake_registry)
    code = main(["packages", "check", str(ANSWERS / "py_mt940_pinned.md"), "--json", *_urls(fake_registry)])
    report = json.loads(capsys.readouterr().out)
    rows = [(r["reference"], r["level"], r["verdict"]) for r in report["references"]]
    assert rows == [
        ("mt940", "package", "exists"),
        ("mt940", "symbol", "missing-symbol"),
        ("mt940==0.8.1", "package", "exists"),
    ]
    assert code == 1
    assert all(r["evidence"] and r["ecosystem"] == "pypi" for r in report["references"])


def test_check_text_output_on_a_clean_python_file(
    fake_registry: FakeRegistry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    populate(fake_registry)
    source = tmp_path / "client.py"
    source.write_text("import requests\nimport yaml\n\nrequests.get(yaml.safe_load('u: 1')['u'])\n")
    code = main(["packages", "check", str(source), *_urls(fake_registry)])
    out = capsys.readouterr().out
    assert code == 0
    assert "exists as PyYAML" in out and out.count(" found ") == 2


def test_check_unreadable_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["packages", "check", str(tmp_path / "nope.py")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_gate_passes_then_names_a_compromised_decoy(
    fake_registry: FakeRegistry, capsys: pytest.CaptureFixture[str]
) -> None:
    populate(fake_registry)
    assert main(["packages", "gate", *_urls(fake_registry)]) == 0
    assert "decoy gate: ok, 20 lookups" in capsys.readouterr().out
    fake_registry.add_npm("biofast-aligner", "0.0.1", {"index.js": ""})
    assert main(["packages", "gate", "--json", *_urls(fake_registry)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert "biofast-aligner" in report["decoy_gate"]["failed"] and report["canary"]["failed"] == []
