"""The README's "What you will see" block is what the first command prints.

The command is the README's own (`run hallumaze --limit 3 --html`), pointed at a loopback model with the
embedded model's name that answers, as the 135M model does, with no move the scorer can verify. Each line of
the block must appear in the output, in order; a line ending in `…` matches any line it begins. So every
figure and ordering the section states is a figure this command prints.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hallubench.tooling.cli import main

from support.openai_stub import OpenAIStub
from support.readme_block import ELLIPSIS, readme_block, unmatched

MODEL_NAME = "smollm2-135m-instruct"  # the embedded model's name, as its run files and table show it
NO_MOVE = "I will go right and then down until I reach the exit. Good luck!"

pytestmark = [pytest.mark.kbench, pytest.mark.slow]


def test_the_matcher_wants_order_and_whole_lines() -> None:
    printed = ["a b c", "d e", "f"]
    assert unmatched(["a b…", ELLIPSIS, "f"], printed) == []
    assert unmatched(["f", "a b c"], printed) == ["a b c"]
    assert unmatched(["d"], printed) == ["d"]


def test_what_you_will_see_is_what_the_first_command_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("kaggle_benchmarks")
    block = readme_block()
    assert len([line for line in block if line != ELLIPSIS]) >= 10, "the README block is missing or was cut"
    with OpenAIStub(NO_MOVE, model=MODEL_NAME) as stub:
        page = tmp_path / "report.html"
        code = main(
            ["run", "hallumaze", "--limit", "3", "--html", str(page), "--out", str(tmp_path / "out"),
             "--base-url", stub.base_url, "--model-name", MODEL_NAME, "--no-progress"]
        )  # fmt: skip
    printed = capsys.readouterr().out.splitlines()
    assert code == 0, "\n".join(printed)
    assert unmatched(block, printed) == [], "\n".join(printed)
    assert page.is_file()
