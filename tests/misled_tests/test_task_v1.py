"""misled-tests v1 (superseded) end to end from its frozen task file, with scripted replies: render, play (its
sandbox included), aggregate; the report and the CLI of today's tooling on its rows."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hallubench.misled_tests.cases import cases_for
from hallubench.tooling.misled_tests.report import build_report, format_report, rows_from_paths
from hallubench.tooling.taskfile.reader import FrozenProtocol
from hallubench.tooling.testing import ScriptedConversation

from support.frozen import frozen

DATA = Path(__file__).resolve().parent / "data"
MISLED_REPLY = "```python\n" + (DATA / "get_positive_example.py").read_text(encoding="utf-8") + "```\n"
EFFECTIVE_REPLY = (
    "```py\nfrom solution import get_positive\n\n\ndef test_keeps_positive():\n"
    "    assert get_positive([1, -1]) == [1]\n```"
)


@pytest.fixture(scope="module")
def v1() -> Iterator[FrozenProtocol]:
    """misled-tests v1 (superseded) as its frozen task file has it: its entry, executor and row helpers."""
    with frozen("misled-tests/v1") as loaded:
        yield loaded


def _case(condition: str, thinking: str = "off") -> dict[str, Any]:
    cases = {case["id"]: case for case in cases_for(thinking)}
    return cases[f"p030-{condition}-think_{thinking}"]


def test_cases_are_ids_and_hashes_only(data_env: Path) -> None:
    off, on = cases_for("off"), cases_for("on")
    assert len(off) == len(on) == 164 * 6
    assert len({case["id"] for case in off}) == len(off)
    assert set(off[0]) == {"id", "problem", "condition", "thinking", "problem_sha256"}


def test_render_hides_the_docstring_in_buggy_code_and_is_stable(data_env: Path, v1: FrozenProtocol) -> None:
    buggy = v1.entry.render(_case("buggy_code"))
    assert "e < 0" in buggy and "Return only positive" not in buggy
    assert "Return only positive" in v1.entry.render(_case("buggy_with_docstring"))
    assert v1.entry.render(_case("fixed_code")) != buggy
    assert v1.entry.render(_case("buggy_code")) == buggy


def test_play_misled_reply(data_env: Path, v1: FrozenProtocol) -> None:
    row = v1.rows.play_row(
        v1.entry.play,
        _case("buggy_code"),
        ScriptedConversation([MISLED_REPLY]),
        protocol_id="misled-tests/v1",
        payload_sha256="x",
    )
    assert row["verdict"] == "fail"
    assert row["scores"]["misled"] == 6 and row["scores"]["both-pass"] == 1 and row["scores"]["n_tests"] == 7
    assert row["pytest_version"] and row["isolation"]["process_per_item"] is True


def test_play_model_spec_keeps_the_spec_and_asks_twice(data_env: Path, v1: FrozenProtocol) -> None:
    conv = ScriptedConversation(['"""Return the positive numbers of l, in order."""', EFFECTIVE_REPLY])
    row = v1.rows.play_row(v1.entry.play, _case("model_spec"), conv, protocol_id="misled-tests/v1", payload_sha256="x")
    assert row["verdict"] == "pass" and row["calls"] == 2
    assert row["spec"] == "Return the positive numbers of l, in order."
    assert "Return the positive numbers of l, in order." in conv.asked[1] and "e < 0" not in conv.asked[1]


def test_truncated_reply_is_an_unusable_row_not_a_dropped_one(data_env: Path, v1: FrozenProtocol) -> None:
    cut = MISLED_REPLY[: len(MISLED_REPLY) // 2]
    row = v1.rows.play_row(
        v1.entry.play, _case("fixed_code", "on"), ScriptedConversation([cut]), protocol_id="p", payload_sha256="x"
    )
    assert (row["verdict"], row["scores"]["unusable_reason"], row["scores"]["n_tests"]) == ("fail", "truncated", 0)


def test_tampered_data_is_a_harness_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_env: Path, v1: FrozenProtocol
) -> None:
    case = dict(_case("buggy_code"), problem_sha256="0" * 64)
    row = v1.rows.play_row(
        v1.entry.play, case, ScriptedConversation([MISLED_REPLY]), protocol_id="p", payload_sha256="x"
    )
    assert (row["verdict"], row["error_kind"]) == ("error", "data")


def _rows(data_env: Path, v1: FrozenProtocol) -> list[dict[str, Any]]:
    rows = []
    for number in (30,):
        for condition, reply in (("buggy_code", MISLED_REPLY), ("fixed_code", EFFECTIVE_REPLY)):
            case = dict(_case(condition), id=f"p{number:03d}-{condition}-think_off")
            rows.append(
                v1.rows.play_row(
                    v1.entry.play, case, ScriptedConversation([reply]), protocol_id="p", payload_sha256="x"
                )
            )
    return rows


def test_aggregate_and_report(data_env: Path, tmp_path: Path, v1: FrozenProtocol) -> None:
    rows = _rows(data_env, v1)
    aggregate = v1.entry.aggregate(rows)
    assert aggregate["headline"] == pytest.approx(6 / 7)
    table = {line["condition"]: line for line in aggregate["metrics"]["conditions"]}
    assert table["fixed_code"]["effective"] == 1 and table["fixed_code"]["n_tests"] == 1
    first = aggregate["metrics"]["comparisons"][0]
    assert (first["measure"], first["a"], first["b"]) == ("misled", "buggy_code", "fixed_code")
    # One problem: every resample is that problem, so the interval collapses onto the estimate.
    assert first["per_test"]["diff"] == pytest.approx(6 / 7)
    assert first["per_test"]["low"] == first["per_test"]["high"] == pytest.approx(6 / 7)
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows), encoding="utf-8")
    text = format_report(build_report(rows_from_paths([path])))
    assert "buggy_code" in text and "98.75%" in text
    done = subprocess.run(
        [sys.executable, "-m", "hallubench", "misled", "report", str(path), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "models" in json.loads(done.stdout)


def test_cli_classify_json(data_env: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hallubench",
            "misled",
            "classify",
            "--problem",
            "Python/30",
            "--tests",
            str(DATA / "get_positive_example.py"),
            "--data",
            str(data_env),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    tests = json.loads(done.stdout)["tests"]
    assert sorted(test["outcome"] for test in tests) == ["both-pass"] + ["misled"] * 6
    assert all(set(test) >= {"id", "buggy", "fixed", "outcome"} for test in tests)
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "hallubench",
            "misled",
            "classify",
            "--problem",
            "Python/999",
            "--tests",
            str(DATA / "get_positive_example.py"),
            "--data",
            str(data_env),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "no problem 'Python/999'" in bad.stderr
