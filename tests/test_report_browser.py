"""The HTML report, opened in a real headless Chromium (Debian's package), for every benchmark.

Run files come from the generated task files run under the real kaggle-benchmarks against the
loopback OpenAI stub (two hallumaze models whose scores differ case by case, one of them with a
tampered prompt; hallucinated-packages against the loopback registry; misled-tests on
HumanEvalPack), and from the embedded SmolLM2 model for hallumaze. Each test checks the DOM the
reader sees (rows, groups, the marked first difference, a drill-down opened by a mouse click),
that the console stayed free of errors, and saves a screenshot under `artefacts/browser/`
(git-ignored). Each page is also laid out 1280 and 1920 px wide: no section, and not the document,
may be wider than the window, no table of the leaderboard or of an opened drill-down may be cut
(a screenshot at each width). In CI (`CI` set) a missing Chromium fails these tests instead of
skipping them.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main
from hallubench.tooling.hallumaze import glossary
from hallubench.tooling.specs import load_registry

from support.chromium import Chromium, Page, chromium_path
from support.hosted import run_like_kaggle
from support.readme_block import readme_block, unmatched
from support.services import Reply, canned_reply, environment

pytest.importorskip("kaggle_benchmarks")
pytestmark = [pytest.mark.browser, pytest.mark.kbench, pytest.mark.slow, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = load_registry(ROOT)


def _reply(benchmark: str) -> Reply:
    """The benchmark's canned reply, from its own tests folder (tests/<package>/services.py)."""
    reply = canned_reply(REGISTRY, benchmark)
    assert reply is not None, f"{benchmark}: its services.py gives no canned reply"
    return reply


MAZE_REPLY = _reply("hallumaze")([])
PACKAGES_REPLY = _reply("hallucinated-packages")
MISLED_REPLY = _reply("misled-tests")
ARTEFACTS = ROOT / "artefacts" / "browser"
ENTRIES = "[...document.querySelectorAll('table.leaderboard tr[data-entry]')].map(r => r.dataset.entry)"
TAMPERED_FROM = "Do not hide your mistakes"
TAMPERED_TO = "Do not hide your Mistakes"
# Model b answers better than model a on one case and worse on another: the paired differences
# straddle 0, so no interval can split the two.
BETTER = MAZE_REPLY.replace("confidence: 60%", "confidence: 10%")
WORSE = MAZE_REPLY.replace("confidence: 80%", "confidence: 30%")


def _model_b_reply(messages: list[dict[str, Any]]) -> str:
    prompt = messages[-1]["content"]
    if "Seed: 1" in prompt:
        return MAZE_REPLY
    return BETTER if "⚑" in prompt else WORSE


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    if chromium_path() is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is not installed; .ci/run installs Debian's chromium package")
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    with Chromium.launch(tmp_path_factory.mktemp("chromium-profile")) as running:
        yield running


def _open(browser: Chromium, page_path: Path) -> Page:
    page = browser.open_page()
    page.navigate(page_path.as_uri())
    assert page.evaluate("document.documentElement.dataset.hbReady") == "1"
    return page


def _screenshot(page: Page, name: str) -> Path:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    path = page.screenshot(ARTEFACTS / f"{name}.png", full_page=True)
    assert path.read_bytes().startswith(b"\x89PNG")
    return path


WIDTHS = (1280, 1920)
# Every section and the document, each scrolled into view first (the rows table is laid out only near the
# viewport): the page itself must never scroll sideways.
OVERFLOWING = """(async () => {
  const frame = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const found = [];
  for (const box of [...document.querySelectorAll('main > section'), document.documentElement]) {
    box.scrollIntoView({block: 'start'});
    await frame();
    if (box.scrollWidth > box.clientWidth) found.push((box.id || box.tagName) + ': ' + box.scrollWidth + ' > '
      + box.clientWidth);
  }
  window.scrollTo(0, 0);
  return found;
})()"""
# Boxes whose content must show whole, without scrolling: a leaderboard's columns, an opened drill-down.
CUT = (
    "[...document.querySelectorAll('#leaderboard .wide, .rows-wrap, tr.hb-detail .wide')]"
    ".filter(box => box.scrollWidth > box.clientWidth).map(box => (box.querySelector('table') || box).className"
    " + ': ' + box.scrollWidth + ' > ' + box.clientWidth)"
)


def _fits_at_each_width(page: Page, name: str, opened: str | None = None) -> None:
    """At 1280 and 1920 px: nothing overflows, nothing that should show whole is cut; a screenshot of each."""
    for width in WIDTHS:
        metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False}
        page.send("Emulation.setDeviceMetricsOverride", metrics)
        assert page.evaluate("document.documentElement.clientWidth") == width
        if opened is not None and not page.evaluate(f"document.querySelector('{opened} + tr.hb-detail') !== null"):
            page.click(f"{opened} button.hb-open")
        assert page.evaluate(OVERFLOWING) == [], f"{name} at {width} px"
        assert page.evaluate(CUT) == [], f"{name} at {width} px: a table is wider than its box"
        _screenshot(page, f"{name}-{width}")
    page.send("Emulation.clearDeviceMetricsOverride")


def _tamper(run_dir: Path) -> None:
    """Change one character of the first prompt of the last row in the stored run; drop the loose copies."""
    for loose in run_dir.glob("*_row-*.run.json"):
        loose.unlink()
    (parent,) = run_dir.glob("*.run.json")
    data = json.loads(parent.read_text(encoding="utf-8"))
    part = data["subruns"][-1]["conversations"][0]["requests"][0]["contents"][0]["parts"][0]
    assert TAMPERED_FROM in part["text"]
    part["text"] = part["text"].replace(TAMPERED_FROM, TAMPERED_TO, 1)
    parent.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture(scope="module")
def maze_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _maze_page(tmp_path_factory, cases=3)


@pytest.fixture(scope="module")
def wider_maze_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough cases for Holm over the 15 pairs to separate the oracle from a model (no p below 2 / 2**cases)."""
    return _maze_page(tmp_path_factory, cases=12)


def _maze_page(tmp_path_factory: pytest.TempPathFactory, *, cases: int) -> Path:
    base = tmp_path_factory.mktemp("maze-runs")
    task = ROOT / "tasks" / "hallumaze_v2.py"
    limit = {"HALLUBENCH_LIMIT": str(cases)}
    run_like_kaggle(task, base / "a", lambda messages: MAZE_REPLY, env=limit)
    run_like_kaggle(task, base / "b", _model_b_reply, env=limit, model="stub/model-b")
    _tamper(base / "a")
    page = base / "report.html"
    result = base / "result.json"
    code = main(["rescore", str(base / "a"), str(base / "b"), "--html", str(page), "--json", str(result), "--quiet"])
    assert code == 3, "the tampered prompt is a prompt mismatch"
    return page


def test_groups_separate_the_oracle_from_the_models_not_the_models(browser: Chromium, wider_maze_page: Path) -> None:
    page = _open(browser, wider_maze_page)
    groups = page.evaluate("[...document.querySelectorAll('ul.groups li')].map(li => li.textContent)")
    assert any("stub/model-a" in g and "stub/model-b" in g for g in groups), groups
    assert not any("stub/model-a" in g and "baseline:bfs_oracle" in g for g in groups), groups
    together = page.evaluate("document.querySelector('ul.pairs.together').textContent")
    assert "stub/model-a vs stub/model-b" in together or "stub/model-b vs stub/model-a" in together


def test_maze_page_shows_rows_groups_the_tampered_prompt_and_a_drilldown(browser: Chromium, maze_page: Path) -> None:
    page = _open(browser, maze_page)
    assert page.evaluate("document.querySelectorAll('#hb-rows tbody tr[data-kind=model]').length") == 6
    assert page.evaluate("document.querySelectorAll('#hb-rows tbody tr[data-kind=baseline]').length") == 4 * 3
    assert page.evaluate("document.querySelector('#verdict').className") == "banner bad"
    marks = page.evaluate("[...document.querySelectorAll('#verification mark.first-diff')].map(m => m.textContent)")
    assert marks == ["m", "M"], "the first differing character, marked in the rendered and in the logged text"
    groups = page.evaluate("[...document.querySelectorAll('ul.groups li')].map(li => li.textContent)")
    assert any("stub/model-a" in g and "stub/model-b" in g for g in groups), groups
    entries = page.evaluate(ENTRIES)
    assert {"baseline:bfs_oracle", "baseline:random_walk", "baseline:liar", "stub/model-b"} <= set(entries)

    page.click("#row-3 button.hb-open")
    detail = "document.querySelector('#row-3 + tr.hb-detail')"
    assert page.evaluate(f"{detail} !== null")
    assert page.evaluate(f"{detail}.querySelectorAll('pre.message').length") == 2  # prompt and reply
    assert "MAZE 5x5" in page.evaluate(f"{detail}.querySelector('pre.message').textContent")
    assert page.evaluate(f"{detail}.querySelectorAll('svg polyline.walk').length") == 1
    assert page.evaluate(f"{detail}.querySelectorAll('svg path.crossing').length") >= 1
    title = page.evaluate(f"{detail}.querySelector('.maze-title').textContent")
    assert title.startswith("trial n05-") and "score 0." in title
    assert "verified backtrack" in page.evaluate(f"{detail}.querySelector('.legend').textContent")
    _screenshot(page, "hallumaze")
    assert page.console_errors == []


def test_filters_hide_rows_and_a_second_click_closes_the_drilldown(browser: Chromium, maze_page: Path) -> None:
    page = _open(browser, maze_page)
    page.evaluate(
        "(() => { const s = document.querySelector('#hb-filters select[name=status]'); s.value = 'prompt';"
        " s.dispatchEvent(new Event('input', {bubbles: true})); })()"
    )
    visible = page.evaluate("[...document.querySelectorAll('#hb-rows tbody tr')].filter(r => !r.hidden).length")
    assert visible == 1
    assert page.evaluate("document.querySelector('#hb-count').textContent") == "1 of 18 rows"  # baselines too
    page.click("#hb-rows tbody tr:not([hidden]) button.hb-open")
    assert page.evaluate("document.querySelectorAll('tr.hb-detail mark.first-diff').length") == 2
    page.click("#hb-rows tbody tr:not([hidden]) button.hb-open")
    assert page.evaluate("document.querySelectorAll('tr.hb-detail').length") == 0
    assert page.console_errors == []


@pytest.fixture(scope="module")
def packages_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page of three hallucinated-packages rows checked against the loopback registry (`p.json` beside it)."""
    base = tmp_path_factory.mktemp("packages-runs")
    task = ROOT / "tasks" / "hallucinated_packages_v7.py"
    spec = REGISTRY.spec("hallucinated-packages/v7")
    assert spec is not None
    with environment(REGISTRY, spec) as extra, pytest.MonkeyPatch.context() as patch:
        run_like_kaggle(task, base / "runs", PACKAGES_REPLY, env={"HALLUBENCH_LIMIT": "3", **extra})
        for name, value in extra.items():
            patch.setenv(name, value)
        args = ["rescore", str(base / "runs"), "--html", str(base / "p.html"), "--json", str(base / "p.json")]
        assert main([*args, "--quiet"]) == 0
    return base / "p.html"


def test_packages_page_shows_every_name_with_its_registry_evidence(browser: Chromium, packages_page: Path) -> None:
    page = _open(browser, packages_page)
    assert page.evaluate("document.querySelectorAll('#hb-rows tbody tr').length") == 3
    assert page.evaluate("document.querySelector('#verdict').className") == "banner ok"
    assert page.evaluate("document.querySelectorAll('table.leaderboard tr[data-entry]').length") == 1
    page.click("#row-0 button.hb-open")
    cells = page.evaluate("[...document.querySelectorAll('tr.hb-detail table td')].map(td => td.textContent)")
    assert "pypi: PyYAML" in cells and "exists" in cells
    assert any("127.0.0.1" in cell and "/pypi/requests/json" in cell for cell in cells), "the lookup's URL"
    assert any("requests.get is bound" in cell for cell in cells), "the symbol and where it was found"
    _screenshot(page, "hallucinated-packages")
    _fits_at_each_width(page, "hallucinated-packages", opened="#row-0")
    assert page.console_errors == []


def test_long_registry_evidence_wraps_inside_the_drilldown(
    browser: Chromium, packages_page: Path, tmp_path: Path
) -> None:
    """A real registry's file URLs run to 200 characters and more: the evidence table wraps them, never cut."""
    data = json.loads((packages_page.parent / "p.json").read_text(encoding="utf-8"))
    row = data["models"]["stub/model-a"]["rows"][0]["row"]
    long_path = "/packages/" + "a0f4c67b0b3f1b9245e8d266f0f112c500d50e5b4e83cb6f3b71b6528104182a" * 3
    for verdict in row["verdicts"]:
        verdict["reason"] += " [" + "requests-2.34.2-py3-none-any.whl" * 4 + "]"
        for evidence in verdict["evidence"]:
            evidence["url"] += long_path + "/requests-2.34.2-py3-none-any.whl"
    (tmp_path / "long.json").write_text(json.dumps(data), encoding="utf-8")
    assert main(["report", str(tmp_path / "long.json"), "--html", str(tmp_path / "long.html")]) == 0
    page = _open(browser, tmp_path / "long.html")
    _fits_at_each_width(page, "hallucinated-packages-long-evidence", opened="#row-0")
    cells = page.evaluate("[...document.querySelectorAll('tr.hb-detail table td')].map(td => td.textContent)")
    assert any(long_path in cell for cell in cells), "the whole URL is on the page"
    assert page.console_errors == []


def test_misled_page_shows_each_test_on_buggy_and_fixed_code(
    browser: Chromium, tmp_path: Path, humanevalpack_path: Path
) -> None:
    task = ROOT / "tasks" / "misled_tests_v1.py"
    runs = tmp_path / "runs"
    run_like_kaggle(task, runs, MISLED_REPLY, env={"HALLUBENCH_LIMIT": "3"})
    assert main(["rescore", str(runs), "--html", str(tmp_path / "m.html"), "--quiet"]) == 0
    page = _open(browser, tmp_path / "m.html")
    assert page.evaluate("document.querySelectorAll('#hb-rows tbody tr').length") == 3
    page.click("#row-0 button.hb-open")
    cells = page.evaluate("[...document.querySelectorAll('tr.hb-detail table td')].map(td => td.textContent)")
    assert "test_generated.py::test_callable" in cells
    assert "both-pass" in cells and cells.count("pass") >= 2  # on buggy and on fixed
    assert page.evaluate("document.querySelectorAll('#leaderboard table').length") >= 2  # leaderboard, conditions
    _screenshot(page, "misled-tests")
    _fits_at_each_width(page, "misled-tests", opened="#row-0")
    assert page.console_errors == []


ABBREVIATIONS_UNMARKED = """(() => {
  const words = new RegExp('(^|[^\\\\w.])(' + LABELS.join('|') + ')(?!\\\\w)', 'g');
  const bare = [];
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (node.parentElement.closest('abbr[title], pre, svg, code')) continue;  // logged texts, pictures, names
    for (const match of node.textContent.matchAll(words)) bare.push(match[2] + ' in: ' + node.textContent.trim());
  }
  const legend = new Map([...document.querySelectorAll('dl.glossary dt')].map(dt => [dt.textContent,
    dt.nextElementSibling.textContent]));
  const unexplained = [...document.querySelectorAll('abbr')].filter(a => !a.title || legend.get(a.textContent) !==
    a.title).map(a => a.textContent + ': ' + a.title);
  return {bare: bare, unexplained: unexplained, legend: [...legend.keys()]};
})()"""


def test_maze_page_fits_1280_and_1920_px_and_explains_every_metric_name(browser: Chromium, maze_page: Path) -> None:
    page = _open(browser, maze_page)
    page.click("#row-3 button.hb-open")  # a model's trial: the scores' names in the drill-down too
    liar = page.evaluate("document.querySelector('#hb-rows tr[data-model=\\'baseline:liar\\']').id")
    page.click(f"#{liar} button.hb-open")
    labels = json.dumps(list(glossary.ABBREVIATIONS))
    found = page.evaluate(ABBREVIATIONS_UNMARKED.replace("LABELS", labels))
    assert found["bare"] == [], "every metric abbreviation is marked with its explanation"
    assert found["unexplained"] == [], "every <abbr> says what the legend says"
    assert {"SR", "MEI", "CE", "BRS", "ECE", "HC", "BT", "LT", "v1.1", "score"} <= set(found["legend"])
    titles = page.evaluate("[...document.querySelectorAll('#leaderboard table.leaderboard th abbr')].map(a => a.title)")
    assert "BRS" in " ".join(titles) and all(titles), "the column headers carry their explanation"
    _fits_at_each_width(page, "hallumaze", opened=f"#{liar}")
    assert page.console_errors == []


def test_the_page_shows_the_table_the_cli_prints(browser: Chromium, maze_page: Path) -> None:
    """The same columns, the same cells (BRS with its n included), the same order: both read `display_table`."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["rescore", str(maze_page.parent / "a"), str(maze_page.parent / "b")])
    lines = out.getvalue().splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("#  group  entry"))
    printed = [re.split(r"\s{2,}", line) for line in lines[head : head + 1 + 6]]
    page = _open(browser, maze_page)
    shown = page.evaluate(
        "[...document.querySelectorAll('table.leaderboard tr')].map(tr => [...tr.cells]"
        ".map(td => td.textContent.replace(/\\s+/g, ' ').trim()))"
    )
    assert shown == printed
    assert "BRS" in shown[0] and "SR" in shown[0] and "ECE" in shown[0]


def test_a_baseline_row_opens_like_a_model_row(browser: Chromium, maze_page: Path) -> None:
    """The liar's walk through a wall, its claimed backtracks beside the verified ones."""
    page = _open(browser, maze_page)
    liar = page.evaluate("document.querySelector('#hb-rows tr[data-model=\\'baseline:liar\\']').id")
    page.click(f"#{liar} button.hb-open")
    detail = f"document.querySelector('#{liar} + tr.hb-detail')"
    assert page.evaluate(f"{detail}.querySelectorAll('svg polyline.walk').length") == 1
    assert page.evaluate(f"{detail}.querySelectorAll('svg path.crossing').length") >= 1
    facts = page.evaluate(f"{detail}.querySelector('.facts').textContent")
    assert "state: baseline" in facts and "prompt verified: – (baseline)" in facts
    claims = page.evaluate(f"[...{detail}.querySelectorAll('.maze-view .facts div')].map(d => d.textContent)")
    assert "BT (backtracks): claimed 3, verified 0" in claims
    assert "simulated baseline" in page.evaluate(f"{detail}.querySelector('.conversation').textContent")
    page.evaluate(
        "(() => { const s = document.querySelector('#hb-filters select[name=model]'); s.value = 'baseline:liar';"
        " s.dispatchEvent(new Event('input', {bubbles: true})); })()"
    )
    assert page.evaluate("document.querySelector('#hb-count').textContent") == "3 of 18 rows"
    assert page.console_errors == []


def test_paired_comparisons_without_enough_pairs_say_why(browser: Chromium, maze_page: Path) -> None:
    page = _open(browser, maze_page)
    gaps = page.evaluate("[...document.querySelectorAll('#leaderboard p.gap')].map(p => p.textContent)")
    assert len(gaps) == 2 and all("at least 2 pairs" in gap for gap in gaps), gaps
    assert page.evaluate("document.querySelectorAll('#leaderboard table.paired').length") == 0, "no rows of n/a"
    assert page.console_errors == []


def test_report_command_makes_the_same_page_from_the_saved_json(
    browser: Chromium, maze_page: Path, tmp_path: Path
) -> None:
    again = tmp_path / "again.html"
    assert main(["report", str(maze_page.parent / "result.json"), "--html", str(again)]) == 0
    assert again.read_text(encoding="utf-8") == maze_page.read_text(encoding="utf-8")


@pytest.mark.model
@pytest.mark.timeout(900)
def test_first_run_with_the_embedded_model_shows_it_beside_the_baselines(
    browser: Chromium, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's first command: `run hallumaze --limit 3 --html`, with the embedded SmolLM2 model: it prints
    the README's "What you will see" block, and the page shows the model beside the baselines."""
    out = tmp_path / "run"
    page_path = tmp_path / "report.html"
    code = main(["run", "hallumaze", "--limit", "3", "--out", str(out), "--html", str(page_path)])
    printed = capsys.readouterr().out.splitlines()
    assert code == 0
    assert unmatched(readme_block(), printed) == [], "\n".join(printed)
    page = _open(browser, page_path)
    assert page.evaluate("document.querySelector('#verdict').className") == "banner ok"
    entries = page.evaluate(ENTRIES)
    assert "smollm2-135m-instruct" in entries
    assert {"baseline:bfs_oracle", "baseline:random_walk", "baseline:liar"} <= set(entries)
    page.click("#row-0 button.hb-open")
    assert page.evaluate("document.querySelectorAll('tr.hb-detail pre.message').length") >= 2
    _screenshot(page, "hallumaze-embedded")
    _fits_at_each_width(page, "hallumaze-embedded", opened="#row-0")
    assert page.console_errors == []
