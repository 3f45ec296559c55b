"""The outer jail: what it enforces, what it refuses to run without, and what it says about itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hallubench.tooling.jail.client import Jail
from hallubench.tooling.jail.frames import FrameError, FrameReader, encode
from hallubench.tooling.jail.policy import LAYERS, SIMULATE_ENV, JailPolicy, JailRefused, parse_accepted
from hallubench.tooling.rescore.players import _mismatch

TEST_FILE = "from solution import get_positive\n\n\ndef test_a():\n    assert get_positive([1, -1]) == [1]\n"


def _classify(tmp_path: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`misled classify` of one small file against a problem written here (no data set needed)."""
    data = tmp_path / "problems.jsonl"
    problem = {
        "task_id": "Python/30",
        "entry_point": "get_positive",
        "prompt": "def get_positive(l: list):\n",
        "declaration": "def get_positive(l: list):\n",
        "canonical_solution": "    return [e for e in l if e > 0]\n",
        "buggy_solution": "    return [e for e in l if e < 0]\n",
        "test": "def check(f):\n    assert f([1]) == [1]\n",
    }
    data.write_text(json.dumps(problem) + "\n", encoding="utf-8")
    tests = tmp_path / "test_a.py"
    tests.write_text(TEST_FILE, encoding="utf-8")
    command = [sys.executable, "-m", "hallubench", "misled", "classify", "--problem", "Python/30"]
    command += ["--data", str(data), "--tests", str(tests), *extra]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})}, check=False
    )


def test_with_every_layer_the_file_is_classified_and_the_layers_are_recorded(tmp_path: Path) -> None:
    done = _classify(tmp_path, "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["counts"]["effective"] == 1
    jail = found["jail"]
    assert jail["missing"] == [] and jail["read_only_view"] and jail["no_new_privs"]
    assert jail["seccomp_mode"] == 2 and jail["capabilities"] == "0x0"
    assert set(jail["namespaces"]) >= {"user", "mount", "pid", "ipc", "uts", "network"}
    if os.geteuid() == 0:  # root inside a user namespace never maps to root outside
        assert jail["user_outside"].startswith("uid 64833")


@pytest.mark.parametrize("layer", list(LAYERS))
def test_a_missing_layer_is_refused_by_name_and_nothing_runs(tmp_path: Path, layer: str) -> None:
    done = _classify(tmp_path, env={SIMULATE_ENV: layer})
    assert done.returncode == 7, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert f"lack {layer}:" in done.stderr and f"--jail-without {layer}" in done.stderr
    assert LAYERS[layer].split(" (")[0].split(":")[0] in done.stderr  # how to get it


@pytest.mark.parametrize("layer", ["landlock", "seccomp"])
def test_an_accepted_missing_layer_runs_and_is_recorded(tmp_path: Path, layer: str) -> None:
    done = _classify(tmp_path, "--json", "--jail-without", layer, env={SIMULATE_ENV: layer})
    assert done.returncode == 0, done.stderr
    jail = json.loads(done.stdout)["jail"]
    assert jail["missing"] == [layer]
    assert (layer == "landlock") == ("landlock" not in jail) and (layer == "seccomp") == ("seccomp" not in jail)


@pytest.mark.skipif(os.geteuid() != 0, reason="the refusal concerns a root caller; this test process is not root")
def test_as_root_no_view_means_no_jail_even_when_accepted(tmp_path: Path) -> None:
    done = _classify(tmp_path, "--jail-without", "bubblewrap", env={SIMULATE_ENV: "bubblewrap"})
    assert done.returncode == 7
    assert "cannot drop to its unprivileged user" in done.stderr


def test_an_unknown_layer_name_is_a_usage_error(tmp_path: Path) -> None:
    done = _classify(tmp_path, "--jail-without", "selinux")
    assert done.returncode == 2 and "unknown jail layer(s) selinux" in done.stderr
    with pytest.raises(ValueError, match="the layers are bubblewrap"):
        parse_accepted(["landlock,selinux"])
    assert parse_accepted(["landlock,seccomp", "landlock"]) == {"landlock", "seccomp"}


def test_the_refusal_names_every_missing_layer() -> None:
    refusal = JailRefused([("landlock", "no Landlock here"), ("seccomp", "no libseccomp")])
    assert "landlock: no Landlock here" in str(refusal) and "--jail-without landlock,seccomp" in str(refusal)


def test_the_worker_calls_nothing_but_hallubench_and_says_why() -> None:
    with Jail(JailPolicy()) as jail:
        refused = jail.request({"op": "call", "function": "os:system", "arguments": {"command": "true"}})
        unknown = jail.request({"op": "exec", "code": "1"})
        answered = jail.request({"op": "call", "function": "hallubench.hashing:sha256_text", "arguments": {"text": ""}})
    assert "only hallubench's own functions" in refused["error"]
    assert unknown["error"] == "unknown request 'exec'"
    assert answered["result"] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def _frames(data: bytes) -> FrameReader:
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    return FrameReader(read_end)


def test_frames_carry_any_text_and_refuse_what_is_not_a_frame() -> None:
    text = "lone \ud800 surrogate, \x00 and \u2028 survive"
    assert _frames(encode({"text": text})).receive()["text"] == text
    for broken, why in (
        (b"12\n{}", "closed"),
        (b"abc\n{}", "not a frame header"),
        (b"2\n[]", "not a JSON object"),
        (b"3\n{x}", "not JSON"),
        (b"99999999999\n", "over the limit"),
    ):
        with pytest.raises(FrameError, match=why):
            _frames(broken).receive()


def test_a_mismatch_from_the_worker_must_be_exactly_one() -> None:
    good = {
        "message_index": 0,
        "call_index": 1,
        "expected_role": "user",
        "logged_role": None,
        "offset": 0,
        "rendered_context": "",
        "logged_context": "",
        "reason": "the log ends",
        "rendered_text": "",
        "logged_text": "",
    }
    assert _mismatch(good) is not None and _mismatch(None) is None
    for bad in ({**good, "offset": "0"}, {**good, "extra": 1}, {**good, "logged_role": 3}, [good]):
        with pytest.raises(ValueError):
            _mismatch(bad)


def test_a_checkout_or_interpreter_under_tmp_is_shown_over_the_scratch_not_hidden_by_it(tmp_path: Path) -> None:
    """A clone made under /tmp (its .venv there too) must stay visible: bwrap mounts in order, so the scratch
    tmpfs on /tmp comes before every read-only view, which then lies on top of it."""
    from hallubench.tooling.jail.command import SCRATCH, bwrap_command

    inside = tmp_path / "checkout"
    inside.mkdir()
    assert str(inside).startswith(SCRATCH + "/")
    argv = bwrap_command("bwrap", JailPolicy(readable=(str(inside),)), ["true"], stage_dir=None).argv
    tmpfs = argv.index("--tmpfs")
    assert argv[tmpfs + 1] == SCRATCH
    binds = [i for i, arg in enumerate(argv) if arg == "--ro-bind" and argv[i + 2].startswith(SCRATCH + "/")]
    assert binds and all(tmpfs < i for i in binds), argv
