"""The Done-when cases of issue 4 on the live PyPI and npm registries (run with `-m live`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hallubench.tooling.cli import main

pytestmark = pytest.mark.live

CASES = [
    ("from pygeo.tilesmith import TileGrid\n", "pygeo.tilesmith", "package", {"decoy"}),
    ("from swift.parser import MT940\n", "swift.parser", "symbol", {"missing-submodule"}),
    ("import mt940\nmt940.parse('s.sta')\n", "mt940", "symbol", {"found"}),
    ("import yaml\nyaml.safe_load('a: 1')\n", "yaml", "package", {"exists"}),
    ("import pandas as pd\npd.DataFrame.append\n", "pandas", "symbol", {"removed-api"}),
]


def _check(tmp_path: Path, name: str, text: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    path = tmp_path / name
    path.write_text(text)
    main(["packages", "check", str(path), "--json"])
    return list(json.loads(capsys.readouterr().out)["references"])


@pytest.mark.parametrize(("code", "reference", "level", "allowed"), CASES, ids=[c[1] for c in CASES])
def test_python_done_when(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], code: str, reference: str, level: str, allowed: set[str]
) -> None:
    rows = _check(tmp_path, "answer.py", code, capsys)
    verdicts = {r["verdict"] for r in rows if r["reference"] == reference and r["level"] == level}
    assert verdicts and verdicts <= allowed, rows


def test_mt940_found_in_mt_940_unless_mt940_0_8_1_is_pinned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _check(tmp_path, "a.py", "import mt940\nmt940.parse('s.sta')\n", capsys)
    symbol = next(r for r in rows if r["level"] == "symbol")
    assert symbol["verdict"] == "found" and "mt-940" in str(symbol["candidate"]).lower().replace("_", "-")
    answer = "```bash\npip install mt940==0.8.1\n```\n```python\nimport mt940\nmt940.parse('s.sta')\n```\n"
    rows = _check(tmp_path, "a.md", answer, capsys)
    assert [r["verdict"] for r in rows if r["level"] == "symbol"] == ["missing-symbol"]


def test_express_5_app_del_is_never_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = "const express = require('express');\nconst app = express();\napp.del('/x', (req, res) => res.end());\n"
    rows = _check(tmp_path, "server.js", code, capsys)
    verdicts = [r["verdict"] for r in rows if r["level"] == "symbol" and "del" in str(r["name"])]
    assert verdicts and set(verdicts) <= {"removed-api", "unverified"}


def test_lodash_fakefn_is_a_missing_subpath(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _check(tmp_path, "a.js", "import fakefn from 'lodash/fakefn';\n", capsys)
    assert [r["verdict"] for r in rows if r["level"] == "symbol"] == ["missing-subpath"]
