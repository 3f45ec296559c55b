"""The fast readers give exactly what the definitions give, every pattern is linear-time, and rows stay compact.

`parse_fast.read_whole` against `parse_lines.parse_by_lines` (the line-by-line definition),
`labels.Label` against plain case-insensitive scans, the v1.1 scorer fed the parsed reply against
its own scan, and each pattern rewritten for linear time against the hallumaze v2 pattern it
replaces, on generated texts.
"""

from __future__ import annotations

import json
import math
import random
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hallubench import stats
from hallubench.hallumaze import original_scoring, parse_fast, parse_lines, task_v3
from hallubench.hallumaze.calibration import calibration_summary
from hallubench.hallumaze.cases import make_case
from hallubench.hallumaze.compact import cells_text, confidence_counts, ints_text, read_cells, read_ints
from hallubench.hallumaze.labels import Label
from hallubench.hallumaze.parse import parse_reply
from hallubench.hallumaze.trial import load_trial
from hallubench.rows import play_row
from hallubench.tooling.hallumaze.baselines import AgentConversation, agent_walk, transcript


def _agree(text: str) -> None:
    """`parse_reply` (the fast reading where it applies) equals the definition, field by field."""
    fast, definition = parse_reply(text), parse_lines.parse_by_lines(text)
    assert fast == definition
    assert repr(fast) == repr(definition)
    assert fast.step_count == len(definition.steps)


_PIECES = st.sampled_from(
    [
        "STEP ", "Step ", "**STEP ", "  STEP ", "1. STEP ", "STEP  ", "3", "12", ": ", ":", " ", "(0,0)", "(2, 3)",
        "(1,1)", " → ", " -> ", "→", "[E]", "[N]", "[S]", "[W]", "[east]", "[(0,1)]", "[E→]", "E", " | ",
        "confidence: ", "confidence:", "Confidence: ", "conf ", "80%", "100%", "101%", "1000%", "0.5", "85.5%", "7 %",
        "05%", "dead end at (1,2)", "DEAD_END", "dead", "LOOP detected", "loop", "strategy_change", "STRATEGY",
        "ſtrategy", "K", "**", "`", "__", "_", "|", "%", "reason", " ", "\t", "확신도: 50%",
    ]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_PIECES, max_size=12).map("".join), max_size=6))
def test_fast_step_readers_agree_with_the_definition(lines: list[str]) -> None:
    _agree("\n".join(lines))


_REPLY_LINES = st.sampled_from(
    [
        "STEP 1: (0,0) → [E] | confidence: 100%", "STEP 2: (0,1) → [S] | confidence: 85% | the corridor goes on",
        "STEP 3: (1,1) → [W] | confidence: 7%", "STEP 3: (70,1) → [W] | confidence: 07%",
        "STEP 12: (63,64) → [N] | confidence: 0%", "STEP 4: (1,0) → [N] | confidence: 100% | dead end ahead",
        "STEP 5: (0,0) → [E] | confidence: 100% | step 6: (0,1) → [S]", "STEP 9: (9,9) → [S] | confidence: 101%",
        "STEP 2: (0,1) → [S] | confidence: 85% | **bold**", "Step 7: (2,2) -> east (80%)", "STEP 8: (2,2)",
        "DEAD_END at (1,2) — backtracking", "LOOP_DETECTED at (0,0)", "STRATEGY_CHANGE", "", "   ",
        "BACKTRACK_COUNT: 2", "HALLUCINATION_COUNT: 1", "CONFIDENCE_LOG: step1:90, step2:80",
        "confidence_log: step3=50", "CONFIDENCE_LOG: step1:100, step2:0, step1:7",
        "CONFIDENCE_LOG: step1:0.5, step2:90",
        "CONFIDENCE_LOG: step1:100, step2:101, step3:40", "CONFIDENCE_LOG: STEP 4 = 30%, step5:1.0",
        "FINAL_PATH: (0,0)→(0,1)", "final_path:", "(1,1)→(2,2)", "FINAL_PATH: none", "<think>STEP 1: (0,0) → [E]",
        "</think>", "ß ﬁnal_path: (0,0)", "ﬁnal_PATH: (0,0)→(1,0)", "CONFIDENCE_LOG ſtep 1: 50", "Kelvin K STEP",
        "STEP 3: (1,1) → [W] | confidence: 7% | ſtep", "확신도: 50%", "STEP 1: (0,0) → [E] | 확신도: 50%",
        "STEP 2: (0,1) → [S] | confidence: 60% | 막다른 길, 루프", "dead end at (2,2)", "loop detected", "step",
        "STEP 6: (1,0) →", "[S] | confidence: 40%", "DEAD_END at (1,2) — dead end", "DEAD_END at (1,2)__x",
        "DEAD_END at (0,0) — loop", "DEAD_END at (3,3) — step 2", "DEAD_END at (1, 2)", " DEAD_END at (2,1)",
        "DEAD_END at (4,4) — 막다른", "DEAD_END at (0,1) — ſtrategy", "DEAD_END at (0,1)**", "DEAD_END at (2,0)  ",
        "STEP 4: (1,0) → [N] | confidence: 0%", "STEP 1: (0,0) → [S] | ",
    ]
)  # fmt: skip
_BREAKS = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", "\u2028", "\x0c"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(_REPLY_LINES, _BREAKS), max_size=14), st.booleans())
def test_whole_reply_reading_agrees_with_the_line_by_line_definition(
    pairs: list[tuple[str, str]], trailing: bool
) -> None:
    text = "".join(line + brk for line, brk in pairs)
    if not trailing and pairs:
        text = text[: -len(pairs[-1][1])]
    _agree(text)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(_REPLY_LINES, _BREAKS), max_size=14))
def test_v11_score_from_the_parsed_reply_equals_its_own_scan(pairs: list[tuple[str, str]]) -> None:
    maze = load_trial(make_case(5, 0)).maze
    text = "".join(line + brk for line, brk in pairs)
    assert original_scoring.score_v11(maze, text, parse_reply(text)) == original_scoring.score_v11(maze, text)


def test_known_caseless_characters_are_caseless() -> None:
    """`CASED_NON_ASCII` lets texts skip re.I for lower(): only right if its exceptions have no case."""
    allowed = [chr(i) for i in range(0x80, 0x110000) if parse_fast.CASED_NON_ASCII.match(chr(i)) is None]
    assert allowed and all(c.upper() == c == c.lower() for c in allowed)


def test_the_fast_reader_takes_the_answer_format_as_columns() -> None:
    line = "STEP 4: (1,2) → [S] | confidence: 85% | the corridor continues south"
    parsed = parse_reply(line)
    assert parsed.step_columns == parse_lines.StepColumns(["4"], ["1,2"], ["S"], ["85"], [1])
    assert parsed.steps == (parse_lines.StepLine(4, (1, 2), "S", None, 0.85, 1),)
    assert parse_reply(line + ", not a dead end").step_columns is None  # read line by line: "dead" is a keyword
    assert parse_reply(line + "\u2028").step_columns is None  # a line break only splitlines knows: the definition
    _agree(line)


def test_compact_encodings_round_trip() -> None:
    rng = random.Random(3)
    cells = [(rng.randrange(40), rng.randrange(40)) for _ in range(200)]
    assert read_cells(cells_text(cells)) == cells
    assert read_cells(cells_text([])) == []
    assert read_ints(ints_text([3, 7, 12])) == [3, 7, 12]
    assert confidence_counts([(0.9, True), (1.0, False), (0.9, False), (0.9, True)]) == [[0.9, 2, 1], [1.0, 0, 1]]


def test_pooled_calibration_from_counts_equals_calibration_from_every_move() -> None:
    rng = random.Random(11)
    rows: list[dict[str, Any]] = []
    conf: list[float] = []
    labels: list[float] = []
    for _ in range(30):
        pairs = [(rng.choice([0.5, 0.8, 0.85, 0.9, 1.0]), rng.random() < 0.8) for _ in range(rng.randrange(0, 40))]
        conf += [c for c, _ in pairs]
        labels += [1.0 if y else 0.0 for _, y in pairs]
        rows.append({"scores": {"moves": len(pairs) + 2, "calibration": {"by_confidence": confidence_counts(pairs)}}})
    summary = calibration_summary(rows)
    assert summary["n_with_confidence"] == len(conf)
    assert summary["n_moves"] == len(conf) + 60
    assert math.isclose(summary["ece"], stats.ece(conf, labels, bins=10), abs_tol=1e-12)
    assert math.isclose(summary["brier"], stats.brier(conf, labels), abs_tol=1e-12)
    assert math.isclose(summary["auroc"], stats.auroc(conf, labels), abs_tol=1e-12)
    assert math.isclose(summary["mean_confidence"], sum(conf) / len(conf))
    assert summary["share_multiple_of_10"] == sum(1 for c in conf if c in (0.5, 0.8, 0.9, 1.0)) / len(conf)


def _json_values(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + sum(_json_values(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_json_values(v) for v in value)
    return 1


def test_a_long_random_walk_row_stays_small() -> None:
    """A row is read back value by value on every rescore: per-move data must not add values per move."""
    case = make_case(11, 3)
    trial = load_trial(case)
    cells = agent_walk("random_walk", trial)
    lines, block = transcript(trial.maze, cells)
    row = play_row(task_v3.play, case, AgentConversation(lines, block, None), protocol_id="p", payload_sha256="x")
    assert len(cells) > 200
    assert read_cells(row["scores"]["trajectory"]["cells"]) == cells
    assert _json_values(json.loads(json.dumps(row))) < 150


_CLAIM_PIECES = st.sampled_from(
    [
        "BACKTRACK_COUNT", "backtrack_count", "HALLUCINATION_COUNT", "Hallucination_Count", ": ", ":", " ", "\n",
        "**", "3", "12", "0", "x", "_", "-", "BACKTRACK", "_COUNT", "b", "h", "__", "backtrack_count_", "Ⅹ",
    ]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(_CLAIM_PIECES, max_size=30).map("".join))
def test_anchored_count_readers_match_plain_scans(text: str) -> None:
    def last(pattern: str) -> int | None:
        found = re.findall(pattern, text, re.I)
        return int(found[-1]) if found else None

    def first(pattern: str) -> int | None:
        match = re.search(pattern, text, re.I)
        return int(match.group(1)) if match else None

    assert parse_lines.claimed_counts(text) == (
        last(r"backtrack_count\W{0,6}(\d+)"),
        last(r"hallucination_count\W{0,6}(\d+)"),
    )
    assert original_scoring._first_claims(text) == (
        first(r"BACKTRACK_COUNT[:\s]*(\d+)"),
        first(r"HALLUCINATION_COUNT[:\s]*(\d+)"),
    )


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["FINAL_PATH", "final_path", "_", "FINAL", ": ", "(0,0)", "→", "(1,0)", "x", "\n",
                                 "CONFIDENCE_LOG", "conf", "idence_Log", "fİnal_path", "ﬁnal_path", "_PATH"]),
                max_size=20).map("".join))  # fmt: skip
def test_label_lookups_match_plain_searches(text: str) -> None:
    for label in (original_scoring._V11_PATH, parse_lines.FINAL_PATH, parse_lines.CONFIDENCE_LOG):
        every = [(m.span(), m.groups()) for m in label.pattern.finditer(text)]
        assert [(m.span(), m.groups()) for m in label.finditer(text)] == every
        first, last = label.first(text), label.last(text)
        assert (first and (first.span(), first.groups())) == (every[0] if every else None)
        assert (last and (last.span(), last.groups())) == (every[-1] if every else None)
        cut = len(text) // 2
        assert [(m.span(), m.groups()) for m in label.finditer(text, cut)] == [
            (span, groups) for span, groups in every if span[0] >= cut
        ]


_THINK_REGEX = re.compile(r"<think>.*?</think>", re.S | re.I)  # what hallumaze/v2 strips, and how
_THINK_PIECES = st.sampled_from(
    [
        "<think>",
        "</think>",
        "<THINK>",
        "</Think>",
        "<thin\u212a>",
        "</th\u0131nk>",
        "<think",
        "think>",
        "</",
        "x",
        "\n",
        " ",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_THINK_PIECES, max_size=40))
def test_think_blocks_are_stripped_as_the_regex_strips_them(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert parse_lines.strip_think_blocks(text) == _THINK_REGEX.sub("", text)


# hallumaze v2's patterns whose adjacent quantifiers could split a run of spaces every way (quadratic),
# and the linear ones that replace them: the same matches, with the same groups.
_V2_PATTERNS = [
    (re.compile(r"(?:\d+[.)]\s*)?step\s*#?\s*(\d+)\s*[:.)\]]?", re.I), parse_lines.STEP_HEAD, "match"),
    (
        re.compile(r"(?:confidence|conf\.?|certainty|확신도)\s*[:=]?\s*(\d{1,3}(?:\.\d+)?)\s*(%?)", re.I),
        parse_lines._CONFIDENCE,
        "search",
    ),
    (
        re.compile(
            r"STEP\s+(\d+):\s*\((\d+),\s*(\d+)\)\s*[→\->\s]+\[?([NSEW←→↑↓]+)\]?"
            r"(?:\s*\|\s*(?:확신도|confidence)[:\s]*(\d+)%?)?",
            re.I,
        ),
        original_scoring._V11_STEP,
        "findall",
    ),
]
_SPACEY = st.lists(
    st.sampled_from(["step", "STEP", " ", "  ", "\t", "#", "# ", "3", "12", ":", "=", ".", ")", "]", "(0,0)", "(1, 2)",
                     "→", "->", "-", ">", "[", "E", "N", "←", "|", "confidence", "conf", "conf.", "확신도", "%", "0.5",
                     "1.", "x"]),
    max_size=24,
).map("".join)  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(_SPACEY)
def test_linear_patterns_match_what_the_v2_patterns_match(text: str) -> None:
    for old, new, how in _V2_PATTERNS:
        if how == "findall":
            assert new.findall(text) == old.findall(text)
            continue
        for start in range(len(text) + 1):
            a, b = getattr(old, how)(text, start), getattr(new, how)(text, start)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), (old.pattern, start)


def test_a_label_refuses_letters_with_special_case_folds() -> None:
    for label in ("backtrack_kount", "final_paths", "x_ok"):
        try:
            Label(label, label)
        except ValueError:
            continue
        raise AssertionError(f"{label!r} was accepted")
    assert Label("final_path", "final_path").first("FİNAL_PATH ﬁnal_path Final_Path").start() == 0  # type: ignore[union-attr]
