"""Why a newer scorer moves hosted rows is declared per version pair (`scorer_changes`), never hard-wired."""

from __future__ import annotations

from pathlib import Path

import pytest

from hallubench.tooling.hallucinated_packages import changes as packages_changes
from hallubench.tooling.hallumaze import changes as maze_changes
from hallubench.tooling.rescore.scorer_changes import changes_by_model, explanation, field_changes
from hallubench.tooling.specs import Benchmark, HookError, ProtocolSpec, Registry, ScorerChange, load_registry

REGISTRY = load_registry(Path(__file__).resolve().parents[1])


def _demo(*changes: ScorerChange) -> Registry:
    specs = tuple(
        ProtocolSpec(benchmark="sc-demo", version=v, entry=f"sc_demo/task_v{v}.py", title="t", description="d")
        for v in (1, 2, 3)
    )
    return Registry((Benchmark("sc-demo", "sc_demo", "s", specs, scorer_changes=changes),))


def test_each_declared_pair_gets_its_own_explanation() -> None:
    assert explanation(REGISTRY, "hallumaze/v2", "hallumaze/v3") is maze_changes.explain
    assert explanation(REGISTRY, "hallucinated-packages/v7", "hallucinated-packages/v8") is packages_changes.explain
    declared = _demo(ScorerChange(1, 2, "hallubench.tooling.hallumaze.changes:explain"))
    assert explanation(declared, "sc-demo/v1", "sc-demo/v2") is maze_changes.explain
    assert explanation(declared, "sc-demo/v2", "sc-demo/v3") is field_changes, "an undeclared pair: field by field"
    assert explanation(declared, "sc-demo/v1", "hallumaze/v3") is field_changes, "two benchmarks: no pair"


def test_a_declared_explanation_that_does_not_import_is_an_error() -> None:
    broken = _demo(ScorerChange(1, 3, "hallubench.no_such_module:explain"))
    with pytest.raises(HookError, match=r"sc-demo/v1 -> sc-demo/v3 'hallubench\.no_such_module:explain' failed"):
        explanation(broken, "sc-demo/v1", "sc-demo/v3")


def test_an_undeclared_pair_names_the_fields_that_changed_and_claims_no_reason() -> None:
    hosted = {"protocol": "p/v1", "case_id": "c", "verdict": "fail", "scores": {"a": 1, "b": 2.0}}
    rescored = {"protocol": "p/v2", "case_id": "c", "verdict": "pass", "scores": {"a": 1.0, "b": 3}}
    change = field_changes(hosted, rescored)
    assert change is not None and change["verdict"] == ["fail", "pass"]
    assert change["changed"] == ["scores.b", "verdict"] and change["reason_ids"] == ["unexplained"]
    assert field_changes(hosted, dict(hosted, protocol="p/v2")) is None, "identity fields always differ"
    counted = changes_by_model({"m": [rescored]}, {"m": [hosted]}, field_changes)
    assert counted["m"]["rows_changed"] == 1 and counted["m"]["verdict_changes"] == [change]
