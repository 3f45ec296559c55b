"""misled-tests v3's entry module: v1's prompts byte for byte, v3's executor, containment in every row, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hallubench.misled_tests import task_v3
from hallubench.misled_tests.cases import cases_for
from hallubench.rows import play_row

from support.frozen import frozen

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "misled_tests" / "data"
MISLED_REPLY = "```python\n" + (DATA / "get_positive_example.py").read_text(encoding="utf-8") + "```\n"
EFFECTIVE_REPLY = (
    "```py\nfrom solution import get_positive\n\n\ndef test_keeps_positive():\n"
    "    assert get_positive([1, -1]) == [1]\n```"
)
CWD_REPLY = "```python\nimport os\n\n\ndef test_a():\n    assert os.path.basename(os.getcwd()) != 'buggy'\n```\n"


class ScriptedConversation:
    """Plays back fixed replies in order and records what was asked."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.asked: list[str] = []

    def system(self, text: str) -> None:
        self.asked.append(text)

    def ask(self, text: str) -> str:
        self.asked.append(text)
        return self.replies.pop(0)


@pytest.fixture(scope="module")
def v1_entry() -> Iterator[ModuleType]:
    """misled-tests v1's entry as its frozen task file has it: what v3's prompts are held to."""
    with frozen("misled-tests/v1") as loaded:
        yield loaded.entry


def _case(condition: str, thinking: str = "off") -> dict[str, Any]:
    return {case["id"]: case for case in cases_for(thinking)}[f"p030-{condition}-think_{thinking}"]


def _prepared(condition: str, thinking: str = "off") -> dict[str, Any]:
    """A v3 case as the task file hands it to render and play: after `prepare`."""
    return task_v3.prepare([_case(condition, thinking)])[0]


def _play(module: Any, case: dict[str, Any], replies: list[str]) -> tuple[dict[str, Any], ScriptedConversation]:
    conv = ScriptedConversation(replies)
    if module is task_v3:
        case = task_v3.prepare([case])[0]
    return play_row(module.play, case, conv, protocol_id="misled-tests/v3", payload_sha256="x"), conv


@pytest.mark.parametrize("condition", ["buggy_code", "model_spec", "human_docstring"])
def test_v3_sends_exactly_what_v1_sends(data_env: Path, condition: str, v1_entry: ModuleType) -> None:
    replies = ['"""Return the positive numbers of l, in order."""', EFFECTIVE_REPLY]
    _, v1 = _play(v1_entry, _case(condition), list(replies))
    _, v3 = _play(task_v3, _case(condition), list(replies))
    assert v3.asked == v1.asked and task_v3.render(_prepared(condition)) == v1_entry.render(_case(condition))


@pytest.mark.parametrize("version", ["v2", "v3"])
def test_golden_prompts_of_later_versions_are_v1s(repo_root: Path, version: str) -> None:
    for benchmark in ("misled-tests", "misled-tests-thinking"):
        folder = repo_root / "frozen_cases" / benchmark
        assert (folder / version / "prompts.sha256.json").read_bytes() == (
            folder / "v1" / "prompts.sha256.json"
        ).read_bytes()
        assert (folder / version / "cases.json").read_bytes() == (folder / "v1" / "cases.json").read_bytes()


def test_prepare_adds_the_verified_problem_and_render_needs_no_data(
    data_env: Path, monkeypatch: pytest.MonkeyPatch, v1_entry: ModuleType
) -> None:
    case = _prepared("buggy_code")
    assert case["humanevalpack"]["task_id"] == "Python/30" and set(case) - set(_case("buggy_code")) == {"humanevalpack"}
    v1_prompt = v1_entry.render(_case("buggy_code"))
    monkeypatch.setenv("HALLUBENCH_HUMANEVALPACK", "/nonexistent/humanevalpack.jsonl")
    monkeypatch.setattr(task_v3, "cached_problems", None)  # render and play may not load the data
    assert task_v3.render(case) == v1_prompt


def test_an_unprepared_or_altered_case_is_a_data_error_never_a_model_failure(data_env: Path) -> None:
    conv = ScriptedConversation([EFFECTIVE_REPLY])
    row = play_row(task_v3.play, _case("buggy_code"), conv, protocol_id="misled-tests/v3", payload_sha256="x")
    assert row["verdict"] == "error" and row["error_kind"] == "data" and conv.asked == []
    altered = _prepared("buggy_code")
    altered["humanevalpack"] = {**altered["humanevalpack"], "buggy_solution": "    return l\n"}
    with pytest.raises(task_v3.DataError, match="pinned hash"):
        task_v3.render(altered)
    wrong = {**_case("buggy_code"), "problem_sha256": "0" * 64}
    with pytest.raises(task_v3.DataError, match="hash mismatch"):
        task_v3.prepare([wrong])


def test_play_misled_reply_records_the_containment(data_env: Path) -> None:
    row, _ = _play(task_v3, _case("buggy_code"), [MISLED_REPLY])
    assert row["verdict"] == "fail" and row["executor"] == "misled-tests/v3 executor"
    assert row["scores"]["misled"] == 6 and row["scores"]["both-pass"] == 1 and row["scores"]["n_tests"] == 7
    layers = row["isolation"]
    assert {"fresh_instance_per_version", "landlock_abi", "seccomp", "page_cache_warmed"} <= set(layers)
    for version in ("buggy", "fixed"):
        own = layers["versions"][version]
        assert own["python_guard"] == "tripwire" and own["process_per_item"] and not own["harness_runs_test_code"]
        assert {"user_namespace", "ipc_namespace", "pid_namespace", "read_only_root", "landlock", "seccomp"} <= set(own)
    assert row["pytest_version"] and sorted(row["classification"]["version_order"]) == ["buggy", "fixed"]


def test_the_working_directory_no_longer_gives_the_version_away(data_env: Path) -> None:
    """Under v1 this reply was a pass: its one test was classified effective."""
    row, _ = _play(task_v3, _case("buggy_code"), [CWD_REPLY])
    assert row["verdict"] == "fail"
    assert row["scores"]["effective"] == 0 and row["scores"]["both-pass"] == 1


def test_model_spec_asks_twice_and_passes_on_an_effective_test(data_env: Path) -> None:
    row, conv = _play(task_v3, _case("model_spec"), ['"""Return the positive numbers."""', EFFECTIVE_REPLY])
    assert row["verdict"] == "pass" and row["calls"] == 2 and row["spec"] == "Return the positive numbers."
    assert "e < 0" not in conv.asked[1]


def test_comparable_leaves_out_what_depends_on_the_machine(data_env: Path) -> None:
    row, _ = _play(task_v3, _case("buggy_code"), [MISLED_REPLY])
    other = json.loads(json.dumps(row))
    other["isolation"] = {"user_namespace": False}
    other["pytest_version"] = "8.3.5"
    other["classification"]["version_order"].reverse()
    other["classification"]["tests"][0]["buggy_detail"] = "/tmp/elsewhere"
    other["classification"]["tests"][0]["tripped"] = {"buggy": ["open '/tmp/elsewhere'"]}
    assert task_v3.comparable(other) == task_v3.comparable(row)
    other["classification"]["tests"][0]["buggy"] = "fail"
    assert task_v3.comparable(other) != task_v3.comparable(row)


def _classify(data_env: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "hallubench", "misled", "classify", "--problem", "Python/30", "--data"]
    return subprocess.run([*command, str(data_env), *extra], capture_output=True, text=True, check=False)


def test_cli_classifies_several_files_on_several_workers(data_env: Path, tmp_path: Path) -> None:
    effective = tmp_path / "test_effective.py"
    effective.write_text(EFFECTIVE_REPLY.split("\n", 1)[1].rsplit("```", 1)[0], encoding="utf-8")
    broken = tmp_path / "test_broken.py"
    broken.write_text("def test_a(:\n", encoding="utf-8")
    files = [str(DATA / "get_positive_example.py"), str(effective), str(broken)]
    done = _classify(data_env, "--jobs", "2", "--json", "--tests", *files)
    assert done.returncode == 1, done.stderr  # one file gives no tests
    results = json.loads(done.stdout)
    assert [result["file"] for result in results] == files
    assert [result["status"] for result in results] == ["ok", "ok", "collection_error"]
    assert results[0]["counts"]["misled"] == 6 and results[1]["counts"]["effective"] == 1
    assert all(result["isolation"]["versions"]["buggy"]["python_guard"] == "tripwire" for result in results)
    assert all(result["jail"]["read_only_view"] and not result["jail"]["missing"] for result in results)
    text = _classify(data_env, "--no-namespaces", "--tests", str(effective))
    assert text.returncode == 0 and "effective  buggy=fail" in text.stdout
    assert _classify(data_env, "--jobs", "0", "--tests", str(effective)).returncode == 2
