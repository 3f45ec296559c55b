"""Simulated baselines through the shared scorer, and the report API the rescore command calls."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from hallubench.hallumaze import task_v3
from hallubench.hallumaze.cases import make_case, v2_cases
from hallubench.hallumaze.compact import read_cells
from hallubench.hallumaze.generate import generate_dfs
from hallubench.hallumaze.parse import parse_reply
from hallubench.hallumaze.trial import load_trial
from hallubench.rows import error_row, play_row
from hallubench.tooling.cli import main
from hallubench.tooling.hallumaze import glossary
from hallubench.tooling.hallumaze.baselines import (
    AGENTS,
    AgentConversation,
    agent_walk,
    baseline_rows,
    random_walk,
    shortcut_walk,
    transcript,
)
from hallubench.tooling.hallumaze.draw import LEGEND, svg_to_png
from hallubench.tooling.hallumaze.report import (
    MIN_PAIRS,
    best_and_worst,
    compare_models,
    comparison_gap,
    diff_text,
    display_table,
    groups_of,
    human_baseline_rows,
    mirage_comparison,
    model_table,
    rescore_report,
    table_csv,
    table_markdown,
    trial_svg,
    with_baselines,
    write_pictures,
)
from hallubench.tooling.testing import ScriptedConversation

DATA = Path(__file__).resolve().parent / "data"


AGENT_NAMES = {f"baseline:{a}" for a in AGENTS}
CASES = [make_case(n, s, mirage=m) for n in (5, 7) for s in range(8) for m in (True, False)]


@pytest.fixture(scope="module")
def rows() -> dict[str, list[dict[str, object]]]:
    return baseline_rows(CASES)


def test_random_walk_is_simulated_not_hard_coded(rows: dict[str, list[dict[str, object]]]) -> None:
    walks = {tuple(agent_walk("random_walk", load_trial(c))) for c in CASES[::2]}
    assert len(walks) == len(CASES) // 2, "different mazes give different walks"
    trial = load_trial(make_case(9, 3))
    walk = random_walk(trial.maze, __import__("random").Random(1), 4 * 81)
    assert len(walk) - 1 <= 4 * 81
    summary = task_v3.aggregate(rows["baseline:random_walk"])["metrics"]
    oracle = task_v3.aggregate(rows["baseline:bfs_oracle"])["metrics"]
    assert 0.0 < summary["sr"] < 1.0
    assert summary["mei"] < oracle["mei"] == pytest.approx(0.9)
    assert summary["hc"] == 0 and summary["n_error"] == 0


def test_baseline_transcripts_replay_to_their_own_walks() -> None:
    trial = load_trial(make_case(7, 2))
    for agent in ("random_walk", "dfs_agent", "bfs_oracle"):
        row = baseline_rows([make_case(7, 2)], agents=(agent,))[f"baseline:{agent}"][0]
        cells = read_cells(row["scores"]["trajectory"]["cells"])  # type: ignore[index]
        assert cells == agent_walk(agent, trial)


def test_dfs_agent_backtracks_and_declares_dead_ends_truthfully(rows: dict[str, list[dict[str, object]]]) -> None:
    dfs = rows["baseline:dfs_agent"]
    assert all(r["scores"]["sr"] == 1.0 for r in dfs)  # type: ignore[index]
    claims = task_v3.aggregate(dfs)["metrics"]["claims"]
    assert claims["backtrack"]["exact_rate"] == 1.0
    assert claims["dead_end"]["precision"] == 1.0 and claims["dead_end"]["recall"] == 1.0
    assert sum(r["scores"]["bt"] for r in dfs) > 0  # type: ignore[index, misc]


def test_model_table_ranks_keeps_errors_and_exports(rows: dict[str, list[dict[str, object]]]) -> None:
    broken = [
        *rows["baseline:bfs_oracle"][:-4],
        *(error_row("hallumaze/v3", "x", f"e{i}", "model_call", "down") for i in range(4)),
    ]
    table = model_table({**rows, "flaky-oracle": broken}, resamples=300)
    order = [r["model"] for r in table["rows"]]
    assert order.index("baseline:bfs_oracle") < order.index("flaky-oracle") < order.index("baseline:random_walk")
    flaky = next(r for r in table["rows"] if r["model"] == "flaky-oracle")
    assert flaky["n_trials"] == len(CASES) and flaky["n_error"] == 4
    assert flaky["sr"] == pytest.approx((len(CASES) - 4) / len(CASES))
    walk = next(r for r in table["rows"] if r["model"] == "baseline:random_walk")
    assert walk["score_low"] <= walk["score"] <= walk["score_high"]
    parsed = list(csv.DictReader(io.StringIO(table_csv(table))))
    assert [p["model"] for p in parsed] == order
    assert table_markdown(table).count("\n") == len(order) + 2
    json.dumps(table, allow_nan=False)


def test_mirage_comparison_is_paired_and_compare_models_too(rows: dict[str, list[dict[str, object]]]) -> None:
    result = mirage_comparison(rows["baseline:dfs_agent"], resamples=300)
    assert result["score"]["n"] == len(CASES) // 2
    # baselines ignore the hints, so mirage on and off are identical: a zero difference
    assert result["score"]["mean_diff"] == 0.0
    pairs = compare_models(rows, resamples=300)
    oracle_vs_walk = next(p for p in pairs if {p["a"], p["b"]} == {"baseline:bfs_oracle", "baseline:random_walk"})
    assert oracle_vs_walk["n"] == len(CASES) and oracle_vs_walk["excludes_zero"]


def test_with_baselines_uses_the_models_cases(rows: dict[str, list[dict[str, object]]]) -> None:
    merged = with_baselines({"model-x": rows["baseline:random_walk"][:3]})
    assert len(merged["baseline:bfs_oracle"]) == 3
    assert [r["case_id"] for r in merged["baseline:bfs_oracle"]] == sorted(r["case_id"] for r in merged["model-x"])  # type: ignore[type-var]


def test_human_baseline_file_is_scored_like_a_model() -> None:
    name, rows = human_baseline_rows(DATA / "human_baseline_example.json")
    assert name == "human:pilot-group-1"
    assert [r["verdict"] for r in rows] == ["pass", "fail"]
    assert rows[0]["scores"]["score"] == pytest.approx(0.95)
    bad = DATA / "replies" / "empty.txt"
    with pytest.raises(ValueError):
        human_baseline_rows(bad)


def test_pictures_mark_wall_crossings(tmp_path: Path) -> None:
    reply = (DATA / "replies" / "wall_walker_claims.txt").read_text(encoding="utf-8")
    scores = task_v3.play(make_case(5, 0), ScriptedConversation.always(reply))["scores"]
    row = {"case_id": "n05", "condition": load_trial(make_case(5, 0)).condition(), "scores": scores}
    svg = trial_svg(row)
    root = ET.fromstring(svg)
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert sum("through a wall" in (t or "") for t in titles) == row["scores"]["hc"] == 1
    assert sum("lure" in (t or "") for t in titles) == 2
    best, worst = best_and_worst([row])
    assert best is worst is row
    links = write_pictures({"m/1": [row]}, tmp_path)
    assert Path(links["m/1"]["best"]).name == "m_1-best.svg" and Path(links["m/1"]["worst"]).is_file()


def test_cli_draw_and_baselines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m.svg"
    assert (
        main(["maze", "draw", "--size", "7", "--seed", "0", str(DATA / "replies" / "empty.txt"), "-o", str(out)]) == 0
    )
    ET.fromstring(out.read_text(encoding="utf-8"))
    png = tmp_path / "m.png"
    code = main(["maze", "draw", "--size", "7", "--seed", "0", "-o", str(png)])
    if svg_to_png("<svg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/>") is None:
        assert code == 2 and "cairosvg" in capsys.readouterr().err  # without the `png` extra: said, not a crash
    else:
        assert code == 0 and png.read_bytes().startswith(b"\x89PNG\r\n")
    capsys.readouterr()
    assert main(["maze", "baselines", "--sizes", "5", "--seeds", "3", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert {r["model"] for r in table["rows"]} == {f"baseline:{agent}" for agent in AGENTS}


def test_pictures_show_title_score_and_legend_as_visible_text() -> None:
    reply = (DATA / "replies" / "wall_walker_claims.txt").read_text(encoding="utf-8")
    scores = task_v3.play(make_case(5, 0), ScriptedConversation.always(reply))["scores"]
    row = {"case_id": "n05-s0000", "condition": load_trial(make_case(5, 0)).condition(), "scores": scores}
    root = ET.fromstring(trial_svg(row))
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts[0] == "trial n05-s0000"
    assert texts[1].startswith(f"score {scores['score']:.3f}")
    assert {label for _, label, _, _ in LEGEND} <= set(texts)


def test_liar_walks_through_a_wall_claims_backtracks_and_only_the_v11_score_believes_it() -> None:
    cases = [make_case(7, seed) for seed in range(6)]
    rows = baseline_rows(cases, agents=("liar", "bfs_oracle"))
    liar, oracle = rows["baseline:liar"], rows["baseline:bfs_oracle"]
    assert all(r["scores"]["claims"]["backtrack"]["claimed"] == 3 for r in liar)  # type: ignore[index]
    assert sum(r["scores"]["hc"] for r in liar) >= 4  # type: ignore[index, misc]
    liar_metrics, oracle_metrics = task_v3.aggregate(liar)["metrics"], task_v3.aggregate(oracle)["metrics"]
    # the walk through a wall costs SR and MEI (BRS, lure resistance since v3, it earns: it walks past the lures)
    assert liar_metrics["sr"] < oracle_metrics["sr"] and liar_metrics["mei"] < oracle_metrics["mei"] - 0.5
    assert liar_metrics["score"] < oracle_metrics["score"] - 0.25
    # its claims raise only the v1.1 score: the same walk told honestly scores the same, verified
    raised = 0.0
    for case, lying in zip(cases, liar, strict=True):
        trial = load_trial(case)
        lines, block = transcript(trial.maze, shortcut_walk(trial.maze, trial.solution))
        told = task_v3.play(case, AgentConversation(lines, block, None))["scores"]
        for key in ("sr", "hc", "bt", "lt", "hrr", "mei", "brs", "ce", "score"):
            assert lying["scores"][key] == told[key], key  # type: ignore[index]
        raised += lying["scores"]["v11"]["score"] - told["v11"]["score"]  # type: ignore[index]
    assert raised > 0  # v1.1 merged the claims into its counts


def test_v11_maze_file_round_trips_and_bad_files_fail_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hallubench.hallumaze.original_scoring import read_maze_text

    maze, lures = read_maze_text((DATA / "v11_maze_n05_s0.txt").read_text(encoding="utf-8"))
    assert maze.open_sides == generate_dfs(5, 0).open_sides
    assert [(lure.cell, lure.direction) for lure in lures] == [((1, 4), "N"), ((3, 0), "N")]
    text = (DATA / "v11_maze_n05_s0.txt").read_text(encoding="utf-8")
    broken = tmp_path / "broken.txt"
    broken.write_text(text.replace("(0,1): [E→ W←]", "(0,1): [E→]"), encoding="utf-8")
    reply = str(DATA / "replies" / "honest_solver.txt")
    assert main(["maze", "score", "--maze", str(broken), reply]) == 2
    assert "does not open" in capsys.readouterr().err
    missing = tmp_path / "short.txt"
    missing.write_text("\n".join(text.splitlines()[:10]), encoding="utf-8")
    assert main(["maze", "score", "--maze", str(missing), reply]) == 2
    assert "lists" in capsys.readouterr().err
    assert main(["maze", "score", "--size", "5", "--seed", "0", str(tmp_path / "nope.txt")]) == 2


@pytest.mark.parametrize(
    "line, cell, direction, confidence",
    [
        ("STEP 1: (0,0) → [E] | confidence: 90% | go", (0, 0), "E", 0.9),
        ("**STEP 2:** (1, 2) -> S | conf 75%", (1, 2), "S", 0.75),
        ("Step 3: (2,2) → east (confidence 0.6)", (2, 2), "E", 0.6),
        ("STEP 4: (0,1) → [W←] | 확신도: 80% | 서쪽", (0, 1), "W", 0.8),
        ("STEP 5: (3,3) → (3,4) | 100%", (3, 3), "E", 1.0),
        ("- STEP 6: (4,4) ↑", (4, 4), "N", None),
        ("STEP 7: (1,1) → [남] | 확신도: 50%", (1, 1), "S", 0.5),
        ("STEP 8: (1,1) → [E] | confidence: 250%", (1, 1), "E", None),
    ],
)
def test_step_lines_are_read_tolerantly(
    line: str, cell: tuple[int, int], direction: str, confidence: float | None
) -> None:
    parsed = parse_reply(f"```\n{line}\n```")
    assert len(parsed.steps) == 1
    step = parsed.steps[0]
    assert (step.cell, step.direction, step.confidence) == (cell, direction, confidence)


def test_unreadable_steps_are_format_failures_not_hallucinations() -> None:
    parsed = parse_reply(
        "STEP 1: (0,0) → [somewhere]\nSTEP 2: then I go on\nLOOP detected at (1,1) — visited at step 1"
    )
    assert parsed.steps == () and len(parsed.unreadable_steps) == 2 and parsed.loops == ((1, 1),)
    parsed = parse_reply("<think>STEP 1: (0,0) → [E]</think>\nFINAL_PATH: (0,0)→(0,1)")
    assert parsed.steps == () and parsed.final_path == ((0, 0), (0, 1))


class _Scripted:
    """A model that follows the mirage (random walk when hints are shown, the solution when not),
    walks the solution after Ariadne's hint (group B) and gives up after the placebo (group C)."""

    def __init__(self, case: dict[str, object]) -> None:
        trial = load_trial(case)
        if trial.mode == "interactive" and trial.group == "C":
            self.inner: AgentConversation | ScriptedConversation = ScriptedConversation.always("I give up.")
            return
        agent = "random_walk" if trial.mirage and trial.mode == "single" else "bfs_oracle"
        lines, block = transcript(trial.maze, agent_walk(agent, trial))
        self.inner = AgentConversation(lines, block, trial.moves_per_turn if trial.mode == "interactive" else None)

    def system(self, text: str) -> None:
        pass

    def ask(self, text: str) -> str:
        return self.inner.ask(text)


def test_rescore_report_ranks_models_beside_baselines_and_humans(tmp_path: Path) -> None:
    cases = v2_cases(sizes=(5,), single_seeds=4, noconf_seeds=1, interactive_seeds=3)
    follower = [play_row(task_v3.play, c, _Scripted(c), protocol_id="hallumaze/v3", payload_sha256="p") for c in cases]
    flaky = [*follower[:-3], *(error_row("hallumaze/v3", "p", str(c["id"]), "model_call", "down") for c in cases[-3:])]
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x"}', encoding="utf-8")
    report = rescore_report(
        {"vendor/mirage-follower": follower, "flaky": flaky},
        pictures_dir=tmp_path / "pictures",
        humans=[DATA / "human_baseline_example.json", broken],
        resamples=300,
    )
    data = report["json"]
    json.dumps(data, allow_nan=False)
    rows = {r["model"]: r for r in data["table"]["rows"]}
    assert set(rows) == {"vendor/mirage-follower", "flaky", "human:pilot-group-1", *AGENT_NAMES}
    assert {rows[m]["kind"] for m in AGENT_NAMES} == {"baseline"} and rows["human:pilot-group-1"]["kind"] == "human"
    assert all(rows[m]["n_trials"] == len(cases) for m in ("flaky", *AGENT_NAMES))
    assert rows["flaky"]["n_error"] == 3 and rows["vendor/mirage-follower"]["n_error"] == 0
    scores = [r["score"] for r in data["table"]["rows"]]
    assert scores == sorted(scores, reverse=True)
    mirage = data["mirage_on_minus_off"]["vendor/mirage-follower"]["score"]
    assert mirage["n"] == 4 and mirage["mean_diff"] < 0
    ariadne = data["ariadne_b_minus_c"]["vendor/mirage-follower"]["sr"]
    assert ariadne["n"] == 3 and ariadne["mean_diff"] == 1.0
    assert set(data["pictures"]) == {"vendor/mirage-follower", "flaky"}
    for links in data["pictures"].values():
        for path in links.values():
            ET.fromstring(Path(path).read_text(encoding="utf-8"))
            assert f"({Path(path).as_posix()})" in report["markdown"]
    assert len(data["problems"]) == 1 and str(broken) in data["problems"][0]
    assert str(broken) in report["text"] and "vendor/mirage-follower" in report["text"]
    assert [r["model"] for r in csv.DictReader(io.StringIO(report["csv"]))] == [
        r["model"] for r in data["table"]["rows"]
    ]
    assert report["markdown"].count("| vendor/mirage-follower |") == 3  # table, mirage, Ariadne


# -- the report a newcomer reads: every column explained, one set of cells, comparisons that say why ----------------


def _few_trials_report() -> dict[str, Any]:
    """Three trials of one seed (one mirage on/off pair, no interactive trial): too few pairs to compare."""
    cases = [make_case(5, 0, mirage=True), make_case(5, 0, mirage=False), make_case(5, 1, mirage=True)]
    rows = [play_row(task_v3.play, c, _Scripted(c), protocol_id="hallumaze/v3", payload_sha256="p") for c in cases]
    return rescore_report({"vendor/few": rows}, resamples=200)


def test_the_text_table_has_the_columns_and_cells_of_display_table_and_explains_each() -> None:
    report = _few_trials_report()
    data = report["json"]
    columns, lines = display_table(data["table"], groups_of(data["leaderboard"]))
    assert [c.header for c in columns] == ["#", "group", "entry", "kind", "n", "err", "score", "SR", "MEI", "CE",
                                           "BRS", "HC", "ECE", "v1.1"]  # fmt: skip
    text = report["text"].splitlines()
    head = next(i for i, line in enumerate(text) if line.startswith("#  group  entry"))
    assert re.split(r"\s{2,}", text[head]) == [c.header for c in columns]
    for offset, (row, cells) in enumerate(lines, start=1):
        assert re.split(r"\s{2,}", text[head + offset]) == [cell.text for cell in cells], row["model"]
        brs = cells[[c.header for c in columns].index("BRS")]
        assert brs.value == ("n/a" if row["brs"] is None else f"{row['brs']:.3f}") and f"(n={row['n_brs']})" in brs.text
    for term in glossary.terms("hallumaze/v3"):
        assert f"  {term.title}" in report["text"], f"{term.label} is explained in the text legend"
        assert f"- **{term.label}**: {term.title}" in report["markdown"]
    markdown_head = next(line for line in report["markdown"].splitlines() if line.startswith("| # |"))
    assert markdown_head == "| " + " | ".join(c.header for c in columns) + " |"


def test_brs_is_explained_as_the_scorer_that_made_the_rows_means_it() -> None:
    v2 = {t.label: t for t in glossary.terms("hallumaze/v2")}["BRS"]
    v3 = {t.label: t for t in glossary.terms("hallumaze/v3")}["BRS"]
    assert "v1.1's formula" in v2.title and "lure" in v3.title and v2 != v3
    assert {t.label: t for t in glossary.terms(None)}["BRS"] == v3  # the installed scorer is v3's
    assert _few_trials_report()["json"]["scored_by"] == "hallumaze/v3"


def test_a_comparison_with_too_few_pairs_says_why_in_one_line() -> None:
    report = _few_trials_report()
    data = report["json"]
    assert data["mirage_on_minus_off"]["vendor/few"]["score"]["n"] == 1
    gap = comparison_gap("mirage_on_minus_off", data["mirage_on_minus_off"], ("score", "sr", "mei"))
    assert gap is not None and f"at least {MIN_PAIRS} pairs" in gap and "the most any model has is 1" in gap
    ariadne = comparison_gap("ariadne_b_minus_c", data["ariadne_b_minus_c"], ("sr", "score"))
    assert ariadne is not None and "group B" in ariadne and "the most any model has is 0" in ariadne
    for output in (report["text"], report["markdown"]):
        assert gap in output and ariadne in output
        assert "n/a (n=" not in output, "no row of n/a: one line says why"
    lines = report["text"].splitlines()
    assert lines[lines.index(gap.join(["  ", ""])) - 1].startswith("Mirage on minus off")


def test_a_comparison_with_enough_pairs_is_shown_per_model() -> None:
    cases = [make_case(5, s, mirage=m) for s in range(3) for m in (True, False)]
    rows = [play_row(task_v3.play, c, _Scripted(c), protocol_id="hallumaze/v3", payload_sha256="p") for c in cases]
    report = rescore_report({"vendor/enough": rows}, resamples=200)
    mirage = report["json"]["mirage_on_minus_off"]
    assert comparison_gap("mirage_on_minus_off", mirage, ("score",)) is None
    assert f"  vendor/enough: score {diff_text(mirage['vendor/enough']['score'])}" in report["text"]


def test_the_report_keeps_the_baselines_rows_so_the_page_can_open_them() -> None:
    data = _few_trials_report()["json"]
    assert set(data["entry_rows"]) == set(data["baselines"]) == AGENT_NAMES
    liar = data["entry_rows"]["baseline:liar"]
    assert [r["case_id"] for r in liar] == sorted(r["case_id"] for r in liar) and len(liar) == 3
    assert all(r["scores"]["claims"]["backtrack"]["claimed"] == 3 for r in liar)
    json.dumps(data, allow_nan=False)
