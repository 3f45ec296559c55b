"""Rescore never crashes on a damaged run file: any mutation of a real one gives an exit code and a message.

The run files come from running the demo task file under the real kaggle-benchmarks; hypothesis
deletes keys, swaps values for values of other JSON types and cuts strings, anywhere in them, and
puts arbitrary Unicode (lone surrogates and NUL included) into any string or key, beside an intact
run whose report must survive.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hallubench.tooling.cli import main

from spine_demo import built_demo_checkout
from support.hosted import run_like_kaggle

pytest.importorskip("kaggle_benchmarks")

PARENT = "demo-v1-run_id_Run_1_stub_model-a.run.json"
# verified, bad usage (e.g. nothing of this task left), prompt, score, unreadable, conflicting copies
EXIT_CODES = {0, 2, 3, 4, 5, 6}


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


def _string_slots(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[str, tuple[Any, ...]]]:
    """Every string value ("value", path) and every key ("key", path to it) of a JSON value."""
    found: list[tuple[str, tuple[Any, ...]]] = []
    if isinstance(value, str):
        found.append(("value", prefix))
    elif isinstance(value, dict):
        for key, item in value.items():
            found.append(("key", (*prefix, key)))
            found += _string_slots(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _string_slots(item, (*prefix, index))
    return found


ANY_TEXT = st.text(st.characters(), max_size=6)  # any code point: lone surrogates, NUL, controls


def _put_text(data: Any, slot: tuple[str, tuple[Any, ...]], text: str) -> None:
    kind, path = slot
    holder = data
    for step in path[:-1]:
        holder = holder[step]
    if kind == "value":
        holder[path[-1]] = text
    elif text not in holder:
        holder[text] = holder.pop(path[-1])


def _other_run(parent: dict[str, Any]) -> dict[str, Any]:
    """Another run of the same model: other start times and conversation ids."""
    data = json.loads(json.dumps(parent).replace('Z"', '999Z"').replace("-req-", "-other-req-"))
    for sub in [data, *data["subruns"]]:
        for conversation in sub.get("conversations", []):
            conversation["id"] += "-other"
    return data


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 10**6), ANY_TEXT), min_size=1, max_size=3))
def test_any_text_in_any_string_field_gives_a_report_and_an_exit_code(
    hosted: tuple[Path, dict[str, Any]],
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    edits: list[tuple[int, str]],
) -> None:
    task, parent = hosted
    data = json.loads(json.dumps(parent))
    for pick, text in edits:
        slots = _string_slots(data)
        _put_text(data, slots[pick % len(slots)], text)
    folder = tmp_path_factory.mktemp("text")
    (folder / "edited.run.json").write_text(json.dumps(data), encoding="ascii")
    (folder / "intact.run.json").write_text(json.dumps(_other_run(parent)), encoding="ascii")
    capsys.readouterr()
    code = main(["rescore", str(folder), "--task", str(task), "--json", str(folder / "report.json")])
    out, err = capsys.readouterr()
    assert code in EXIT_CODES
    assert out or err
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    intact = [
        row
        for model in report["models"].values()
        for row in model["rows"]
        if row["source"].startswith(str(folder / "intact.run.json"))
    ]
    assert len(intact) == 3, "the intact run's rows were lost"
    shutil.rmtree(folder)


KIND_CODES = {"file": 5, "unreadable": 5, "conflict": 6, "incomplete": 3, "prompt": 3, "score": 4, "headline": 4}
ORDER = (5, 6, 3, 4)


def _damage_bytes(text: str, kind: str, pick: int, byte: int) -> bytes | str:
    """The damaged file's bytes (or a special kind of file to make in its place)."""
    data = text.encode("ascii")
    at = pick % max(1, len(data))
    if kind == "truncate":
        return data[:at]
    if kind == "flip":
        return data[:at] + bytes([byte]) + data[at + 1 :]
    if kind == "duplicate_key":
        brace = data.find(b"{", at)
        return data if brace < 0 else data[: brace + 1] + b'"state": "X", ' + data[brace + 1 :]
    if kind == "foreign_row":
        parsed = json.loads(text)
        if parsed.get("subruns"):
            parsed["subruns"][pick % len(parsed["subruns"])]["taskVersion"]["name"] = "elsewhere_row"
        return json.dumps(parsed).encode("ascii")
    return kind  # "fifo", "dangling": made in place of the file


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(["truncate", "flip", "duplicate_key", "foreign_row", "fifo", "dangling"]),
    st.integers(0, 10**6),
    st.integers(0, 255),
)
def test_a_mutated_file_beside_an_intact_one_gives_the_code_of_its_problems(
    hosted: tuple[Path, dict[str, Any]],
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    pick: int,
    byte: int,
) -> None:
    import os

    task, parent = hosted
    folder = tmp_path_factory.mktemp("mutated")
    (folder / "intact.run.json").write_text(json.dumps(parent), encoding="ascii")
    damaged = _damage_bytes(json.dumps(_other_run(parent)), kind, pick, byte)
    target = folder / "damaged.run.json"
    if damaged == "fifo":
        os.mkfifo(target)
    elif damaged == "dangling":
        target.symlink_to(folder / "gone.run.json")
    else:
        assert isinstance(damaged, bytes)
        target.write_bytes(damaged)
    capsys.readouterr()
    code = main(["rescore", str(folder), "--task", str(task), "--json", str(folder / "report.json")])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    codes = {KIND_CODES[problem["kind"]] for problem in report["problems"]}
    expected = next((c for c in ORDER if c in codes), 0)
    assert code == expected == report["exit_code"]
    assert ("every prompt verified" in out) == (not report["problems"])
    reported = {row["case_id"] for model in report["models"].values() for row in model["rows"]}
    cases = {sub["results"][0]["dictResult"]["case_id"] for sub in parent["subruns"]}
    assert cases <= reported, "the intact run's rows were lost"
    shutil.rmtree(folder)
