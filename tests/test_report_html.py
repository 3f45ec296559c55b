"""The HTML report as text: self-contained, readable without JavaScript, made from the `--json` result alone.

The demo protocol runs under the real kaggle-benchmarks against the loopback stub; its run files
are rescored with `--html` intact and tampered with. What a browser makes of the page is checked
in `test_report_browser.py`; here the page's markup and embedded data are.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_rescore import PARENT, _echo, _edit

from hallubench.tooling.cli import main
from hallubench.tooling.report_html.verification import marked_window

from spine_demo import built_demo_checkout
from support.hosted import run_like_kaggle
from support.page_parser import Page

pytest.importorskip("kaggle_benchmarks")


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
