"""hallumaze v3 sends exactly what v2 sends, so `rescore --task hallumaze/v2 --scorer hallumaze/v3` applies.

Checked on the built task files (the bytes hosted runs use): the same cases, the same first prompt
for every case, and the same follow-up messages turn by turn in interactive trials, whatever the
model answers (the simulated agents, broken replies, silence, replies that walk into walls).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hallubench.hallumaze.trial import load_trial
from hallubench.tooling.hallumaze.baselines import AGENTS, AgentConversation, agent_walk, transcript
from hallubench.tooling.taskfile.reader import FrozenProtocol, read_task_file
from hallubench.tooling.testing import ScriptedConversation

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def versions() -> Iterator[tuple[FrozenProtocol, FrozenProtocol]]:
    with (
        FrozenProtocol(read_task_file(ROOT / "tasks" / "hallumaze_v2.py")) as v2,
        FrozenProtocol(read_task_file(ROOT / "tasks" / "hallumaze_v3.py")) as v3,
    ):
        yield v2, v3


def test_the_case_sets_and_golden_prompt_hashes_are_v2s() -> None:
    folder = ROOT / "frozen_cases" / "hallumaze"
    for name in ("cases.json", "prompts.sha256.json"):
        assert (folder / "v3" / name).read_bytes() == (folder / "v2" / name).read_bytes(), name
    v2, v3 = (read_task_file(ROOT / "tasks" / f"hallumaze_v{n}.py") for n in (2, 3))
    assert v3.cases == v2.cases and len(v3.cases) == 240


def test_every_first_prompt_is_v2s(versions: tuple[FrozenProtocol, FrozenProtocol]) -> None:
    v2, v3 = versions
    for case in v3.task.cases:
        assert v3.entry.render(case) == v2.entry.render(case), case["id"]


def _scripts() -> Iterator[tuple[str, list[str], str]]:
    """Reply scripts: (name, replies, the reply once they run out); an agent's name: it answers itself."""
    for agent in AGENTS:
        yield agent, [], ""
    yield "silent", [], ""
    yield "unreadable", ["STEP 1: (0,0) → [?] | confidence: 50%\nSTEP 2: nowhere"], "STEP 9: (9,9) → [Q]"
    yield "walls", ["\n".join(f"STEP {k}: (0,0) → [{d}] | confidence: 90%" for k, d in enumerate("NWNWSE", 1))], ""
    yield "misplaced", ["STEP 1: (3,3) → [S]\nSTEP 2: (7,7) → [E]\nLOOP detected at (1,1)"], "FINAL_PATH: (0,0)"


def _conversation(protocol: FrozenProtocol, case: dict[str, Any], name: str, replies: list[str], after: str) -> Any:
    if name in AGENTS:
        trial = load_trial(case)
        lines, block = transcript(trial.maze, agent_walk(name, trial))
        per_turn = trial.moves_per_turn if trial.mode == "interactive" else None
        agent = AgentConversation(lines, block, per_turn)
        recorder = ScriptedConversation.of()
        recorder.ask = lambda text: (recorder.sent.append(("user", text)), agent.ask(text))[1]  # type: ignore[method-assign]
    else:
        recorder = ScriptedConversation([*replies, after], repeat_last=True)
    protocol.rows.play_row(protocol.entry.play, case, recorder, protocol_id="p", payload_sha256="x")
    return recorder.sent


@pytest.mark.slow
def test_every_conversation_is_v2s_turn_by_turn(versions: tuple[FrozenProtocol, FrozenProtocol]) -> None:
    """All 240 cases, the interactive follow-up turns included, under seven reply scripts each."""
    v2, v3 = versions
    turns = 0
    for case in v3.task.cases:
        for name, replies, after in _scripts():
            sent = _conversation(v3, case, name, replies, after)
            assert sent == _conversation(v2, case, name, replies, after), (case["id"], name)
            turns += len(sent)
    assert turns > 240 * 7 * 2, "interactive trials asked follow-up questions"


def test_the_task_file_declares_v3_and_its_prompts() -> None:
    task = read_task_file(ROOT / "tasks" / "hallumaze_v3.py")
    assert (task.protocol_id, task.task_name, task.entry) == ("hallumaze/v3", "hallumaze-v3", "maze/task_v3.py")
    goldens = json.loads((ROOT / "frozen_cases" / "hallumaze" / "v3" / "prompts.sha256.json").read_text())
    assert sorted(goldens) == sorted(case["id"] for case in task.cases)
