"""hallumaze on the report page (its `page_view` hook): the table `rescore` prints, every metric name explained,
baselines opened with their maze, comparisons that say why."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest

from hallubench.tooling.hallumaze import glossary
from hallubench.tooling.report_html import render_page

from support.page_parser import Page


class Tables(HTMLParser):
    """The text of each cell, per row, of every table with a class; `abbr` elements with their titles; the legend."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.abbrs: list[tuple[str, str]] = []
        self.legend: dict[str, str] = {}
        self.gaps: list[str] = []
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._abbr: tuple[str, list[str]] | None = None
        self._legend: list[str] | None = None
        self._term = ""
        self._gap: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table" and found.get("class"):
            self._table = str(found["class"]).split()[0]
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self.tables[self._table].append([])
        elif tag in ("td", "th") and self._table:
            self._cell = []
        elif tag == "abbr":
            self._abbr = (str(found.get("title") or ""), [])
        elif tag in ("dt", "dd"):
            self._legend = []
        elif tag == "p" and "gap" in str(found.get("class")).split():
            self._gap = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = None
        elif tag in ("td", "th") and self._table and self._cell is not None:
            self.tables[self._table][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "abbr" and self._abbr is not None:
            self.abbrs.append((self._abbr[0], "".join(self._abbr[1])))
            self._abbr = None
        elif tag == "dt" and self._legend is not None:
            self._term, self._legend = "".join(self._legend), None
        elif tag == "dd" and self._legend is not None:
            self.legend[self._term], self._legend = "".join(self._legend), None
        elif tag == "p" and self._gap is not None:
            self.gaps.append("".join(self._gap))
            self._gap = None

    def handle_data(self, data: str) -> None:
        for part in (self._cell, self._legend, self._gap, self._abbr[1] if self._abbr else None):
            if part is not None:
                part.append(data)


@pytest.fixture(scope="module")
def maze_result() -> tuple[dict[str, Any], str]:
    """A rescore result of hallumaze made of simulated rows (a random walk named as a model): fast, no model."""
    from hallubench.hallumaze.cases import make_case
    from hallubench.tooling.hallumaze.baselines import baseline_rows
    from hallubench.tooling.hallumaze.report import rescore_report

    cases = [make_case(5, 0, mirage=True), make_case(5, 0, mirage=False), make_case(5, 1, mirage=True)]
    rows = baseline_rows(cases, agents=("random_walk",))["baseline:random_walk"]
    report = rescore_report({"vendor/walker": rows}, resamples=200)
    logged = [
        {"source": "run.json", "case_id": r["case_id"], "state": "COMPLETED", "prompt_verified": True,
         "score_agrees": True, "row": r}
        for r in rows
    ]  # fmt: skip
    result = {
        "task": {"path": "tasks/hallumaze_v3.py", "protocol": "hallumaze/v3", "payload_sha256": "0" * 64},
        "summary": [{"model": "vendor/walker", "rows": 3, "prompts_verified": 3, "scores_compared": 3,
                     "scores_agree": 3, "error_rows": 0, "headline": "0.4", "headline_name": "hallumaze_score"}],
        "problems": [],
        "rows_checked": 3,
        "models": {"vendor/walker": {"rows": logged}},
        "benchmark": report["json"],
    }  # fmt: skip
    return result, str(report["text"])


def test_the_maze_leaderboard_shows_the_columns_and_cells_rescore_prints(maze_result: tuple[Any, str]) -> None:
    result, text = maze_result
    page = Tables(render_page(result))
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("#  group  entry"))
    board = page.tables["leaderboard"]
    assert board[0] == re.split(r"\s{2,}", lines[head]), "the same columns, in the same order"
    assert len(board) == 1 + 5  # the model and the four baselines
    for offset, cells in enumerate(board[1:], start=1):
        assert cells == re.split(r"\s{2,}", lines[head + offset]), "the same values, BRS included"
    assert "BRS" in board[0] and any("(n=" in cell for cell in board[1])


def test_every_metric_name_on_the_maze_page_is_explained(maze_result: tuple[Any, str]) -> None:
    result, _ = maze_result
    html = render_page(result)
    page = Tables(html)
    titles = glossary.titles("hallumaze/v3")
    assert set(titles) <= set(page.legend), "a legend entry per metric"
    for label, meaning in page.legend.items():
        assert meaning == titles[label], "the legend says what the glossary says"
    assert page.abbrs and all(title == titles[label] for title, label in page.abbrs)
    marked = {label for _, label in page.abbrs}
    assert {"SR", "MEI", "CE", "BRS", "ECE", "HC", "BT", "LT"} <= marked
    # no abbreviation stands in a table cell, the legend or a paired comparison without its <abbr>
    unmarked = re.sub(r"<abbr [^>]*>[^<]*</abbr>", "", html[html.index("<main>") : html.index('<script type="app')])
    for label in glossary.ABBREVIATIONS:
        assert not re.search(rf">[^<]*(?<![\w.]){label}(?!\w)[^<]*<", unmarked), f"{label} without <abbr>"
    data = Page(html).data
    assert data["glossary"] == titles, "the drill-down marks the same names with the same explanations"


def test_baseline_rows_are_rows_of_the_page_with_their_maze(maze_result: tuple[Any, str]) -> None:
    result, _ = maze_result
    page = Page(render_page(result))
    rows = page.all("tr", **{"data-kind": "baseline"})
    assert {r["data-model"] for r in rows} == {f"baseline:{a}" for a in ("random_walk", "dfs_agent", "bfs_oracle",
                                                                          "liar")}  # fmt: skip
    assert all(r["data-status"] == "simulated" for r in rows) and len(rows) == 12
    entries = page.data["rows"]
    liar = [e for e in entries if e["model"] == "baseline:liar"]
    assert len(liar) == 3 and all(
        e["kind"] == "baseline" and e["view"]["maze"] in page.data["view"]["mazes"] for e in liar
    )
    assert liar[0]["row"]["scores"]["claims"]["backtrack"]["claimed"] == 3
    assert "All 3 rows: every prompt verified" in "".join(page.text), "the verification counts the models' rows only"
    assert len(page.all("tr", **{"data-kind": "model"})) == 3


def test_a_paired_comparison_without_enough_pairs_says_why_in_one_line(maze_result: tuple[Any, str]) -> None:
    result, text = maze_result
    page = Tables(render_page(result))
    assert len(page.gaps) == 2, "mirage and Ariadne: one line each"
    assert all("at least 2 pairs" in gap for gap in page.gaps)
    assert all(gap in text for gap in page.gaps), "the same words as the text report"
    assert "paired" not in page.tables, "no table of n/a"
