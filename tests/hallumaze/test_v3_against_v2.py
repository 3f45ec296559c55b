"""Differential tests: hallumaze v3's rows against the frozen hallumaze v2 scorer's, field by field.

Every field of every row, and of every aggregate, must equal v2's, except where a change listed
in `tests/hallumaze/data/v3_changes.json` says otherwise: its row rule (BRS as lure resistance) says
how the v3 value follows from v2's own row, and its worked replies (labels read where they
stand) give both values. The v2 side is the frozen task file itself, loaded as `rescore` loads it.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hallubench.hallumaze import task_v3
from hallubench.hallumaze.cases import make_case, v2_cases
from hallubench.hallumaze.metrics import composite_score
from hallubench.hallumaze.parse import parse_reply
from hallubench.hallumaze.parse_fast import CASED_NON_ASCII
from hallubench.hallumaze.trial import load_trial
from hallubench.rows import play_row
from hallubench.tooling.hallumaze.baselines import AGENTS, AgentConversation, agent_walk, transcript
from hallubench.tooling.taskfile.reader import FrozenProtocol, read_task_file
from hallubench.tooling.testing import ScriptedConversation

from .reference import parse as reference_parse

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "hallumaze" / "data"
CHANGES = json.loads((DATA / "v3_changes.json").read_text(encoding="utf-8"))
ROW_RULE = CHANGES["row_rules"][0]
AGGREGATE_RULE = CHANGES["aggregate_rules"][0]


@pytest.fixture(scope="module")
def v2() -> Iterator[FrozenProtocol]:
    with FrozenProtocol(read_task_file(ROOT / "tasks" / "hallumaze_v2.py")) as frozen:
        yield frozen


def flat(value: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted paths to every leaf (lists are leaves)."""
    if not isinstance(value, dict):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, item in value.items():
        out.update(flat(item, f"{prefix}.{key}" if prefix else key))
    return out


def by_rule(row: dict[str, Any]) -> dict[str, Any]:
    """The row rule's fields as v3 defines them, computed from `row`'s own MEI, CE, lures and format."""
    scores = row["scores"]
    if scores["format"]["failure"]:
        brs, score, basis = None, 0.0, "format_failure"
    else:
        lures = scores["lures"]
        brs = round(lures["resists"] / lures["exposures"], 9) if lures["exposures"] else None
        score, basis = composite_score(scores["mei"], scores["ce"], brs)
    return {"scores.brs": brs, "scores.score": score, "scores.score_basis": basis, "detail": _DETAIL}


_DETAIL = object()  # `detail`: the row's one-line summary, written as v2 writes it, of the row's own scores


def _detail_of(scores: dict[str, Any]) -> str:
    """v2's `detail` format (frozen with it), filled with `scores`."""
    return (
        f"SR {scores['sr']:.0f}, HC {scores['hc']}, teleports {scores['teleports']}, BT {scores['bt']}, "
        f"LT {scores['lt']}, MEI {scores['mei']:.3f}, score {scores['score']:.3f}"
        + (" (format failure: no verifiable move or path)" if scores["format"]["failure"] else "")
    )


def assert_same_but(old: dict[str, Any], new: dict[str, Any], expected_new: dict[str, Any]) -> None:
    """`new` equals `old` in every field but those of `expected_new`, which `new` holds (floats within 2e-9)."""
    a, b = flat(old), flat(new)
    assert set(a) == set(b), set(a) ^ set(b)
    for key in a:
        if key in expected_new:
            want, got = expected_new[key], b[key]
            if want is _DETAIL:
                want = _detail_of(new["scores"])
            if isinstance(want, float) and isinstance(got, float):
                assert math.isclose(got, want, abs_tol=2e-9), (key, got, want)
            else:
                assert got == want and type(got) is type(want), (key, got, want)
        else:
            assert repr(a[key]) == repr(b[key]), (key, a[key], b[key])


def _rows(v2: FrozenProtocol, case: dict[str, Any], replies: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    old_script, new_script = ScriptedConversation(list(replies)), ScriptedConversation(list(replies))
    old = v2.rows.play_row(v2.entry.play, case, old_script, protocol_id="p", payload_sha256="x")
    new = play_row(task_v3.play, case, new_script, protocol_id="p", payload_sha256="x")
    assert new_script.sent == old_script.sent, "v3 sent a different conversation"
    return old, new


def _replies_of(case: dict[str, Any], lines: list[str], block: list[str], per_turn: int | None) -> Iterator[str]:
    conv = AgentConversation(list(lines), block, per_turn)
    sent: list[str] = []

    class Tap:
        def system(self, text: str) -> None:
            pass

        def ask(self, text: str) -> str:
            reply = conv.ask(text)
            sent.append(reply)
            return reply

    task_v3.play(case, Tap())
    yield from sent


@pytest.mark.slow
def test_every_case_with_every_agent_differs_from_v2_only_by_the_rule(v2: FrozenProtocol) -> None:
    cases = v2_cases()
    assert len(cases) == 240
    for case in cases:
        for agent in AGENTS:
            old, new = _rows(v2, case, list(_replies_of(case, *_transcript(case, agent))))
            assert_same_but(old, new, by_rule(old))
            assert new["verdict"] == old["verdict"]


def _transcript(case: dict[str, Any], agent: str) -> tuple[list[str], list[str], int | None]:
    trial = load_trial(case)
    lines, block = transcript(trial.maze, agent_walk(agent, trial))
    return lines, block, trial.moves_per_turn if trial.mode == "interactive" else None


_SINGLE = [make_case(n, s, mirage=m) for n, s, m in ((5, 0, True), (5, 3, False), (7, 2, True), (11, 1, True))]
_INTERACTIVE = [case for case in v2_cases() if case["mode"] == "interactive"][:9]


def _mutate(lines: list[str], rng: random.Random, edits: int) -> list[str]:
    every = list(lines)
    for _ in range(edits):
        if not every:
            break
        at = rng.randrange(len(every))
        kind = rng.randrange(6)
        if kind == 0:
            del every[at]
        elif kind == 1:
            every.insert(rng.randrange(len(every)), every[at])
        elif kind == 2:
            every[at] = every[at].replace("[N]", "[E]").replace("[S]", "[W]").replace("100%", "80%")
        elif kind == 3:
            every[at] = every[at].replace("(0,", "(9,").replace(",1)", ",99)")
        elif kind == 4:
            every[at] = every[at].replace("STEP", "Step").replace("→", "->").replace(" | confidence: 100%", "")
        else:
            every[at] = every[at] + rng.choice([" | dead end", " | LOOP detected", " (2,2)", " | STRATEGY_CHANGE"])
    return every


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(range(len(_SINGLE))), st.sampled_from(AGENTS), st.integers(0, 2**32), st.integers(0, 10))
def test_mutated_single_shot_replies_differ_only_by_the_rule(
    v2: FrozenProtocol, which: int, agent: str, seed: int, edits: int
) -> None:
    case = _SINGLE[which]
    lines, block, _ = _transcript(case, agent)
    text = "\n".join([*_mutate(lines, random.Random(seed), edits), "", *block])
    old, new = _rows(v2, case, [text])
    assert_same_but(old, new, by_rule(old))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(range(len(_INTERACTIVE))), st.sampled_from(AGENTS), st.integers(0, 2**32), st.integers(0, 12))
def test_mutated_interactive_conversations_differ_only_by_the_rule(
    v2: FrozenProtocol, which: int, agent: str, seed: int, edits: int
) -> None:
    """Walls walked into, out-of-grid moves, misplaced and unreadable steps: the same messages, the same rows."""
    case = _INTERACTIVE[which]
    lines, block, per_turn = _transcript(case, agent)
    replies = list(_replies_of(case, _mutate(lines, random.Random(seed), edits), block, per_turn))
    old, new = _rows(v2, case, replies)
    assert_same_but(old, new, by_rule(old))


_LINES = st.sampled_from(
    [
        "STEP {k}: ({r},{c}) → [{d}] | confidence: {p}%", "STEP {k}: ({r},{c}) → [{d}] | confidence: {p}% | go",
        "STEP {k}: ({r},{c}) → [{d}]", "Step {k}: ({r},{c}) -> {d} (confidence: 0.{p})", "STEP {k}: ({r},{c})",
        "STEP {k}: ({r},{c}) → ({r},{p})", "STEP {k}: ({r},{c}) → [{d}] | confidence: 1{p}0%",
        "DEAD_END at ({r},{c}) — backtracking", "dead end at ({r},{c})", "LOOP_DETECTED at ({r},{c})",
        "STRATEGY_CHANGE", "BACKTRACK_COUNT: {k}", "HALLUCINATION_COUNT: {p}", "CONFIDENCE_LOG: step{k}:{p}, step1:50",
        "FINAL_PATH: (0,0)→({r},{c})→({c},{r})", "FINAL_PATH: (0,0)→(0,1)→(1,1)→(1,2)", "", "루프 막다른 길",
        "FINAL_PATH:(0,0)→(1,0)→(1, 1)", "FINAL_PATH: (0, 0)→({r},{c})", "CONFIDENCE_LOG: step1:{p}, step{k}:1{p}",
        "CONFIDENCE_LOG: step{k}:0{p}, step2:100, step3:99", "<think>STEP 1: (0,0) → [S]</think>", "step {k} :",
        "dead_endead end loop_detectedloop detected 막다른막다른 루프루프",
        "STEP {k}: ({r},{c}) -> {d} | confidence {p}",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(range(len(_SINGLE))),
    st.lists(
        st.tuples(
            _LINES,
            st.integers(0, 40),
            st.integers(-1, 12),
            st.integers(-1, 12),
            st.sampled_from("NSEWNSEW?"),
            st.integers(0, 100),
        ),
        max_size=40,
    ),
    st.sampled_from(["\n", "\r\n"]),
)
def test_generated_replies_differ_only_by_the_rule(
    v2: FrozenProtocol, which: int, lines: list[tuple[str, int, int, int, str, int]], newline: str
) -> None:
    case = _SINGLE[which]
    text = newline.join(
        template.format(k=k, r=abs(r), c=abs(c) if c >= 0 else 70, d=d, p=p) for template, k, r, c, d, p in lines
    )
    old, new = _rows(v2, case, [text])
    assert_same_but(old, new, by_rule(old))


def _listed_cases() -> list[dict[str, Any]]:
    return list(CHANGES["replies"])


@pytest.mark.parametrize("entry", _listed_cases(), ids=[entry["reply"] for entry in _listed_cases()])
def test_each_listed_change_is_what_v2_and_v3_give(v2: FrozenProtocol, entry: dict[str, Any]) -> None:
    case = make_case(entry["maze"]["size"], entry["maze"]["seed"])
    text = (DATA / "replies" / entry["reply"]).read_text(encoding="utf-8")
    old, new = _rows(v2, case, [text])
    flat_old = flat(old)
    for key, value in entry["v2"].items():  # what the data says v2 gives is what the frozen file gives
        got = flat_old[key]
        assert got == value or (isinstance(value, float) and math.isclose(got, value, abs_tol=2e-9)), (key, got)
    if old["verdict"] == "error":  # v2 could not score the reply at all: v3's listed values, and its own rule
        flat_new = flat(new)
        for key, value in {**by_rule(new), **entry["v3"]}.items():
            want, got = (_detail_of(new["scores"]) if value is _DETAIL else value), flat_new[key]
            if isinstance(want, float) and isinstance(got, float):
                assert math.isclose(got, want, abs_tol=2e-9), (key, got, want)
            else:
                assert got == want and type(got) is type(want), (key, got, want)
        return
    assert set(entry["v2"]) == set(entry["v3"]), "each listed field has both values"
    rule_of_new = by_rule(new)  # the row rule applies to v3's own components, whatever changed them
    if entry["rule"] == ROW_RULE["id"]:
        assert rule_of_new == by_rule(old), "only the rule's fields change, so the rule reads the same components"
    assert_same_but(old, new, {**rule_of_new, **entry["v3"]})


def test_every_listed_rule_field_is_one_the_rule_computes() -> None:
    assert set(ROW_RULE["fields"]) == set(by_rule(play_row(task_v3.play, make_case(5, 0), ScriptedConversation.of("x"),
                                                             protocol_id="p", payload_sha256="x")))  # fmt: skip
    for entry in CHANGES["replies"]:
        assert entry["rule"] in (ROW_RULE["id"], "labels_in_place", "numbers_of_any_length")
        assert entry["why"] and entry["v2"] != entry["v3"]


def test_the_aggregate_differs_from_v2_only_in_the_listed_fields(v2: FrozenProtocol) -> None:
    rows_old, rows_new = [], []
    for case in v2_cases()[::3]:
        for agent in AGENTS[:2]:
            old, new = _rows(v2, case, list(_replies_of(case, *_transcript(case, agent))))
            rows_old.append(old)
            rows_new.append(new)
    broken = v2.rows.error_row("p", "x", "n05-s0009-mirage-A-r0", "model_call", "no reply")
    rows_old.append(broken)
    rows_new.append(dict(broken))
    a, b = flat(v2.entry.aggregate(rows_old)), flat(task_v3.aggregate(rows_new))
    listed = set(AGGREGATE_RULE["fields"])
    assert set(a) - listed == set(b) - listed
    for key in set(a) - listed:
        assert repr(a[key]) == repr(b[key]), key
    scored = [r for r in rows_new if "scores" in r]
    with_brs = [r["scores"]["brs"] for r in scored if r["scores"]["brs"] is not None]
    assert b["metrics.n_brs"] == len(with_brs) < len(scored)
    assert math.isclose(b["metrics.brs"], sum(with_brs) / len(with_brs))
    assert math.isclose(b["headline"], sum(r["scores"]["score"] for r in scored) / len(rows_new))


_PLAIN = st.sampled_from(
    ["STEP ", "Step ", "step", "3", "12", ": ", "(0,0)", "(2, 3)", " → ", " -> ", "[E]", "[N]", " | ", "confidence: ",
     "80%", "0.5", "DEAD_END at (1,2)", "LOOP detected", "STRATEGY_CHANGE", "BACKTRACK_COUNT: 2", "FINAL_PATH: ",
     "CONFIDENCE_LOG: step1:90", "\n", "\r\n", "  ", "**", "`", "_", "<think>", "</think>", "K", "ſtep 1: 40"]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(_PLAIN, max_size=40).map("".join))
def test_v3_parses_as_v2_where_no_label_fix_applies(text: str) -> None:
    """Without characters that upper-casing changes in length or maps onto a label's letters, both parsers agree."""
    if CASED_NON_ASCII.search(text) is None:
        assert repr(parse_reply(text)) == repr(reference_parse.parse_reply(text))
