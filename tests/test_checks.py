"""Golden cases for `hallubench.checks` (tests/data/checks/*.jsonl) and round-trip properties."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hallubench.checks import (
    FENCE_DETAIL,
    Check,
    CheckResult,
    summarize,
    unwrap_whole_fence,
)

DATA = Path(__file__).parent / "data" / "checks"


def _load(name: str) -> list[dict[str, Any]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


JSON_CASES = _load("is_valid_json.jsonl")
TEXT_CASES = _load("text_checks.jsonl")


def _ok_is_true(value: Any) -> bool:
    return value["ok"] is True  # raises TypeError on a list: the "broken callback" case


def _get_ok_key(value: Any) -> Any:
    return "yes" if value.get("ok") else ""  # a non-bool: must be an error, not a truthy pass


WHERE: dict[str, Callable[[Any], Any]] = {"ok_is_true": _ok_is_true, "get_ok_key": _get_ok_key}


def _where(case: dict[str, Any]) -> Callable[[Any], bool] | None:
    name = case.get("where")
    return None if name is None else WHERE[name]  # type: ignore[return-value]


@pytest.mark.parametrize("case", JSON_CASES, ids=[c["id"] for c in JSON_CASES])
def test_is_valid_json_golden(case: dict[str, Any]) -> None:
    result = Check.is_valid_json(_where(case), strict=case.get("strict", False)).run(case["input"])
    assert result.status == case["expected_status"], result.detail
    assert case["expected_detail_contains"] in result.detail
    assert result.passed is (case["expected_status"] == "pass")
    assert result.is_error is (case["expected_status"] == "error")
    if "expected_value" in case:
        assert result.value == case["expected_value"]
    if "expected_provenance" in case:
        assert result.provenance == case["expected_provenance"]


def test_every_json_case_documents_its_decision() -> None:
    for case in JSON_CASES:
        assert len(case["note"]) > 20, case["id"]
        if case["llm_eval_0_3_1"] not in (None, case["expected_status"]):
            assert "DIFFERS" in case["note"], f"{case['id']}: a difference from llm_eval must say so"


# The llm_eval 0.3.1 fallback, as quoted in the reference write-up, to keep the data file's
# `llm_eval_0_3_1` column honest: every claimed difference must be a real one.
_LLM_EVAL_0_3_1 = re.compile(r"```(?:json)?\s*\n?(.*?)\n?```", re.DOTALL)


def _llm_eval_0_3_1(output: str, where: Callable[[Any], bool] | None) -> str:
    def decode(text: str) -> tuple[bool, Any]:
        try:
            return True, json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
        except ValueError:
            return False, None

    ok, value = decode(output)
    if not ok:
        found = _LLM_EVAL_0_3_1.search(output)
        if found is None:
            return "fail"
        ok, value = decode(found.group(1))
        if not ok:
            return "fail"
    if where is None:
        return "pass"
    try:
        return "pass" if where(value) else "fail"
    except Exception:
        return "error"


@pytest.mark.parametrize("case", [c for c in JSON_CASES if c["llm_eval_0_3_1"] is not None], ids=lambda c: c["id"])
def test_llm_eval_column_matches_its_regex(case: dict[str, Any]) -> None:
    assert _llm_eval_0_3_1(case["input"], _where(case)) == case["llm_eval_0_3_1"]


def _text_check(case: dict[str, Any]) -> Check:
    args = dict(case["args"])
    if case["check"] == "matches" and "flags" in args:
        args["flags"] = getattr(re, args["flags"])
    factory: Callable[..., Check] = getattr(Check, case["check"])
    return factory(**args)


@pytest.mark.parametrize("case", TEXT_CASES, ids=[c["id"] for c in TEXT_CASES])
def test_text_checks_golden(case: dict[str, Any]) -> None:
    result = _text_check(case).run(case["input"])
    assert result.status == case["expected_status"], result.detail
    assert case["expected_detail_contains"] in result.detail
    if "expected_value" in case:
        assert result.value == case["expected_value"]


@pytest.mark.parametrize(
    "check",
    [Check.is_valid_json(), Check.contains("x"), Check.matches("x"), Check.equals("x")],
    ids=lambda c: c.name,
)
def test_non_text_output_is_an_error_not_a_fail(check: Check) -> None:
    for output in (None, b'{"a": 1}', 42):
        result = check.run(output)
        assert result.is_error and not result.passed
        assert "not text" in result.detail


def test_a_crashing_custom_check_is_an_error() -> None:
    def explode(output: str) -> CheckResult:
        raise RuntimeError("judge endpoint down")

    result = Check("custom", explode).run("anything")
    assert result.status == "error"
    assert "custom raised: RuntimeError: judge endpoint down" in result.detail


def test_result_rejects_unknown_status() -> None:
    with pytest.raises(ValueError, match="status must be one of"):
        CheckResult("unscored")  # type: ignore[arg-type]


def test_to_dict_is_json_and_keeps_value() -> None:
    result = Check.is_valid_json().run('```json\n{"a": [1, 2]}\n```')
    record = json.loads(json.dumps(result.to_dict()))
    assert record == {
        "status": "pass",
        "passed": True,
        "detail": FENCE_DETAIL + " (```json)",
        "provenance": "fenced",
        "value": {"a": [1, 2]},
    }


def test_summary_keeps_errors_out_of_the_rate() -> None:
    outputs = ['{"ok": true}', '```json\n{"ok": true}\n```', '{"ok": false}', "prose", "[1]"]
    results = [Check.is_valid_json(_ok_is_true).run(text) for text in outputs]
    summary = summarize(results)
    assert (summary.total, summary.passed, summary.failed, summary.errors) == (5, 2, 2, 1)
    assert summary.scored == 4
    assert summary.pass_rate == 0.5
    assert summary.by_provenance == {"fenced": 1, "raw": 1}
    assert summary.line() == "pass 2/4 scored (50.0%), fail 2, error 1 of 5 total; read as: fenced 1, raw 1"
    assert summary.to_dict()["error"] == 1


def test_summary_of_only_errors_has_no_rate() -> None:
    summary = summarize([CheckResult.error("harness down")] * 3)
    assert summary.pass_rate is None
    assert "n/a" in summary.line()


# --- properties -------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=12,
)


@st.composite
def fenced(draw: st.DrawFn, body: str) -> str:
    char = draw(st.sampled_from("`~"))
    opening = char * draw(st.integers(3, 6))
    closing = char * draw(st.integers(len(opening), len(opening) + 2))
    tag = draw(st.from_regex(r"[A-Za-z0-9_+-]{0,12}", fullmatch=True))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    pad = st.text(" \t", max_size=3)
    lead = draw(st.text(" \t\n", max_size=3))
    trail = draw(st.text(" \t\n", max_size=3))
    indent = " " * draw(st.integers(0, 3))
    body = body.replace("\n", newline)
    first_line = f"{opening}{draw(pad)}{tag}{draw(pad)}"
    return f"{lead}{first_line}{newline}{body}{newline}{indent}{closing}{draw(pad)}{trail}"


@settings(max_examples=300, deadline=None)
@given(data=st.data(), value=JSON_VALUES, indent=st.sampled_from([None, 2, 4]), ascii_only=st.booleans())
def test_any_json_value_in_any_fence_round_trips(
    data: st.DataObject, value: Any, indent: int | None, ascii_only: bool
) -> None:
    dumped = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    reply = data.draw(fenced(dumped))
    result = Check.is_valid_json().run(reply)
    assert result.passed, (reply, result.detail)
    assert result.value == value
    assert result.provenance == "fenced"
    assert result.detail.startswith(FENCE_DETAIL)
    strict = Check.is_valid_json(strict=True).run(reply)
    assert strict.failed and "strict mode" in strict.detail


@settings(max_examples=200, deadline=None)
@given(value=JSON_VALUES)
def test_raw_json_never_reports_a_fence(value: Any) -> None:
    result = Check.is_valid_json().run(json.dumps(value))
    assert result.passed and result.provenance == "raw" and result.value == value


@settings(max_examples=200, deadline=None)
@given(data=st.data(), value=JSON_VALUES, prose=st.text(min_size=1).filter(lambda s: s.strip() != ""))
def test_a_fence_with_prose_after_it_is_never_unwrapped(data: st.DataObject, value: Any, prose: str) -> None:
    reply = data.draw(fenced(json.dumps(value))).rstrip() + "\n" + prose
    assert unwrap_whole_fence(reply) is None
    assert Check.is_valid_json().run(reply).failed


# --- `hallubench check json` ------------------------------------------------------------------


def _write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize(
    ("content", "extra", "code", "stdout_has"),
    [
        (b'{"a": 1}', [], 0, "pass: parsed as JSON"),
        (b'```json\r\n{"a": 1}\r\n```\r\n', [], 0, "pass: " + FENCE_DETAIL),
        (b'```json\n{"a": 1}\n```\n', ["--strict"], 1, "fail: not valid JSON: the output is wrapped"),
        (b"Sure! Here it is.", [], 1, "fail: not valid JSON"),
        (b'\xef\xbb\xbf{"a": 1}', [], 0, "pass: parsed as JSON"),
    ],
    ids=["raw", "fenced-crlf", "strict-fenced", "prose", "utf8-bom"],
)
def test_cli_exit_codes(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: bytes,
    extra: list[str],
    code: int,
    stdout_has: str,
) -> None:
    from hallubench.tooling.cli import main

    assert main(["check", "json", _write(tmp_path, "out.txt", content), *extra]) == code
    assert stdout_has in capsys.readouterr().out


def test_cli_json_output_carries_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hallubench.tooling.cli import main

    path = _write(tmp_path, "out.txt", b'~~~JSON\n{"answer": [1, 2]}\n~~~\n')
    assert main(["check", "json", path, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["status"] == "pass" and record["passed"] is True
    assert record["detail"] == FENCE_DETAIL + " (~~~JSON)"
    assert record["value"] == {"answer": [1, 2]}
    assert record["provenance"] == "fenced"
    assert record["source"] == path and record["check"] == "is_valid_json"


@pytest.mark.parametrize(
    ("make_path", "message"),
    [
        (lambda tmp: str(tmp / "missing.txt"), "FileNotFoundError"),
        (lambda tmp: str(tmp), "IsADirectoryError"),
        (lambda tmp: _write(tmp, "latin1.txt", b'{"caf\xe9": 1}'), "UnicodeDecodeError"),
    ],
    ids=["missing", "directory", "not-utf8"],
)
def test_cli_unreadable_file_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make_path: Callable[[Path], str], message: str
) -> None:
    from hallubench.tooling.cli import main

    path = make_path(tmp_path)
    assert main(["check", "json", path, "--json"]) == 2
    captured = capsys.readouterr()
    record = json.loads(captured.out)
    assert record["status"] == "error" and record["passed"] is False
    assert f"cannot read {path}: {message}" in record["detail"]
    assert "error: cannot read" in captured.err


def test_cli_reads_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from hallubench.tooling.cli import main

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"```\n[true, null]\n```\n")))
    assert main(["check", "json", "-", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["source"] == "<stdin>" and record["value"] == [True, None]


def test_cli_without_a_check_name_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from hallubench.tooling.cli import main

    assert main(["check"]) == 2
    assert "json" in capsys.readouterr().err


def test_cli_in_a_real_process(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = _write(tmp_path, "reply.txt", b'Here you go:\n```json\n{"a": 1}\n```\n')
    done = subprocess.run(
        [sys.executable, "-m", "hallubench", "check", "json", path],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("fail: not valid JSON")
    assert "text before its first code fence" in done.stdout
    piped = subprocess.run(
        [sys.executable, "-m", "hallubench", "check", "json", "-"],
        input='```json\n{"a": 1}\n```',
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.startswith("pass: " + FENCE_DETAIL)


# --- embedding ---------------------------------------------------------------------------------


def test_module_works_when_embedded_under_another_package() -> None:
    """Task files carry this module as source; it must run there with the standard library alone."""
    import ast
    import sys

    import hallubench.checks
    from hallubench.embedding import EmbeddedModules

    source = Path(hallubench.checks.__file__).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            assert all(alias.name.split(".")[0] in sys.stdlib_module_names for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            assert (node.module or "").split(".")[0] in sys.stdlib_module_names, node.module
    finder = EmbeddedModules("frozen_checks_probe", {"checks.py": source})
    try:
        embedded = finder.load("checks")
        result = embedded.Check.is_valid_json().run('~~~JSON\r\n{"a": 1}\r\n~~~')
        assert type(result) is not CheckResult and result.passed and result.value == {"a": 1}
    finally:
        finder.uninstall()
