"""`hallucinated-packages check` exits by what it could decide, so an outage never reads as clean (issue 21).

End to end through the command line, in process, against the loopback registry: every path down
(503, 429, an HTML error page with status 200) gives exit 4 and says so on its last line; one
invented package gives exit 1 even when another reference is undecided; an answer whose every
reference is decided and real gives exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from registry_server import FakeRegistry

from hallubench.tooling.cli import main

ANSWER = (
    "Use requests for the download and left-pad for the report.\n\n"
    "```python\nimport requests\n\nrequests.get('https://example.org')\n```\n\n"
    "```js\nconst leftPad = require('left-pad');\nconsole.log(leftPad('1', 3));\n```\n"
)
INVENTED = ANSWER + "\n```python\nimport fastjsonx\n\nfastjsonx.loads('{}')\n```\n"
HTML_ERROR = b"<!DOCTYPE html><html><head><title>Service Unavailable</title></head><body>try later</body></html>"
OUTAGES = {
    "503": (503, "text/html", HTML_ERROR, {}),
    "429": (429, "text/html", HTML_ERROR, {"Retry-After": "0"}),
    "200 html error page": (200, "text/html; charset=utf-8", HTML_ERROR, {}),
}


def publish(registry: FakeRegistry) -> None:
    registry.add_wheel("requests", "2.32.3", {"requests/__init__.py": "def get(url):\n    pass\n"})
    registry.add_npm("left-pad", "1.3.0", {"index.js": "module.exports = function leftPad(s, n) { return s; };\n"})


def check(registry: FakeRegistry, answer: Path, *extra: str) -> int:
    urls = ["--pypi-url", registry.base_url, "--npm-url", f"{registry.base_url}/npm"]
    return main(["hallucinated-packages", "check", str(answer), *urls, *extra])


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "answer.md"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("outage", sorted(OUTAGES))
def test_every_registry_answer_unusable_exits_4_and_says_so_last(
    fake_registry: FakeRegistry, tmp_path: Path, capsys: pytest.CaptureFixture[str], outage: str
) -> None:
    publish(fake_registry)
    status, content_type, body, headers = OUTAGES[outage]
    fake_registry.outage(status, content_type, body, headers)
    answer = write(tmp_path, ANSWER)

    assert check(fake_registry, answer) == 4
    last = capsys.readouterr().out.rstrip("\n").splitlines()[-1]
    assert last.startswith("unverified: ") and last.endswith("; exit 4"), last
    assert fake_registry.base_url in last, "the line names the registry that gave no usable answer"

    assert check(fake_registry, answer, "--json") == 4
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert {(r["reference"], r["level"], r["verdict"]) for r in report["references"]} == {
        ("requests", "package", "unverified"),
        ("left-pad", "package", "unverified"),
    }
    assert all(r["evidence"] and r["reason"] for r in report["references"])
    outcome = report["outcome"]
    assert (outcome["exit"], outcome["kind"], outcome["unverified"], outcome["hallucinated"]) == (4, "unverified", 2, 0)
    assert outcome["registries"] == [fake_registry.base_url]
    assert captured.err.rstrip("\n").splitlines()[-1] == outcome["summary"]


def test_a_hallucination_exits_1_even_beside_an_unverified_reference(
    fake_registry: FakeRegistry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    publish(fake_registry)
    fake_registry.answer("/npm/left-pad", 503, "text/html", HTML_ERROR)
    assert check(fake_registry, write(tmp_path, INVENTED), "--json") == 1
    report = json.loads(capsys.readouterr().out)
    verdicts = {(r["reference"], r["level"]): r["verdict"] for r in report["references"]}
    assert verdicts[("fastjsonx", "package")] == "missing"
    assert verdicts[("left-pad", "package")] == "unverified"
    outcome = report["outcome"]
    assert (outcome["exit"], outcome["kind"], outcome["hallucinated"], outcome["unverified"]) == (
        1,
        "hallucinated",
        1,
        1,
    )
    assert "missing" in outcome["summary"] and "1 of " in outcome["summary"]


def test_one_invented_package_exits_1(
    fake_registry: FakeRegistry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    publish(fake_registry)
    assert check(fake_registry, write(tmp_path, INVENTED)) == 1
    last = capsys.readouterr().out.rstrip("\n").splitlines()[-1]
    assert last.startswith("hallucinated: ") and "(missing)" in last and last.endswith("; exit 1"), last


def test_every_reference_decided_and_real_exits_0(
    fake_registry: FakeRegistry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    publish(fake_registry)
    assert check(fake_registry, write(tmp_path, ANSWER)) == 0
    out = capsys.readouterr().out
    assert "unverified" not in out
    assert out.rstrip("\n").splitlines()[-1].startswith("clean: ")
    assert check(fake_registry, write(tmp_path, ANSWER), "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert {r["verdict"] for r in report["references"]} <= {"exists", "found"}
    assert report["outcome"]["exit"] == 0


def test_help_lists_every_exit_code_check_can_return(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["hallucinated-packages", "check", "--help"])
    assert stop.value.code == 0
    codes = {line.split()[0] for line in capsys.readouterr().out.splitlines() if line[:2] == "  " and line.split()}
    assert {"0", "1", "2", "4"} <= codes
