"""The saturation verdict in the reports, on a v6-shaped input: hallucinated-packages rows of 36 models, every
reference found on the registry (0 %), scored by the benchmark's own headline and board.

v6 asked 14 prompts per model (504 in all). With 14 prompts per model the report must not call the
benchmark saturated: a model could still hallucinate on 23 % of prompts unseen. With 504 prompts per model it
is saturated for these models, and the report gives the per-model bound and the prompts a 1 % rate needs.
"""

from __future__ import annotations

from typing import Any

import pytest

from hallubench.tooling.board_text import board_lines
from hallubench.tooling.hallucinated_packages.report import separability
from hallubench.tooling.report_html.showable import saturation_html

MODELS = 36


def _rows(prompts: int) -> list[dict[str, Any]]:
    """One sample per prompt, two package references each, both found on the registry."""
    packages = {"missing": 0, "exists": 2, "unverified": 0}
    return [
        {"case_id": f"p{i:03d}-s0", "prompt_id": f"p{i:03d}", "verdict": "pass", "scores": {"packages": packages}}
        for i in range(prompts)
    ]


@pytest.fixture(scope="module")
def boards() -> dict[int, dict[str, Any]]:
    return {prompts: separability({f"model-{k:02d}": _rows(prompts) for k in range(MODELS)}) for prompts in (14, 504)}


def test_504_prompts_per_model_at_zero_is_saturated_with_the_bound_and_the_prompts_one_percent_needs(
    boards: dict[int, dict[str, Any]],
) -> None:
    verdict = boards[504]["saturation"]
    assert verdict["verdict"] == "saturated" and verdict["end"] == "floor"
    assert verdict["share_at_floor"] == 1.0 and verdict["models"] == MODELS and not verdict["any_separable"]
    assert verdict["far_bound"] == pytest.approx(1 - 0.025 ** (1 / 504), rel=1e-6)  # Clopper-Pearson at 0 of 504
    assert verdict["cases_needed"] == 368
    lines = board_lines(boards[504])
    assert any("saturated for these models" in line and "0.729 %" in line and "368" in line for line in lines)
    assert f"  at the floor (0): {MODELS} of {MODELS}; at the ceiling (1): 0 of {MODELS}" in lines
    assert 'data-verdict="saturated"' in saturation_html(boards[504])
    assert f"At the floor (0): {MODELS} of {MODELS}; at the ceiling (1): 0 of {MODELS}." in saturation_html(boards[504])


def test_14_prompts_per_model_at_zero_is_too_few_to_say_and_names_the_prompts_needed(
    boards: dict[int, dict[str, Any]],
) -> None:
    verdict = boards[14]["saturation"]
    assert verdict["verdict"] == "too few cases"
    assert verdict["far_bound"] == pytest.approx(1 - 0.025 ** (1 / 14), rel=1e-6)  # 23.2 %
    assert "23.2 %" in verdict["text"] and "368 cases per model would rule out 1 %" in verdict["text"]
    assert 'data-verdict="too few cases"' in saturation_html(boards[14])


def test_a_hallucinating_model_ends_saturation(boards: dict[int, dict[str, Any]]) -> None:
    rows = {f"model-{k:02d}": _rows(504) for k in range(MODELS - 1)}
    rows["model-liar"] = _rows(504)
    for row in rows["model-liar"][:20]:
        row["scores"] = {"packages": {"missing": 1, "exists": 1, "unverified": 0}}
    verdict = separability(rows)["saturation"]
    assert verdict["verdict"] == "not saturated" and verdict["any_separable"]


def test_each_listed_pair_shows_the_adjusted_p_that_decides_it() -> None:
    """A pair's bootstrap interval can exclude 0 while Holm keeps it together: the page shows both numbers."""
    from hallubench.tooling.report_html.board import separability_html

    rows = {f"model-{k}": _rows(40) for k in range(3)}
    for row in rows["model-2"][:6]:
        row["scores"] = {"packages": {"missing": 1, "exists": 1, "unverified": 0}}
    board = separability({name: found for name, found in rows.items()})
    html = separability_html(board)
    for pair in board["pairs"]:
        assert f"<b>{pair['a']}</b> vs <b>{pair['b']}</b>" in html
        assert f"adjusted p {pair['p_adjusted']:.3f}" in html
