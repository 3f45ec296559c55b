"""scripts/bench/symbol_recall.py: its matching and its targets, on gate verdicts from the loopback registry."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from registry_server import FakeRegistry

from hallubench.hallucinated_packages.checker import AnswerCheck, check_answer
from hallubench.hallucinated_packages.registry import RegistryClient

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench" / "symbol_recall.py"
REPLY = (
    "```python\nimport shop\n\ndef total(cart: shop.Cart) -> int:\n    cart.add(1)\n    return cart.sum_all()\n```\n"
)
CART = "class Cart:\n    def add(self, item) -> None:\n        pass\n"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("symbol_recall", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["symbol_recall"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AnswerCheck]:
    with FakeRegistry(tmp_path_factory.mktemp("bench")) as reg:
        reg.add_wheel("shop", "1.0.0", {"shop/__init__.py": CART})

        async def go() -> AnswerCheck:
            async with RegistryClient(reg.settings()) as client:
                return await check_answer(client, REPLY)

        yield asyncio.run(go())


def test_right_labels_are_recalled_and_precise(bench: ModuleType, checked: AnswerCheck) -> None:
    reply = {"id": "r", "control": False, "uses": [
        {"name": "add", "verdict": "found", "knowable": True},
        {"name": "sum_all", "verdict": "missing-symbol", "knowable": True, "line": 6},
    ]}  # fmt: skip
    tally = bench.score_reply(reply, checked)
    assert (tally.knowable, tally.knowable_right, tally.flagged, tally.flagged_right) == (2, 2, 1, 1)


def test_a_control_flag_is_counted_and_a_wrong_line_matches_nothing(bench: ModuleType, checked: AnswerCheck) -> None:
    control = {"id": "c", "control": True, "uses": [{"name": "sum_all", "verdict": "none", "knowable": False}]}
    assert bench.score_reply(control, checked).control_wrong == 1
    elsewhere = {"id": "l", "control": False, "uses": [
        {"name": "sum_all", "verdict": "missing-symbol", "knowable": True, "line": 2},
    ]}  # fmt: skip
    tally = bench.score_reply(elsewhere, checked)
    assert tally.knowable_right == 0 and tally.misses


def test_missed_targets_exit_non_zero(bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    quoted = REPLY.replace("'''", "")
    (corpus / "python.toml").write_text(
        "[[reply]]\nid = 'x'\nform = 'annotated-parameter'\nlanguage = 'python'\ncontrol = false\n"
        f"reply = '''\n{quoted}'''\n"
        "uses = [{ name = 'add', verdict = 'found', knowable = true }]\n"
    )
    (corpus / "broken.toml").write_text("[[reply]\n")
    code = bench.main(["--corpus", str(corpus), "--cache", str(tmp_path / "empty"), "--offline"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "broken.toml: not readable" in out and "FAIL recall" in out
