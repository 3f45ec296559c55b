"""Rescore never crashes on a damaged run file: any mutation of a real one gives an exit code and a message.

The run files come from running the demo task file under the real kaggle-benchmarks; hypothesis
deletes keys, swaps values for values of other JSON types and cuts strings, anywhere in them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hallubench.cli import main

from spine_demo import built_demo_checkout
from support.hosted import run_like_kaggle

pytest.importorskip("kaggle_benchmarks")

PARENT = "demo-v1-run_id_Run_1_stub_model-a.run.json"
EXIT_CODES = {0, 2, 3, 4, 5}  # verified, bad usage (e.g. nothing of this task left), prompt, score, unreadable


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    base = tmp_path_factory.mktemp("fuzz")
    root = built_demo_checkout(base / "repo")

    def replies(messages: list[dict[str, Any]]) -> str:
        return "APPLE" if "capital letters" in messages[-1]["content"] else "apple"

    run_like_kaggle(root / "tasks" / "demo_v1.py", base / "runs", replies)
    return root / "tasks" / "demo_v1.py", json.loads((base / "runs" / PARENT).read_text())


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path into a JSON value."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=4), inner, max_size=2),
    max_leaves=4,
)
MUTATION = st.tuples(st.sampled_from(["delete", "replace", "cut"]), st.integers(0, 10**6), JSON_VALUES)


def _mutate(data: Any, kind: str, pick: int, value: Any) -> Any:
    paths = [path for path in _paths(data) if path]
    path = paths[pick % len(paths)]
    holder = data
    for step in path[:-1]:
        holder = holder[step]
    last = path[-1]
    if kind == "delete":
        del holder[last]
    elif kind == "cut" and isinstance(holder[last], str):
        holder[last] = holder[last][: len(holder[last]) // 2]
    else:
        holder[last] = value
    return data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(MUTATION, min_size=1, max_size=3))
def test_a_damaged_run_file_gives_an_exit_code_and_a_message(
    hosted: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory, mutations: list[Any]
) -> None:
    task, parent = hosted
    data = json.loads(json.dumps(parent))
    for kind, pick, value in mutations:
        data = _mutate(data, kind, pick, value)
    folder = tmp_path_factory.mktemp("damaged")
    (folder / PARENT).write_text(json.dumps(data), encoding="utf-8")
    code = main(["rescore", str(folder), "--task", str(task), "--quiet"])
    assert code in EXIT_CODES
    shutil.rmtree(folder)
