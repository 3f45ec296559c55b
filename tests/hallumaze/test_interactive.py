"""Ariadne's Thread: turns in one conversation, walls that block, hint vs placebo at the same moments."""

from __future__ import annotations

import re

from hallubench.hallumaze import task_v3
from hallubench.hallumaze.cases import make_case
from hallubench.hallumaze.grid import Cell, direction_between, step
from hallubench.hallumaze.prompt import PLACEBO
from hallubench.hallumaze.trial import load_trial
from hallubench.rows import play_row
from hallubench.tooling.hallumaze.report import ariadne_comparison
from hallubench.tooling.testing import ScriptedConversation

POSITION = re.compile(r"(?:You are at|now at|still at|reached the exit) \((\d+),(\d+)\)")


class Oscillator:
    """Walks back and forth between the start and its neighbour until told it is going in circles."""

    def __init__(self, size: int, seed: int) -> None:
        trial = load_trial(make_case(size, seed, mode="interactive"))
        self.maze, self.solution = trial.maze, list(trial.solution)
        self.position: Cell = (0, 0)
        self.solving = False
        self.sent: list[str] = []
        self.number = 0

    def system(self, text: str) -> None:
        self.sent.append(text)

    def ask(self, text: str) -> str:
        self.sent.append(text)
        found = POSITION.findall(text)
        if found:
            self.position = (int(found[-1][0]), int(found[-1][1]))
        if "going in circles" in text:
            self.solving = True
        if "Now write the final output:" in text:
            path = self.solution if self.position == self.maze.exit else [(0, 0), self.position]
            return "BACKTRACK_COUNT: 0\nHALLUCINATION_COUNT: 0\nFINAL_PATH: " + "→".join(f"({r},{c})" for r, c in path)
        lines = []
        here = self.position
        for _ in range(4):
            if self.solving:
                if here == self.maze.exit:
                    break
                direction = direction_between(here, self.solution[self.solution.index(here) + 1])
            else:
                ahead = self.solution[1] if here == (0, 0) else (0, 0)
                direction = direction_between(here, ahead)
            self.number += 1
            lines.append(f"STEP {self.number}: ({here[0]},{here[1]}) → [{direction}] | confidence: 90%")
            assert direction is not None
            here = step(here, direction)
        return "\n".join(lines)


def _play(group: str, agent: object, seed: int = 0) -> dict[str, object]:
    case = make_case(5, seed, group=group, mode="interactive")
    return play_row(task_v3.play, case, agent, protocol_id="hallumaze/v3", payload_sha256="t")  # type: ignore[arg-type]


def test_hint_helps_a_hint_following_agent_and_placebo_does_not() -> None:
    rows = []
    for seed in (0, 1, 2):
        for group in ("A", "B", "C"):
            rows.append(_play(group, Oscillator(5, seed), seed))
    by = {(r["condition"]["seed"], r["condition"]["group"]): r for r in rows}  # type: ignore[index]
    for seed in (0, 1, 2):
        b, c, a = by[(seed, "B")], by[(seed, "C")], by[(seed, "A")]
        assert b["scores"]["sr"] == 1.0 and c["scores"]["sr"] == 0.0 and a["scores"]["sr"] == 0.0  # type: ignore[index]
        events = b["scores"]["interactive"]["loop_events"]  # type: ignore[index]
        assert events and events[0]["steps_to_new_cell"] is not None
        assert c["scores"]["interactive"]["loop_events"][0]["steps_to_new_cell"] is None  # type: ignore[index]
    comparison = ariadne_comparison(rows, resamples=500)
    assert comparison["sr"]["mean_diff"] == 1.0
    assert comparison["summary"]["b_minus_c"]["sr"] == 1.0


def test_b_and_c_differ_only_by_the_intervention_line() -> None:
    fixed = ["STEP 1: (0,0) → [E]\nSTEP 2: (0,1) → [W]\nSTEP 3: (0,0) → [E]"] * 3

    sent = {}
    for group in ("A", "B", "C"):
        agent = ScriptedConversation([*fixed, ""], repeat_last=True)
        _play(group, agent)
        sent[group] = agent.asked
    assert len(sent["B"]) == len(sent["C"]) == len(sent["A"])
    diff = [(b, c) for b, c in zip(sent["B"], sent["C"], strict=True) if b != c]
    assert diff, "group B got a hint"
    for b, c in diff:
        assert c.replace(PLACEBO, "").splitlines() != b.splitlines()
        assert [x for x in b.splitlines() if "ARIADNE" not in x] == [x for x in c.splitlines() if "ARIADNE" not in x]
        assert PLACEBO in c and "going in circles" in b
    assert not any("ARIADNE" in text for text in sent["A"][1:])


def test_walls_block_and_are_counted_as_hallucinations() -> None:
    replies = ["STEP 1: (0,0) → [S]\nSTEP 2: (0,0) → [E]\nSTEP 3: (5,5) → [E]", "", "", "FINAL_PATH: (0,0)→(0,1)"]

    agent = ScriptedConversation(list(replies))
    row = _play("A", agent)
    scores = row["scores"]
    assert scores["hc"] == 1 and scores["teleports"] == 1  # type: ignore[index]
    assert "BLOCKED by a wall, still at (0,0)" in agent.asked[1]
    assert "moved, now at (0,1)" in agent.asked[1] and "You are at (0,2)" in agent.asked[1]
    assert row["calls"] == 4 and scores["interactive"]["turns"] == 3  # type: ignore[index]


def test_replaying_the_same_replies_sends_the_same_messages() -> None:
    first, second = Oscillator(5, 1), Oscillator(5, 1)
    row1, row2 = _play("B", first, 1), _play("B", second, 1)
    assert first.sent == second.sent
    assert row1["prompt_sha256"] == row2["prompt_sha256"]
    assert first.sent[0] == task_v3.render(make_case(5, 1, group="B", mode="interactive"))
