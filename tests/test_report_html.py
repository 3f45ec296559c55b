"""The HTML report as text: self-contained, readable without JavaScript, made from the `--json` result alone.

The demo protocol runs under the real kaggle-benchmarks against the loopback stub; its run files
are rescored with `--html` intact and tampered with. What a browser makes of the page is checked
in `test_report_browser.py`; here the page's markup and embedded data are.
"""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from test_rescore import PARENT, _echo, _edit

from hallubench.tooling.cli import main
from hallubench.tooling.hallumaze import glossary
from hallubench.tooling.report_html import render_page
from hallubench.tooling.report_html.verification import marked_window

from spine_demo import built_demo_checkout
from support.hosted import run_like_kaggle

pytest.importorskip("kaggle_benchmarks")


class Page(HTMLParser):
    """Every tag with its attributes, the text of each element id, and the embedded data."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.data_text = ""
        self._in_data = False
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_data = tag == "script" and dict(attrs).get("id") == "hb-data"

    def handle_endtag(self, tag: str) -> None:
        self._in_data = False

    def handle_data(self, data: str) -> None:
        if self._in_data:
            self.data_text += data
        else:
            self.text.append(data)

    def all(self, tag: str, **wanted: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in wanted.items())]

    @property
    def data(self) -> Any:
        return json.loads(self.data_text)


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("report-html")
    root = built_demo_checkout(base / "repo")
    runs = base / "runs"
    run_like_kaggle(root / "tasks" / "demo_v1.py", runs, _echo)
    return root / "tasks" / "demo_v1.py", runs


def _rescore(task: Path, runs: Path, out: Path, *extra: str) -> tuple[int, Page]:
    code = main(["rescore", str(runs), "--task", str(task), "--html", str(out / "r.html"), *extra])
    return code, Page((out / "r.html").read_text(encoding="utf-8"))


def test_a_clean_rescore_page_needs_nothing_from_elsewhere(
    hosted: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, page = _rescore(*hosted, tmp_path)
    assert code == 0
    assert f"wrote HTML report: {(tmp_path / 'r.html').resolve()}" in capsys.readouterr().out
    assert not page.all("link") and not page.all("img") and not page.all("iframe")
    assert all(attrs.get("src") is None for _, attrs in page.tags), "no script, image or frame from a file or URL"
    assert all(str(attrs.get("href")).startswith("#") for _, attrs in page.tags if "href" in attrs)
    (policy,) = page.all("meta", **{"http-equiv": "Content-Security-Policy"})
    assert "default-src 'none'" in str(policy["content"])
    assert len(page.all("tr")) >= 3 and len([a for a in page.all("tr") if a.get("data-i") is not None]) == 3
    assert "every prompt verified byte for byte" in "".join(page.text)  # readable without the script


def test_the_drilldown_data_holds_every_message_once(hosted: tuple[Path, Path], tmp_path: Path) -> None:
    _, page = _rescore(*hosted, tmp_path)
    data = page.data
    assert data["benchmark"] == "demo" and len(data["rows"]) == 3
    texts = data["texts"]
    assert len(texts) == len(set(texts))
    river = next(r for r in data["rows"] if r["case_id"] == "w-river")
    roles = [role for role, _ in river["messages"]]
    assert roles.count("user") == 2 and roles.count("assistant") == 2
    assert any("capital letters" in texts[i] for _, i in river["messages"])
    assert river["row"]["verdict"] in ("pass", "fail")


def test_a_changed_character_is_marked_in_both_texts(hosted: tuple[Path, Path], tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(hosted[1], runs)
    for loose in runs.glob("*_row-*.run.json"):
        loose.unlink()

    def change(data: dict[str, Any]) -> None:
        for sub in data["subruns"]:
            contents = sub["conversations"][0]["requests"][1]["contents"]
            if "river" in json.dumps(sub["results"]):
                contents[0]["parts"][0]["text"] = contents[0]["parts"][0]["text"].replace("capital", "Capital")

    _edit(runs / PARENT, change)
    code, page = _rescore(hosted[0], runs, tmp_path)
    assert code == 3
    text = "".join(page.text)
    assert "1 prompt(s) differ" in text
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    section = html[html.index('<section id="verification">') : html.index("</section>")]
    assert section.count('<mark class="first-diff"') == 2
    assert 'same word again, in <mark class="first-diff" title="first difference: U+0063">c</mark>apital' in section
    assert 'same word again, in <mark class="first-diff" title="first difference: U+0043">C</mark>apital' in section
    (river,) = [r for r in page.data["rows"] if r["case_id"] == "w-river"]
    assert river["mismatch"]["offset"] == river["mismatch"]["rendered_text"].index("capital")


def test_a_score_disagreement_shows_both_values(hosted: tuple[Path, Path], tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(hosted[1], runs)

    def change(data: dict[str, Any]) -> None:
        row = data["subruns"][0]["results"][0]["dictResult"]
        row["verdict"] = "fail" if row["verdict"] == "pass" else "pass"

    _edit(runs / PARENT, change)
    code, page = _rescore(hosted[0], runs / PARENT, tmp_path)
    assert code == 4
    text = "".join(page.text)
    assert "1 score(s) disagree" in text
    assert "verdict: re-scored 'pass' vs hosted 'fail'" in text or "verdict: re-scored 'fail' vs hosted 'pass'" in text


def test_report_rebuilds_the_page_from_the_json_alone(
    hosted: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = tmp_path / "result.json"
    code, _ = _rescore(*hosted, tmp_path, "--json", str(result))
    assert code == 0
    out = capsys.readouterr().out
    assert f"wrote JSON: {result.resolve()}" in out
    assert main(["report", str(result), "--html", str(tmp_path / "again.html")]) == 0
    assert (tmp_path / "again.html").read_bytes() == (tmp_path / "r.html").read_bytes()


def test_report_refuses_what_is_not_a_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "missing.json"), "--html", str(tmp_path / "x.html")]) == 2
    assert "cannot read" in capsys.readouterr().err
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    assert main(["report", str(tmp_path / "list.json"), "--html", str(tmp_path / "x.html")]) == 2
    assert "not a `hallubench rescore --json` result" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_a_plain_run_does_not_read_as_duplicates(hosted: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rescore", str(hosted[1]), "--task", str(hosted[0])]) == 0
    out = capsys.readouterr().out
    assert "rows: 3 (+3 row run files repeating them, counted once)" in out
    assert "duplicate" not in out


def test_a_path_that_does_not_exist_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rescore", str(tmp_path / "nowhere")]) == 2
    assert "no such file or directory" in capsys.readouterr().err


def test_the_marked_window_shows_invisible_characters_and_the_end_of_a_text() -> None:
    assert marked_window("ab\ncd", 2) == 'ab<mark class="first-diff" title="first difference: U+000A">⏎</mark>\ncd'
    assert marked_window("ab", 2).endswith(
        '<mark class="first-diff end" title="the text ends here">⟨end of text⟩</mark>'
    )
    assert marked_window("<b>", 1) == '&lt;<mark class="first-diff" title="first difference: U+0062">b</mark>&gt;'
    long = "x" * 1000 + "Y" + "z" * 1000
    window = marked_window(long, 1000)
    assert window.startswith("…") and window.endswith("…") and len(window) < 800


# -- hallumaze: the table `rescore` prints, every metric name explained, baselines opened, comparisons that say why --


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
    assert len(liar) == 3 and all(e["kind"] == "baseline" and e["maze"] in page.data["mazes"] for e in liar)
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
