"""Golden replies (tests/hallumaze/data/replies) scored through the CLI, against hand-worked expectations."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main

DATA = Path(__file__).resolve().parent / "data"
GOLDEN = json.loads((DATA / "golden_replies.json").read_text(encoding="utf-8"))["cases"]


def _lookup(result: dict[str, Any], dotted: str) -> Any:
    value: Any = result
    for part in dotted.split("."):
        value = value[part]
    return value


def _score(case: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    maze = case["maze"]
    if "file" in maze:
        argv = ["maze", "score", "--maze", str(DATA / maze["file"])]
    else:
        argv = ["maze", "score", "--size", str(maze["size"]), "--seed", str(maze["seed"])]
    assert main([*argv, str(DATA / "replies" / case["reply"]), "--json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


@pytest.mark.parametrize("case", GOLDEN, ids=[c["reply"] for c in GOLDEN])
def test_golden_reply(case: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    result = _score(case, capsys)
    for key in ("sr", "hc", "fhr", "bt", "lt", "hrr", "mei", "brs", "score", "claims"):
        assert key in result
    for dotted, expected in case["expect"].items():
        actual = _lookup(result, dotted)
        if isinstance(expected, float) or (isinstance(expected, int) and not isinstance(expected, bool)):
            assert actual is not None and math.isclose(float(actual), expected, abs_tol=1e-6), (dotted, actual)
        else:
            assert actual == expected, (dotted, actual)


def _by_reply(name: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    return _score(next(c for c in GOLDEN if c["reply"] == name), capsys)


def test_wall_walker_with_claims_is_below_an_honest_solver(capsys: pytest.CaptureFixture[str]) -> None:
    walker = _by_reply("wall_walker_claims.txt", capsys)
    honest = _by_reply("honest_solver.txt", capsys)
    assert walker["sr"] == 0 and walker["hc"] >= 1 and walker["bt"] == 0
    assert walker["mei"] < honest["mei"]
    # the v1.1 way rewards the claims: the same reply scores close to the honest ceiling there
    assert walker["v11"]["mei"] > walker["mei"] + 0.5


def test_claims_never_raise_verified_metrics(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (DATA / "replies" / "wall_walker_claims.txt").read_text(encoding="utf-8")
    silent = "\n".join(
        line for line in text.splitlines() if not line.startswith(("LOOP", "BACKTRACK_COUNT", "HALLUCINATION"))
    )
    (tmp_path / "silent.txt").write_text(silent, encoding="utf-8")
    assert main(["maze", "score", "--size", "5", "--seed", "0", str(tmp_path / "silent.txt"), "--json"]) == 0
    without = json.loads(capsys.readouterr().out)
    with_claims = _by_reply("wall_walker_claims.txt", capsys)
    for key in ("sr", "hc", "bt", "lt", "hrr", "mei", "brs", "score"):
        assert with_claims[key] == without[key], key


def test_zero_confidence_on_legal_moves_is_not_rewarded(capsys: pytest.CaptureFixture[str]) -> None:
    for honest, zero in (
        ("honest_solver.txt", "zero_confidence_solver.txt"),
        ("v11_korean_honest.txt", "v11_korean_zero_confidence.txt"),
    ):
        assert _by_reply(zero, capsys)["score"] < _by_reply(honest, capsys)["score"]
    liar = _by_reply("wall_walker_zero_confidence.txt", capsys)
    assert liar["score"] < _by_reply("honest_solver.txt", capsys)["score"]
