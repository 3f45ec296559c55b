"""Tests for hallubench.tooling.kaggle_runs against real kaggle-benchmarks 0.6.2 run files.

The reference files are committed in `tests/data/kaggle_runs/kbench/` (see its README): kaggle-benchmarks itself
wrote them, running the demo tasks in `scripts/kbench_fixtures/` against a loopback stub model, and
`scripts/make_kbench_fixtures.py` regenerates them (the slow test below checks that a regeneration has the same
structure). The expected facts about each run file are in `tests/data/kaggle_runs/expected_runs.json`, written by
that script (`--facts`) straight from the JSON, and the broken variants in
`tests/data/kaggle_runs/malformed_cases.json` are built from the reference files at test time.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hallubench.tooling.kaggle_runs import (
    AssertionStatus,
    Attachment,
    BooleanResult,
    Conversation,
    DictResult,
    LoadedRun,
    Message,
    NumericResult,
    Request,
    RequestMetrics,
    Role,
    Run,
    RunFileError,
    RunFormatError,
    RunResult,
    RunState,
    calls,
    decode_payload_text,
    download_layout,
    iter_runs,
    load_run,
    load_runs,
    load_task_file,
    parse_run,
    unanswered,
)

REPO = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "kaggle_runs"
REFERENCE = DATA / "kbench"  # written by kaggle-benchmarks 0.6.2 via scripts/make_kbench_fixtures.py
GENERATOR = REPO / "scripts" / "make_kbench_fixtures.py"
DEMOS = REPO / "scripts" / "kbench_fixtures"
EXPECTED: dict[str, Any] = {
    name: facts
    for name, facts in json.loads((DATA / "expected_runs.json").read_text(encoding="utf-8")).items()
    if not name.startswith("_")
}
MALFORMED: list[dict[str, Any]] = json.loads((DATA / "malformed_cases.json").read_text(encoding="utf-8"))["cases"]


@pytest.fixture(scope="module")
def reference_dir() -> Path:
    """The committed run files; a clone always has them, so there is nothing to skip."""
    return REFERENCE


@pytest.fixture(scope="module")
def loaded(reference_dir: Path) -> dict[str, LoadedRun]:
    runs, errors = load_runs(reference_dir)
    assert errors == []
    return {item.path.name: item for item in runs}


# --- every reference file --------------------------------------------------------------------


def test_directory_scan_loads_exactly_the_run_files(reference_dir: Path, loaded: dict[str, LoadedRun]) -> None:
    on_disk = {p.name for p in reference_dir.iterdir() if p.name.endswith(".run.json")}
    assert set(loaded) == on_disk
    assert set(EXPECTED) == on_disk, "expected_runs.json must describe every reference run file"


def _result_facts(result: RunResult | None) -> dict[str, Any]:
    if isinstance(result, BooleanResult):
        return {"boolean": result.value}
    if isinstance(result, NumericResult):
        return {"numeric": result.value, "confidence_interval": result.confidence_interval}
    if isinstance(result, DictResult):
        return {"dict": result.value}
    raise AssertionError(f"no result: {result!r}")


def _pairs(messages: list[Message]) -> list[list[str]]:
    return [[message.role.value, message.text] for message in messages]


def _check_run(run: Run, facts: dict[str, Any]) -> None:
    assert run.task.name == facts["task"]
    assert run.task.version_number == facts["version_number"]
    assert run.model_slug == facts["model_slug"]
    assert run.state == RunState(facts["state"])
    assert run.cached is facts["cached"]
    for attribute in ("start_time", "end_time"):
        moment = getattr(run, attribute)
        assert (moment.isoformat() if moment else None) == facts[attribute]
    assert _result_facts(run.result) == facts["result"]
    assert [a.status.value for a in run.assertions] == facts["assertions"]
    assert [c.name for c in run.conversations] == [c["name"] for c in facts["conversations"]]
    for conversation, expected in zip(run.conversations, facts["conversations"], strict=True):
        got = calls(conversation)
        assert len(got) == len(expected["calls"])
        for call, want in zip(got, expected["calls"], strict=True):
            assert _pairs(call.messages) == want["messages"]
            assert [call.reply.role.value, call.reply.text] == want["reply"]
            assert call.metrics is not None
            assert (call.metrics.input_tokens, call.metrics.output_tokens) == (
                want["input_tokens"],
                want["output_tokens"],
            )
        pending = unanswered(conversation)
        assert (_pairs(pending.messages) if pending else None) == expected.get("unanswered")
    assert len(run.subruns) == len(facts["subruns"])
    for subrun, expected_subrun in zip(run.subruns, facts["subruns"], strict=True):
        _check_run(subrun, expected_subrun)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reference_run_matches_the_facts_read_from_it(name: str, loaded: dict[str, LoadedRun]) -> None:
    _check_run(loaded[name].run, EXPECTED[name])


def test_reading_numbers_as_floats_gives_the_same_runs(reference_dir: Path) -> None:
    """`load_run` decodes every number as a float and skips the Struct conversion: nothing may change."""
    files = [*sorted(reference_dir.glob("*.run.json")), DATA / "synthetic_features.run.json"]
    dict_results = 0
    for file in files:
        text = file.read_text(encoding="utf-8")
        plain = parse_run(json.loads(text))
        assert parse_run(json.loads(text, parse_int=float), numbers_are_floats=True) == plain, file.name
        loaded = load_run(file).run
        assert loaded == plain, file.name
        for run in iter_runs(loaded):
            if isinstance(run.result, DictResult):
                dict_results += 1
                assert not _holds_an_int(run.result.value), file.name
    assert dict_results > 0


def _holds_an_int(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_an_int(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_an_int(item) for item in value)
    return isinstance(value, int) and not isinstance(value, bool)


@pytest.mark.parametrize(
    ("name", "version", "subtasks"),
    [("riddle_check.task.json", 3, []), ("qa_dataset.task.json", 1, []), ("structured_and_reasoning.task.json", 1, [])],
)
def test_task_files_load(reference_dir: Path, name: str, version: int, subtasks: list[str]) -> None:
    task = load_task_file(reference_dir / name)
    assert task.name == name.removesuffix(".task.json")
    assert task.version_number == version
    assert task.subtask_file_names == subtasks
    assert task.definition.startswith("@kbench.task(")


def test_task_version_of_a_run_equals_its_task_file(reference_dir: Path, loaded: dict[str, LoadedRun]) -> None:
    task = load_task_file(reference_dir / "riddle_check.task.json")
    assert loaded["riddle_check-run_id_Run_1_stub_model-a.run.json"].run.task == task


def test_companion_files_are_listed_not_loaded(loaded: dict[str, LoadedRun]) -> None:
    riddle = loaded["riddle_check-run_id_Run_1_stub_model-a.run.json"]
    assert [p.name for p in riddle.companions] == [
        "riddle_check-run_id_Run_1_stub_model-a.atif.json",
        "riddle_check-run_id_Run_1_stub_model-a.result.json",
    ]
    assert loaded["riddle_check-minimal-example.run.json"].companions == []


def test_identical_copies_share_a_hash(loaded: dict[str, LoadedRun]) -> None:
    minimal = loaded["riddle_check-minimal-example.run.json"]
    named = loaded["riddle_check-run_id_Run_1_stub_model-a.run.json"]
    errored = loaded["errored_run_example.run.json"]
    assert minimal.sha256 == named.sha256 != errored.sha256
    assert errored.sha256 == loaded["structured_and_reasoning-ERRORED-example.run.json"].sha256


def test_the_readme_describes_every_reference_file(reference_dir: Path) -> None:
    readme = (reference_dir / "README.md").read_text(encoding="utf-8")
    described = {name for row in readme.splitlines() if row.startswith("| `") for name in _ticked(row.split("|")[1])}
    assert described == {p.name for p in reference_dir.glob("*.json")}


def _ticked(cell: str) -> list[str]:
    return [part for index, part in enumerate(cell.split("`")) if index % 2 == 1]


def test_tracebacks_name_no_machine_paths(reference_dir: Path) -> None:
    """The generator replaces the paths of the machine that ran kbench with a neutral /home/user/demo/."""
    for path in reference_dir.glob("*.json"):
        assert str(REPO) not in path.read_text(encoding="utf-8"), path.name
    error = load_run(reference_dir / "errored_run_example.run.json").run.error_message
    assert error is not None
    files = [line.split('"')[1] for line in error.splitlines() if line.startswith('  File "')]
    assert files and all(file.startswith("/home/user/demo/") for file in files), files
    assert "/home/user/demo/structured_and_reasoning.py" in files  # the demo task file that ran


# --- specific facts --------------------------------------------------------------------------


def test_zero_numeric_result_written_as_empty_object_reads_as_zero(loaded: dict[str, LoadedRun]) -> None:
    result = loaded["unicode_zero_score-example.run.json"].run.result
    assert result == NumericResult(value=0.0, confidence_interval=None)


def test_pass_count_of_zero_keeps_its_total(loaded: dict[str, LoadedRun]) -> None:
    run = loaded["no_llm_passcount_zero-example.run.json"].run
    assert run.model_slug is None  # modelVersion: {}
    assert run.result == NumericResult(value=0.0, confidence_interval=10.0)


def test_zero_interval_is_kept_apart_from_no_interval(loaded: dict[str, LoadedRun]) -> None:
    dataset = loaded["qa_dataset-run_id_Run_1_stub_model-a.run.json"].run.result
    scalar = loaded["capital_eval-CACHED-SUBRUNS-example.run.json"].run.result
    assert isinstance(dataset, NumericResult) and dataset.confidence_interval == 0.0
    assert isinstance(scalar, NumericResult) and scalar.confidence_interval is None


def test_unicode_escapes_decode_to_the_original_text(loaded: dict[str, LoadedRun]) -> None:
    run = loaded["unicode_zero_score-example.run.json"].run
    (call,) = calls(run.conversations[0])
    assert call.messages == [
        Message(Role.USER, "Caf\N{LATIN SMALL LETTER E WITH ACUTE} \N{HOT BEVERAGE}  \ttrailing  \n")
    ]
    assert call.reply.text == "\N{LATIN SMALL LETTER E WITH ACUTE}ch\N{CYRILLIC SMALL LETTER O} \N{CHECK MARK}\n"
    assert call.reply.sender_name == "echo"
    assert call.metrics is not None and call.metrics.input_tokens == 0  # "metrics": {}
    assert run.task.definition == ""  # kbench found no source


def test_errored_run_keeps_its_unanswered_prompt(loaded: dict[str, LoadedRun]) -> None:
    run = loaded["errored_run_example.run.json"].run
    assert run.state is RunState.ERRORED
    assert run.result == BooleanResult(False)
    assert run.error_message is not None
    assert run.error_message.startswith("Traceback (most recent call last):")
    assert "ValidationError: 1 validation error for Person" in run.error_message
    (conversation,) = run.conversations
    assert calls(conversation) == []
    pending = unanswered(conversation)
    assert pending is not None
    assert pending.request_id == f"{conversation.id}-req-1"
    assert pending.new_messages == pending.messages
    assert pending.messages == [Message(Role.USER, "Extract name, age and occupation: Marie Curie, 66, physicist.")]
    assert conversation.requests[0].metrics is None  # no model answered, so no metrics key


def test_completed_runs_have_nothing_unanswered(loaded: dict[str, LoadedRun]) -> None:
    run = loaded["structured_and_reasoning-run_id_Run_1_stub_model-a.run.json"].run
    assert [unanswered(c) for c in run.conversations] == [None, None]


def test_reasoning_side_chat_is_its_own_conversation_with_traces(loaded: dict[str, LoadedRun]) -> None:
    for name, model in [
        ("structured_and_reasoning-run_id_Run_1_stub_model-a.run.json", "stub/model-a"),
        ("structured_and_reasoning-run_id_Run_2_meta_stub-llama.run.json", "meta/stub-llama"),
    ]:
        main, side = loaded[name].run.conversations
        assert side.name == "reasoning side chat"
        (call,) = calls(side)
        assert call.reasoning_traces == "Count r in s-t-r-a-w-b-e-r-r-y: 3."
        assert call.reply.sender_name == model
        # the side chat's prompt does not leak into the main chat, nor the other way round
        assert all("strawberry" not in m.text for c in calls(main) for m in c.messages)
        assert all(c.reasoning_traces is None for c in calls(main))


def test_structured_replies_are_stored_double_encoded(loaded: dict[str, LoadedRun]) -> None:
    native = calls(loaded["structured_and_reasoning-run_id_Run_1_stub_model-a.run.json"].run.conversations[0])
    prompted = calls(loaded["structured_and_reasoning-run_id_Run_2_meta_stub-llama.run.json"].run.conversations[0])
    person = '{"name": "Marie Curie", "age": 66, "occupation": "physicist"}'
    assert native[0].reply.decoded_text == person
    assert json.loads(native[0].reply.decoded_text)["age"] == 66
    assert native[2].reply.decoded_text == '{"value": 7}'
    assert prompted[2].reply.decoded_text == '```json\n{"value": 7}\n```'  # the raw fenced model text
    # plain replies are stored exactly and decoding leaves them alone
    assert native[1].reply.text == native[1].reply.decoded_text == "The capital of France is Paris."


def test_each_call_lists_only_its_own_new_messages(loaded: dict[str, LoadedRun]) -> None:
    first, second, third = calls(
        loaded["structured_and_reasoning-run_id_Run_1_stub_model-a.run.json"].run.conversations[0]
    )
    assert second.new_messages == [Message(Role.USER, "What is the capital of France?")]
    assert third.new_messages == [Message(Role.USER, "Pick a number.")]
    assert third.messages[: len(second.messages)] == second.messages
    assert third.messages[len(second.messages)] == second.reply
    assert [c.request_index for c in (first, second, third)] == [0, 1, 2]
    assert third.request_id.endswith("-req-3")
    assert third.metrics is not None
    assert third.metrics.input_tokens_cost_nanodollars == 1100  # int64 written as the string "1100"
    assert third.metrics.total_backend_latency_ms == 42


def test_dataset_parent_rebuilds_each_rows_prompt_in_completion_order(loaded: dict[str, LoadedRun]) -> None:
    parent = loaded["qa_dataset-run_id_Run_1_stub_model-a.run.json"].run
    assert calls(parent.conversations[0]) == []  # the parent itself asked nothing
    prompts = [
        [(m.role, m.text) for call in calls(c) for m in call.messages]
        for row in parent.subruns
        for c in row.conversations
    ]
    # France is the DataFrame's first row, but the stub answered it late: Singapore finished first, so it comes first.
    assert prompts == [
        [(Role.USER, "What's the capital of Singapore")],
        [(Role.USER, "What's the capital of France")],
    ]
    assert [r.location for r in iter_runs(parent)] == ["", "subruns[0]", "subruns[1]"]


def test_embedded_subruns_equal_the_row_files(loaded: dict[str, LoadedRun]) -> None:
    parent = loaded["qa_dataset-run_id_Run_1_stub_model-a.run.json"].run
    assert parent.subruns[0] == loaded["qa_row-run_param_id_sg_stub_model-a.run.json"].run
    assert parent.subruns[1] == loaded["qa_row-run_param_id_fr_stub_model-a.run.json"].run


def test_cached_subruns_have_no_conversation_and_no_times(loaded: dict[str, LoadedRun]) -> None:
    parent = loaded["capital_eval-CACHED-SUBRUNS-example.run.json"].run
    assert not parent.cached and parent.start_time is not None
    rows = parent.subruns
    assert [row.cached for row in rows] == [True, True]
    assert [row.py_run_id for row in rows] == ["capital_row-Run #3", "capital_row-Run #4"]
    assert all(row.conversations == [] and row.start_time is None and row.end_time is None for row in rows)


def _line_of(source: Path, fragment: str) -> int:
    (number,) = [n for n, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1) if fragment in line]
    return number


def test_assertions_point_at_requests(loaded: dict[str, LoadedRun]) -> None:
    run = loaded["riddle_check-minimal-example.run.json"].run
    passed, failed = run.assertions
    assert passed.passed and not failed.passed and failed.status is AssertionStatus.FAILED
    # lineNumber is the line of the call in the task file that ran (scripts/kbench_fixtures/riddle_check.py)
    assert failed.line_number == _line_of(DEMOS / "riddle_check.py", 'assert_in("xyz"')
    assert passed.line_number == _line_of(DEMOS / "riddle_check.py", "assert_contains_regex(")
    assert passed.definition == "kbench.assertions.assert_contains_regex("  # only the call's first line
    assert failed.expectation == "Deliberately failing check."
    (ref,) = passed.request_refs
    assert ref.conversation_id == run.conversations[0].id
    assert ref.request_id == run.conversations[0].requests[0].id
    # the task returned True although an assertion failed: the result is the return value
    assert run.result == BooleanResult(True)


def test_iter_runs_walks_depth_first(loaded: dict[str, LoadedRun]) -> None:
    capital = loaded["capital_eval-CACHED-SUBRUNS-example.run.json"].run
    assert [r.task.name for r in iter_runs(capital)] == ["capital_eval", "capital_row", "capital_row"]


# --- the reference files are reproducible ----------------------------------------------------

# Values that differ from one generation to the next: times, random ids, run counters (the dataset rows run in two
# threads), token counts and durations, and tracebacks (they quote the installed libraries' line numbers).
VOLATILE_KEYS = frozenset(
    {
        *("startTime", "endTime", "timestamp", "end_time", "started_at", "finished_at"),
        *("id", "conversationId", "requestId", "conversation_id", "request_id"),
        *("pyRunId", "py_run_id", "kbench_py_run_id", "session_id", "trajectory_id", "trial_name"),
        *("inputTokens", "outputTokens", "thinkingTokens", "prompt_tokens", "completion_tokens"),
        *("total_prompt_tokens", "total_completion_tokens", "n_input_tokens", "n_output_tokens"),
        *("durationMs", "totalBackendLatencyMs", "total_backend_latency_ms", "errorMessage"),
    }
)


def _flatten(value: Any, path: str = "$", key: str = "") -> dict[str, tuple[str, Any]]:
    """Every JSON key path (list items by index) -> (value type, value; None for containers and volatile keys)."""
    if isinstance(value, dict):
        flat: dict[str, tuple[str, Any]] = {path: ("object", None)}
        for name, item in value.items():
            flat.update(_flatten(item, f"{path}.{name}", name))
        return flat
    if isinstance(value, list):
        flat = {path: ("array", None)}
        for index, item in enumerate(value):
            flat.update(_flatten(item, f"{path}[{index}]", key))
        return flat
    return {path: (type(value).__name__, None if key in VOLATILE_KEYS else value)}


@pytest.mark.slow
@pytest.mark.kbench
def test_regenerated_reference_files_have_the_committed_structure(tmp_path: Path) -> None:
    """Run the generator (the real kaggle-benchmarks, the loopback stub) and compare with the committed files: the
    same files, the same key paths, the same value types, and the same values wherever they do not vary by run."""
    pytest.importorskip("kaggle_benchmarks")
    out = tmp_path / "kbench"
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--out", str(out)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]

    committed = sorted(p.name for p in REFERENCE.glob("*.json"))
    assert sorted(p.name for p in out.glob("*.json")) == committed
    differences = []
    for name in committed:
        want = _flatten(json.loads((REFERENCE / name).read_text(encoding="utf-8")))
        got = _flatten(json.loads((out / name).read_text(encoding="utf-8")))
        differences += [
            f"{name} {path}: committed {want.get(path)!r}, regenerated {got.get(path)!r}"
            for path in sorted(want.keys() | got.keys())
            if want.get(path) != got.get(path)
        ]
    assert differences == [], "\n".join(differences[:30])


# --- synthetic file: proto features the reference files do not use ---------------------------


def test_synthetic_features() -> None:
    run = load_run(DATA / "synthetic_features.run.json").run
    assert run.task.subtask_file_names == ["row.task.json"] and run.task.definition == ""
    assert run.start_time == datetime(2026, 11, 30, 1, 2, 3, 123456, tzinfo=UTC)  # nanoseconds truncated
    assert run.end_time == datetime(2026, 11, 30, 1, 2, 3, tzinfo=UTC)  # +02:00 offset honoured
    result = run.result
    assert isinstance(result, NumericResult)
    assert math.isnan(result.value) and result.confidence_interval == math.inf

    first, second = calls(run.conversations[0])
    roles = [m.role for m in first.messages]
    assert roles == [Role.DEVELOPER, Role.TOOL, Role.USER, Role.USER, Role.UNSPECIFIED]
    image, mixed = first.messages[2], first.messages[3]
    assert image.text == "" and image.attachments == [
        Attachment(kind="inline_data", mime_type="image/png", data="iVBORw0KGgo=")
    ]
    assert mixed.text == "Look at this."
    assert mixed.attachments[0].file_uri == "https://example.org/cat.jpg"
    assert mixed != Message(Role.USER, "Look at this.")  # an attachment is part of what was sent
    assert first.reply == Message(Role.ASSISTANT, "")  # `parts: [{}]` is an empty reply
    metrics = first.metrics
    assert metrics is not None
    assert (metrics.input_tokens, metrics.output_tokens, metrics.duration_ms) == (7, 0, 12)
    assert metrics.thinking_tokens == 0 and metrics.output_tokens_cost_nanodollars is None
    assert metrics.total_backend_latency_ms == 9007199254740993  # beyond float precision, kept exact

    assert second.new_messages[0].decoded_text == "quoted"  # the documented false positive
    assert second.reply.decoded_text == '{"a": 1}'  # a JSON object is not a string literal: unchanged

    level1 = run.subruns[0]
    assert level1.model_slug is None and level1.state is RunState.RUNNING
    assert level1.result == DictResult({"nested": {"k": [1.0, 2.5, True, None, "s"]}})
    level2 = level1.subruns[0]
    assert level2.state is RunState.QUEUED and level2.location == "subruns[0].subruns[0]"
    assert level2.result == BooleanResult(True, type="UNSPECIFIED")
    assert [r.task.name for r in iter_runs(run)] == ["synthetic features", "level 1", "level 2"]


@pytest.mark.parametrize(
    ("stored", "decoded"),
    [
        ('"plain"', "plain"),
        ('"{\\"a\\": [1, 2]}"', '{"a": [1, 2]}'),
        ('"\\u00e9"', "\N{LATIN SMALL LETTER E WITH ACUTE}"),
        ("plain text", "plain text"),
        ('"unterminated', '"unterminated'),
        ('"a" and "b"', '"a" and "b"'),
        (' "padded"', ' "padded"'),
        ('"', '"'),
        ("", ""),
        ("42", "42"),
    ],
)
def test_decode_payload_text(stored: str, decoded: str) -> None:
    assert decode_payload_text(stored) == decoded


# --- broken input ----------------------------------------------------------------------------


def _delete(data: Any, path: list[Any]) -> None:
    for key in path[:-1]:
        data = data[key]
    del data[path[-1]]


def _set(data: Any, path: list[Any], value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


def _broken_bytes(case: dict[str, Any], reference_dir: Path) -> bytes:
    if "raw" in case:
        return str(case["raw"]).encode("utf-8")
    raw = (reference_dir / case["base"]).read_bytes()
    if "truncate_at" in case:
        return raw[: int(len(raw) * case["truncate_at"])]
    if "replace" in case:
        old, new = case["replace"]
        assert old.encode() in raw, f"{case['id']}: text to replace not found"
        return raw.replace(old.encode(), new.encode(), 1)
    data = json.loads(raw)
    if "delete" in case:
        _delete(data, case["delete"])
    if "set" in case:
        path, value = case["set"]
        _set(data, path, copy.deepcopy(value))
    return json.dumps(data, indent=2).encode("utf-8")


@pytest.mark.parametrize("case", MALFORMED, ids=[c["id"] for c in MALFORMED])
def test_broken_file_is_reported_and_the_batch_goes_on(
    case: dict[str, Any], reference_dir: Path, tmp_path: Path
) -> None:
    good = tmp_path / "a_good.run.json"
    shutil.copyfile(reference_dir / "riddle_check-minimal-example.run.json", good)
    bad = tmp_path / "b_broken.run.json"
    bad.write_bytes(_broken_bytes(case, reference_dir))
    later = tmp_path / "c_good.run.json"
    shutil.copyfile(reference_dir / "unicode_zero_score-example.run.json", later)

    runs, errors = load_runs(tmp_path)

    assert [r.path for r in runs] == [good, later]
    (error,) = errors
    assert error.path == bad
    assert error.location == case["location"]
    assert case["message"] in error.message
    if "truncated" not in case["message"]:
        assert "truncated?" not in error.message  # a syntax or shape error is not called truncation
    assert str(bad) in str(error) and case["message"] in str(error)


def test_non_utf8_bytes_are_reported(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.run.json"
    bad.write_bytes(b'{"taskVersion": {"name": "caf\xe9"}}')
    runs, errors = load_runs([bad])
    assert runs == []
    assert "not UTF-8 text (byte offset 29)" in errors[0].message


def test_pathologically_deep_json_is_reported(tmp_path: Path) -> None:
    bad = tmp_path / "deep.run.json"
    bad.write_text("[" * 200_000 + "]" * 200_000)
    _, errors = load_runs([bad])
    assert errors[0].message == "JSON nested too deeply to read"


def test_missing_paths_and_empty_directories_are_errors_not_silence(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.task.json").write_text("{}")
    runs, errors = load_runs([tmp_path / "nowhere", empty])
    assert runs == []
    assert [(e.path, e.message) for e in errors] == [
        (tmp_path / "nowhere", "no such file or directory"),
        (empty, "no .run.json files in this directory"),
    ]


def test_load_run_raises_for_a_single_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "x.run.json"
    bad.write_text('{"taskVersion": {"name": "t"}, "state": "BENCHMARK_TASK_RUN_STATE_COMPLETED"}')
    with pytest.raises(RunFileError, match="results: missing or empty"):
        load_run(bad)
    with pytest.raises(RunFormatError) as raised:
        parse_run({"taskVersion": "t"})
    assert raised.value.location == "taskVersion"


def test_load_task_file_rejects_a_run_file(reference_dir: Path) -> None:
    with pytest.raises(RunFileError, match="this is a run file"):
        load_task_file(reference_dir / "riddle_check-minimal-example.run.json")


# --- loading trees ---------------------------------------------------------------------------


def test_download_tree_records_server_version_model_and_run_id(reference_dir: Path, tmp_path: Path) -> None:
    # The tree `kaggle benchmarks tasks download riddle-check -o out` writes:
    # out/<task>/<server version>/<normalized model slug>/<run id>/, files possibly nested inside.
    out = tmp_path / "out"
    placed = {
        out / "riddle-check" / "7" / "model-a" / "123456" / "riddle_check-run_id_Run_1_stub_model-a.run.json": (
            "riddle_check-run_id_Run_1_stub_model-a.run.json"
        ),
        out / "riddle-check" / "7" / "stub-llama" / "123457" / "kaggle" / "working" / "r.run.json": (
            "structured_and_reasoning-run_id_Run_2_meta_stub-llama.run.json"
        ),
        out / "riddle-check" / "unset" / "model-a" / "9" / "e.run.json": "errored_run_example.run.json",
        out / "riddle-check" / "7" / "model-a" / "123456" / "riddle_check.task.json": "riddle_check.task.json",
    }
    for target, source in placed.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(reference_dir / source, target)
    loose = tmp_path / "loose" / "u.run.json"
    loose.parent.mkdir()
    shutil.copyfile(reference_dir / "unicode_zero_score-example.run.json", loose)

    runs, errors = load_runs([out, loose, out / "riddle-check" / "unset"])  # the last repeats a file

    assert errors == []
    layouts = {
        r.path.name: (at.task_slug, at.server_version, at.model_dir, at.run_id) if (at := r.layout) else None
        for r in runs
    }
    assert layouts == {
        "riddle_check-run_id_Run_1_stub_model-a.run.json": ("riddle-check", 7, "model-a", "123456"),
        "r.run.json": ("riddle-check", 7, "stub-llama", "123457"),
        "e.run.json": ("riddle-check", None, "model-a", "9"),
        "u.run.json": None,
    }
    nested = next(r for r in runs if r.path.name == "r.run.json")
    assert nested.layout is not None and nested.layout.run_dir == out / "riddle-check" / "7" / "stub-llama" / "123457"
    assert nested.run.model_slug == "meta/stub-llama"


@pytest.mark.parametrize(
    "path",
    ["a/b/c.run.json", "task/x/model/1/f.run.json", "task/3/model/abc/f.run.json", "3/model/1/f.run.json"],
)
def test_paths_outside_the_download_layout_have_none(path: str) -> None:
    assert download_layout(path) is None


def _truncation_messages(source: Path, cuts: list[int], scratch: Path) -> list[str]:
    raw = source.read_bytes()
    messages = []
    for cut in cuts:
        scratch.write_bytes(raw[:cut])
        try:
            load_run(scratch)
        except RunFileError as exc:
            messages.append(exc.message)
        else:
            messages.append("LOADED")
    return messages


def test_every_truncation_of_a_run_file_is_reported_as_truncated(reference_dir: Path, tmp_path: Path) -> None:
    source = reference_dir / "riddle_check-minimal-example.run.json"
    cuts = list(range(1, source.stat().st_size))
    messages = _truncation_messages(source, cuts, tmp_path / "cut.run.json")
    unflagged = [(cut, m) for cut, m in zip(cuts, messages, strict=True) if "truncated?" not in m]
    assert unflagged == []


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_truncations_of_every_reference_file_are_errors(name: str, reference_dir: Path, tmp_path: Path) -> None:
    source = reference_dir / name
    size = source.stat().st_size
    cuts = sorted({*range(1, size, 61), size - 1})
    messages = _truncation_messages(source, cuts, tmp_path / "cut.run.json")
    assert all("truncated?" in m for m in messages), [m for m in messages if "truncated?" not in m][:3]


# --- prompt reconstruction as a property -----------------------------------------------------


def _group_like_kbench(history: list[Message]) -> list[Request]:
    """kbench's grouping (serialization.py `_prepare_conversations_data`): a reply closes a request."""
    requests: list[Request] = []
    pending: list[Message] = []
    for message in history:
        pending.append(message)
        if message.role is Role.ASSISTANT:
            requests.append(Request(id=f"c-req-{len(requests) + 1}", contents=pending, metrics=RequestMetrics()))
            pending = []
    if pending:
        requests.append(Request(id=f"c-req-{len(requests) + 1}", contents=pending, metrics=None))
    return requests


@given(st.lists(st.sampled_from([Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL]), max_size=12))
def test_each_call_sees_exactly_the_history_before_its_reply(roles: list[Role]) -> None:
    history = [Message(role, f"message {index}") for index, role in enumerate(roles)]
    conversation = Conversation(id="c-0a1b2c3d", requests=_group_like_kbench(history), metrics=None)
    reply_positions = [index for index, role in enumerate(roles) if role is Role.ASSISTANT]

    got = calls(conversation)

    assert [call.messages for call in got] == [history[:position] for position in reply_positions]
    assert [call.reply for call in got] == [history[position] for position in reply_positions]
    starts = [0] + [position + 1 for position in reply_positions]
    assert [call.new_messages for call in got] == [
        history[start:end] for start, end in zip(starts, reply_positions, strict=False)
    ]
    pending = unanswered(conversation)
    tail_start = starts[-1]
    if tail_start < len(history):
        assert pending is not None
        assert pending.messages == history and pending.new_messages == history[tail_start:]
    else:
        assert pending is None
