"""The HTML report, opened in a real headless Chromium (Debian's package), for every benchmark.

Run files come from the generated task files run under the real kaggle-benchmarks against the
loopback OpenAI stub (two hallumaze models whose scores differ case by case, one of them with a
tampered prompt; hallucinated-packages against the loopback registry; misled-tests on
HumanEvalPack), and from the embedded SmolLM2 model for hallumaze. Each test checks the DOM the
reader sees (rows, groups, the marked first difference, a drill-down opened by a mouse click),
that the console stayed free of errors, and saves a screenshot under `artefacts/browser/`
(git-ignored). In CI (`CI` set) a missing Chromium fails these tests instead of skipping them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_tasks_e2e import MAZE_REPLY, PACKAGES_REPLY, _environment, _misled_reply

from hallubench.tooling.cli import main

from support.chromium import Chromium, Page, chromium_path
from support.hosted import run_like_kaggle

pytest.importorskip("kaggle_benchmarks")
pytestmark = [pytest.mark.browser, pytest.mark.kbench, pytest.mark.slow, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[1]
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
    base = tmp_path_factory.mktemp("maze-runs")
    task = ROOT / "tasks" / "hallumaze_v2.py"
    run_like_kaggle(task, base / "a", lambda messages: MAZE_REPLY, env={"HALLUBENCH_LIMIT": "3"})
    run_like_kaggle(task, base / "b", _model_b_reply, env={"HALLUBENCH_LIMIT": "3"}, model="stub/model-b")
    _tamper(base / "a")
    page = base / "report.html"
    result = base / "result.json"
    code = main(["rescore", str(base / "a"), str(base / "b"), "--html", str(page), "--json", str(result), "--quiet"])
    assert code == 3, "the tampered prompt is a prompt mismatch"
    return page


def test_maze_page_shows_rows_groups_the_tampered_prompt_and_a_drilldown(browser: Chromium, maze_page: Path) -> None:
    page = _open(browser, maze_page)
    assert page.evaluate("document.querySelectorAll('#hb-rows tbody tr').length") == 6
    assert page.evaluate("document.querySelector('#verdict').className") == "banner bad"
    marks = page.evaluate("[...document.querySelectorAll('#verification mark.first-diff')].map(m => m.textContent)")
    assert marks == ["m", "M"], "the first differing character, marked in the rendered and in the logged text"
    groups = page.evaluate("[...document.querySelectorAll('ul.groups li')].map(li => li.textContent)")
    assert any("stub/model-a" in g and "stub/model-b" in g for g in groups), groups
    assert not any("stub/model-a" in g and "baseline:bfs_oracle" in g for g in groups), groups
    together = page.evaluate("document.querySelector('ul.pairs.together').textContent")
    assert "stub/model-a vs stub/model-b" in together
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
    assert page.evaluate("document.querySelector('#hb-count').textContent") == "1 of 6 rows"
    page.click("#hb-rows tbody tr:not([hidden]) button.hb-open")
    assert page.evaluate("document.querySelectorAll('tr.hb-detail mark.first-diff').length") == 2
    page.click("#hb-rows tbody tr:not([hidden]) button.hb-open")
    assert page.evaluate("document.querySelectorAll('tr.hb-detail').length") == 0
    assert page.console_errors == []


def test_packages_page_shows_every_name_with_its_registry_evidence(
    browser: Chromium, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = ROOT / "tasks" / "hallucinated_packages_v7.py"
    runs = tmp_path / "runs"
    with _environment("hallucinated-packages") as extra:
        run_like_kaggle(task, runs, lambda messages: PACKAGES_REPLY, env={"HALLUBENCH_LIMIT": "3", **extra})
        for name, value in extra.items():
            monkeypatch.setenv(name, value)
        assert main(["rescore", str(runs), "--html", str(tmp_path / "p.html"), "--quiet"]) == 0
    page = _open(browser, tmp_path / "p.html")
    assert page.evaluate("document.querySelectorAll('#hb-rows tbody tr').length") == 3
    assert page.evaluate("document.querySelector('#verdict').className") == "banner ok"
    assert page.evaluate("document.querySelectorAll('table.leaderboard tr[data-entry]').length") == 1
    page.click("#row-0 button.hb-open")
    cells = page.evaluate("[...document.querySelectorAll('tr.hb-detail table td')].map(td => td.textContent)")
    assert "pypi: PyYAML" in cells and "exists" in cells
    assert any("127.0.0.1" in cell and "/pypi/requests/json" in cell for cell in cells), "the lookup's URL"
    assert any("requests.get is bound" in cell for cell in cells), "the symbol and where it was found"
    _screenshot(page, "hallucinated-packages")
    assert page.console_errors == []


def test_misled_page_shows_each_test_on_buggy_and_fixed_code(
    browser: Chromium, tmp_path: Path, humanevalpack_path: Path
) -> None:
    task = ROOT / "tasks" / "misled_tests_v1.py"
    runs = tmp_path / "runs"
    run_like_kaggle(task, runs, _misled_reply, env={"HALLUBENCH_LIMIT": "3"})
    assert main(["rescore", str(runs), "--html", str(tmp_path / "m.html"), "--quiet"]) == 0
    page = _open(browser, tmp_path / "m.html")
    assert page.evaluate("document.querySelectorAll('#hb-rows tbody tr').length") == 3
    page.click("#row-0 button.hb-open")
    cells = page.evaluate("[...document.querySelectorAll('tr.hb-detail table td')].map(td => td.textContent)")
    assert "test_generated.py::test_callable" in cells
    assert "both-pass" in cells and cells.count("pass") >= 2  # on buggy and on fixed
    assert page.evaluate("document.querySelectorAll('#leaderboard table').length") >= 2  # leaderboard, conditions
    _screenshot(page, "misled-tests")
    assert page.console_errors == []


def test_report_command_makes_the_same_page_from_the_saved_json(
    browser: Chromium, maze_page: Path, tmp_path: Path
) -> None:
    again = tmp_path / "again.html"
    assert main(["report", str(maze_page.parent / "result.json"), "--html", str(again)]) == 0
    assert again.read_text(encoding="utf-8") == maze_page.read_text(encoding="utf-8")


@pytest.mark.model
@pytest.mark.timeout(900)
def test_first_run_with_the_embedded_model_shows_it_beside_the_baselines(browser: Chromium, tmp_path: Path) -> None:
    """The README's first command: `run hallumaze --limit 3 --html`, with the embedded SmolLM2 model."""
    out = tmp_path / "run"
    page_path = tmp_path / "report.html"
    code = main(
        ["run", "hallumaze", "--limit", "3", "--out", str(out), "--max-tokens", "256", "--html", str(page_path)]
    )
    assert code == 0
    page = _open(browser, page_path)
    assert page.evaluate("document.querySelector('#verdict').className") == "banner ok"
    entries = page.evaluate(ENTRIES)
    assert "smollm2-135m-instruct" in entries
    assert {"baseline:bfs_oracle", "baseline:random_walk", "baseline:liar"} <= set(entries)
    page.click("#row-0 button.hb-open")
    assert page.evaluate("document.querySelectorAll('tr.hb-detail pre.message').length") >= 2
    _screenshot(page, "hallumaze-embedded")
    assert page.console_errors == []
