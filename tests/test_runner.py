"""`hallubench run` / `hallubench.runner`: task files under the real kaggle-benchmarks, real HTTP.

The model side is either the OpenAI stub (fast, exact wire checks) or the embedded SmolLM2
server (`model` marker). Every run writes real kbench task/run files into tmp_path.
"""

from __future__ import annotations

import io
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main
from hallubench.tooling.runner import (
    COMPLETED,
    ModelEndpoint,
    ProgressDisplay,
    RunnerError,
    RunOutcome,
    run_task_file,
)

from spine_demo import install_demo
from support.openai_stub import Fault, OpenAIStub

DATA = Path(__file__).resolve().parent / "data" / "run"
DEMO = DATA / "demo_v1.py"
RAISES = DATA / "raises_v1.py"
GOLDEN_PROMPTS: dict[str, str] = json.loads((DATA / "demo_v1.prompts.json").read_text("utf-8"))
STUB_MODEL = "stub/model-a"

kbench_run = [pytest.mark.kbench, pytest.mark.slow, pytest.mark.timeout(180)]


def _answer(messages: list[dict[str, Any]]) -> str:
    """A deterministic stub 'model': right for two questions, wrong for the third."""
    question = messages[-1]["content"]
    if "France" in question:
        return "Paris."
    if "2 + 3" in question:
        return "5"
    return "Green, probably."


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub(replies=_answer, model=STUB_MODEL) as server:
        yield server


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def _user_texts(run: dict[str, Any]) -> list[str]:
    """Every user message a run file records, in order."""
    return [
        part["text"]
        for conversation in run.get("conversations", [])
        for request in conversation.get("requests", [])
        for content in request.get("contents", [])
        if content.get("role") == "CONTENT_ROLE_USER"
        for part in content.get("parts", [])
    ]


def _stored_run(outcome: RunOutcome) -> dict[str, Any]:
    (stored,) = outcome.stored_runs
    return _load(stored.path)


# -- end to end with the stub ---------------------------------------------------------------


@pytest.mark.kbench
@pytest.mark.slow
@pytest.mark.timeout(180)
def test_stub_run_writes_real_run_files_and_sends_exactly_the_task_prompts(
    stub: OpenAIStub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A decoy: a Model Proxy configuration in the caller's environment and in a .env file
    # above the output directory must not reach the task (kbench loads .env with override=True).
    with OpenAIStub(replies="decoy", model="decoy") as decoy:
        monkeypatch.setenv("MODEL_PROXY_URL", decoy.proxy_url)
        monkeypatch.setenv("MODEL_PROXY_API_KEY", "decoy-key")
        monkeypatch.setenv("LLM_DEFAULT", "decoy")
        (tmp_path / ".env").write_text(
            f"MODEL_PROXY_URL={decoy.proxy_url}\nMODEL_PROXY_API_KEY=k\nLLM_DEFAULT=decoy\nBENCHMARK_MODE=TESTING\n"
        )
        progress = io.StringIO()
        outcome = run_task_file(
            DEMO,
            model=ModelEndpoint(stub.base_url, STUB_MODEL, api_key="secret-key"),
            out_dir=tmp_path / "out",
            stream=progress,
        )
        assert decoy.requests == []

    assert outcome.problem is None, outcome.log_tail()
    assert outcome.ok and outcome.returncode == 0

    # The stored task: one task file, one COMPLETED run with a subrun per case.
    assert [path.name for path in outcome.task_files] == ["demo-v1.task.json"]
    stored = _stored_run(outcome)
    assert stored["state"] == COMPLETED
    assert stored["modelVersion"]["slug"] == STUB_MODEL
    assert len(stored["subruns"]) == len(GOLDEN_PROMPTS)
    assert all(sub["state"] == COMPLETED for sub in stored["subruns"])
    assert stored["results"][0]["numericResult"]["value"] == pytest.approx(2 / 3)
    row_files = [run for run in outcome.run_files if run.task_name == "demo_v1_row"]
    assert len(row_files) == len(GOLDEN_PROMPTS)

    # What went over the wire is exactly what the task meant to send, and what the run files say.
    sent = [messages for messages in stub.chat_messages()]
    assert all(len(messages) == 1 and messages[0]["role"] == "user" for messages in sent)
    assert sorted(m[0]["content"] for m in sent) == sorted(GOLDEN_PROMPTS.values())
    recorded = sorted(text for sub in stored["subruns"] for text in _user_texts(sub))
    assert recorded == sorted(GOLDEN_PROMPTS.values())
    for body in stub.chat_requests():
        assert body["model"] == STUB_MODEL
        assert body["temperature"] == 0  # support_temperature=True: the task's temperature goes out
    chat_headers = [r.headers for r in stub.requests if r.path == "/v1/chat/completions"]
    assert all(h["authorization"] == "Bearer secret-key" for h in chat_headers)

    # The endpoint was checked before the task started; progress was reported per row.
    assert stub.requests[0].path == "/v1/models"
    progress_lines = progress.getvalue().splitlines()
    assert [line.split()[0] for line in progress_lines] == ["1/3", "2/3", "3/3"]
    assert sorted(line.split()[1] for line in progress_lines) == sorted(GOLDEN_PROMPTS)
    assert (outcome.out_dir / "run.log").read_text("utf-8").count("[User]") == 3


@pytest.mark.kbench
@pytest.mark.slow
@pytest.mark.timeout(180)
def test_cli_limit_runs_only_the_first_cases_and_reports_the_files(
    stub: OpenAIStub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(
        ["run", str(DEMO), "--base-url", stub.base_url, "--model-name", STUB_MODEL, "--limit", "2", "--out", str(out)]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert len(stub.chat_messages()) == 2
    assert sorted(out.glob("*.run.json")) != []
    # The count it states is what is on disk, and every file it counts is accounted for below it.
    on_disk = len(list(out.glob("*.run.json")))
    assert f"wrote {on_disk} run files and 1 task file" in captured.out
    assert f"  {on_disk - 1} row run files, one per row" in captured.out
    assert "demo-v1-run_id_Run_1_stub_model-a.run.json  COMPLETED  2 rows" in captured.out
    assert f"output: {out.resolve()}" in captured.out
    progress = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert [(p["done"], p["total"]) for p in progress] == [(1, 2), (2, 2)]


@pytest.mark.kbench
@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_row_whose_model_call_fails_is_recorded_and_the_run_goes_on(stub: OpenAIStub, tmp_path: Path) -> None:
    # openai retries 5xx twice: three faults make the first row's call fail for good.
    stub.add_faults(Fault.status(500), Fault.status(500), Fault.status(500))
    outcome = run_task_file(
        DEMO, model=ModelEndpoint(stub.base_url, STUB_MODEL), out_dir=tmp_path / "out", limit=2, progress=False
    )
    assert outcome.ok, outcome.problem
    stored = _stored_run(outcome)
    states = sorted(sub["state"] for sub in stored["subruns"])
    assert states == [COMPLETED, "BENCHMARK_TASK_RUN_STATE_ERRORED"]
    assert len([r for r in stub.requests if r.fault is not None]) == 3


@pytest.mark.kbench
@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_task_file_that_raises_fails_with_its_error_and_exit_code_1(
    stub: OpenAIStub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(["run", str(RAISES), "--base-url", stub.base_url, "--model-name", STUB_MODEL, "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 1
    assert "the task file exited with code 1" in captured.err
    assert "ValueError: scorer exploded on purpose" in captured.err  # the log tail is shown
    (run_file,) = out.glob("raises-v1-*.run.json")  # kbench still records the ERRORED run
    assert _load(run_file)["state"] == "BENCHMARK_TASK_RUN_STATE_ERRORED"


@pytest.mark.kbench
@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_generated_task_file_honours_limit_and_progress_by_registry_name(
    scratch_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real generator's output (not the hand-written demo) under `hallubench run <name>`."""
    install_demo(scratch_repo)
    assert main(["build", "demo"]) == 0
    cases = json.loads((scratch_repo / "frozen_cases" / "demo" / "v1" / "cases.json").read_text("utf-8"))
    with OpenAIStub(replies=lambda messages: "apple", model=STUB_MODEL) as stub:
        out = tmp_path / "out"
        code = main(
            [
                "run",
                "demo/v1",
                "--base-url",
                stub.base_url,
                "--model-name",
                STUB_MODEL,
                "--limit",
                "2",
                "--out",
                str(out),
            ]
        )
        err = capsys.readouterr().err
    assert code == 0, err
    progress = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert [p["case_id"] for p in progress] == [case["id"] for case in cases[:2]]
    assert all(p["total"] == 2 for p in progress)
    (stored_path,) = out.glob("demo-v1-*.run.json")
    stored = _load(stored_path)
    assert stored["state"] == COMPLETED
    assert len(stored["subruns"]) == 2
    recorded = [text for sub in stored["subruns"] for text in _user_texts(sub)]
    assert recorded == [m["content"] for messages in stub.chat_messages() for m in messages[-1:]]


@pytest.mark.kbench
@pytest.mark.slow
@pytest.mark.timeout(180)
def test_proxy_mode_leaves_the_model_to_kaggle_benchmarks_configuration(
    stub: OpenAIStub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MODEL_PROXY_URL", stub.proxy_url)
    monkeypatch.setenv("MODEL_PROXY_API_KEY", "proxy-key")
    monkeypatch.setenv("LLM_DEFAULT", STUB_MODEL)
    out = tmp_path / "out"
    code = main(["run", str(DEMO), "--model", "proxy", "--limit", "1", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    (chat,) = [r for r in stub.requests if r.method == "POST"]
    assert chat.path == "/openapi/chat/completions"  # kbench's ModelProxy path, not ours
    assert chat.headers["authorization"] == "Bearer proxy-key"
    assert chat.json["temperature"] is None  # the hosted proxy default: support_temperature=False


# -- failures before anything runs ----------------------------------------------------------


def test_unreachable_endpoint_exits_2_before_running_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base_url = f"http://127.0.0.1:{_free_port()}/v1"
    out = tmp_path / "out"
    code = main(["run", str(DEMO), "--base-url", base_url, "--model-name", "m", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"the model endpoint {base_url} is unreachable" in err
    assert not (out / "run.log").exists()


def test_missing_task_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", str(tmp_path / "no_such_task.py"), "--base-url", "http://127.0.0.1:9/v1", "--model-name", "m"])
    assert code == 2
    assert "task file not found" in capsys.readouterr().err


def test_unknown_task_name_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "no-such-benchmark-xyz", "--base-url", "http://127.0.0.1:9/v1", "--model-name", "m"])
    assert code == 2
    assert "unknown task 'no-such-benchmark-xyz'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--base-url", "http://127.0.0.1:9/v1"], "--base-url needs --model-name"),
        (["--model", "embedded", "--base-url", "http://x/v1", "--model-name", "m"], "exclude each other"),
        (["--base-url", "http://x/v1", "--model-name", "m", "--threads", "2"], "embedded model only"),
        (["--model-name", "m"], "need --base-url"),
        (["--limit", "0"], "--limit must be at least 1"),
        (["--base-url", "http://x/v1", "--model-name", "m", "--api-key-env", "HB_TEST_UNSET_KEY"], "HB_TEST_UNSET_KEY"),
    ],
)
def test_conflicting_or_bad_arguments_exit_2(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(DEMO), *extra]) == 2
    assert message in capsys.readouterr().err


def test_out_dir_with_old_run_files_is_refused(stub: OpenAIStub, tmp_path: Path) -> None:
    (tmp_path / "old-run_id_Run_1_m.run.json").write_text("{}")
    with pytest.raises(RunnerError, match="already holds run files"):
        run_task_file(DEMO, model=ModelEndpoint(stub.base_url, STUB_MODEL), out_dir=tmp_path)
    assert stub.chat_messages() == []


# -- end to end with the embedded model -----------------------------------------------------


@pytest.mark.model
@pytest.mark.kbench
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_embedded_model_run_writes_completed_run_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code = main(["run", str(DEMO), "--limit", "2", "--out", str(out), "--max-tokens", "64"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    (stored_path,) = out.glob("demo-v1-*.run.json")
    stored = _load(stored_path)
    assert stored["state"] == COMPLETED
    assert stored["modelVersion"]["slug"] == "smollm2-135m-instruct"
    assert len(stored["subruns"]) == 2
    for sub in stored["subruns"]:
        assert sub["state"] == COMPLETED
        replies = [
            part["text"]
            for conversation in sub["conversations"]
            for request in conversation["requests"]
            for content in request["contents"]
            if content["role"] == "CONTENT_ROLE_ASSISTANT"
            for part in content["parts"]
        ]
        assert len(replies) == 1 and replies[0].strip()
        assert sub["conversations"][0]["metrics"]["outputTokens"] <= 64
    recorded = sorted(text for sub in stored["subruns"] for text in _user_texts(sub))
    assert recorded == sorted([GOLDEN_PROMPTS["capital-fr"], GOLDEN_PROMPTS["sum-2-3"]])
    assert (out / "embedded-model.log").stat().st_size > 0


# -- the progress display -------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_display_survives_partial_and_malformed_lines(tmp_path: Path) -> None:
    progress = tmp_path / "progress.jsonl"
    progress.write_text("")
    plain = io.StringIO()
    display = ProgressDisplay(progress, plain)
    with progress.open("a") as handle:
        handle.write('{"done": 1, "total": 4, "case_id": "a"}\nnot json\n{"done": 2, "tot')
        handle.flush()
        display.poll()
        assert len(plain.getvalue().splitlines()) == 1  # the half-written line waits for its end
        handle.write('al": 4, "case_id": "b"}\n{"case_id": "no counts"}\n')
        handle.flush()
        display.poll()
    lines = plain.getvalue().splitlines()
    assert [line.split()[:2] for line in lines] == [["1/4", "a"], ["2/4", "b"]]


def test_progress_display_draws_a_bar_on_a_terminal(tmp_path: Path) -> None:
    progress = tmp_path / "progress.jsonl"
    progress.write_text(
        '{"done": 1, "total": 4, "case_id": "w-apple"}\n{"done": 2, "total": 4, "case_id": "w-river"}\n'
    )
    terminal = _Terminal()
    display = ProgressDisplay(progress, terminal)
    display.start()
    display.stop()
    frames = terminal.getvalue().split("\r")[1:]
    assert frames[0].startswith("[#####...............] 1/4 w-apple  ")
    assert frames[1].startswith("[##########..........] 2/4 w-river  ")
    assert terminal.getvalue().endswith("\n")
