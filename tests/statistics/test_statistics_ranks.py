"""Rank intervals: ties span their places, clear gaps pin ranks, and repeats are not mistaken for cases."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hallubench.tooling.statistics import rank_intervals


def _models(means: dict[str, float], cases: int, repeats: int, seed: int, noise: float = 0.15) -> dict:  # type: ignore[type-arg]
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 0.1, size=cases)
    out = {}
    for name, mean in means.items():
        scores = np.clip(mean + difficulty[:, None] + rng.normal(0.0, noise, size=(cases, repeats)), 0.0, 1.0)
        out[name] = {f"c{i}": [float(v) for v in scores[i]] for i in range(cases)}
    return out


def test_models_all_at_zero_span_every_place() -> None:
    zeros = {f"m{k:02d}": {f"c{i}": [0.0] for i in range(504)} for k in range(36)}
    found = rank_intervals(zeros, higher_is_better=False, resamples=200)
    assert {(m.rank, m.low, m.high) for m in found.models} == {(1, 1, 36)}


def test_far_apart_models_have_pinned_ranks_in_the_right_order() -> None:
    found = rank_intervals(_models({"c": 0.2, "a": 0.8, "b": 0.5}, 60, 1, seed=1), resamples=300)
    assert [(m.model, m.rank, m.low, m.high) for m in found.models] == [("a", 1, 1, 1), ("b", 2, 2, 2), ("c", 3, 3, 3)]
    lower = rank_intervals(
        _models({"c": 0.2, "a": 0.8, "b": 0.5}, 60, 1, seed=1), higher_is_better=False, resamples=300
    )
    assert [m.model for m in lower.models] == ["c", "b", "a"]


def test_close_models_have_overlapping_intervals_that_hold_their_rank() -> None:
    found = rank_intervals(_models({f"m{k}": 0.5 + 0.01 * k for k in range(6)}, 40, 2, seed=2), resamples=400)
    for model in found.models:
        assert model.low is not None and model.high is not None and model.rank is not None
        assert model.low <= model.rank <= model.high
    assert max(m.high - m.low for m in found.models if m.low is not None and m.high is not None) >= 3


def test_copied_repeats_do_not_narrow_the_intervals() -> None:
    """A cluster bootstrap draws cases: ten copies of each score give the very same resampled means."""
    once = _models({f"m{k}": 0.5 + 0.02 * k for k in range(5)}, 30, 1, seed=3)
    copied = {m: {c: scores * 10 for c, scores in cases.items()} for m, cases in once.items()}
    first = rank_intervals(once, resamples=300, seed=4)
    second = rank_intervals(copied, resamples=300, seed=4)
    assert [(m.model, m.low, m.high) for m in first.models] == [(m.model, m.low, m.high) for m in second.models]
    assert any(m.high != m.low for m in first.models)


def test_the_same_seed_gives_the_same_intervals_and_the_method_names_its_settings() -> None:
    data = _models({"a": 0.5, "b": 0.52, "c": 0.55}, 30, 2, seed=5)
    one, two = rank_intervals(data, resamples=250, seed=9), rank_intervals(data, resamples=250, seed=9)
    assert one == two
    assert "250 resamples, seed 9" in one.method and "cluster bootstrap over cases" in one.method
    json.dumps(one.to_dict(), allow_nan=False)


def test_models_with_different_cases_and_without_scores_are_handled() -> None:
    data = _models({"a": 0.7, "b": 0.3}, 20, 1, seed=6)
    data["b"] = {c: s for c, s in data["b"].items() if c not in ("c0", "c1", "c2")}
    data["empty"] = {"c0": []}
    found = rank_intervals(data, resamples=200)
    assert [m.model for m in found.models] == ["a", "b", "empty"]
    assert found.models[-1].rank is None and found.models[-1].low is None


def test_bad_resamples_are_refused() -> None:
    with pytest.raises(ValueError, match="resamples"):
        rank_intervals({"a": {"c": [1.0]}}, resamples=0)
