"""No false OK from rescore: each input of the golden table (tests/data/rescore/false_ok.json), beside an intact
run file, gives the exit code and the kinds of problem the table says, keeps the intact file's rows, and says
"every prompt verified" (text) or shows the green banner (HTML) only when it lists no problem."""

from __future__ import annotations

import copy
import csv
import json
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main

from spine_demo import built_demo_checkout
from support.hosted import run_like_kaggle
from support.run_copies import another_run

pytest.importorskip("kaggle_benchmarks")

PARENT = "demo-v1-run_id_Run_1_stub_model-a.run.json"
TABLE = json.loads((Path(__file__).parent / "data" / "rescore" / "false_ok.json").read_text(encoding="utf-8"))
OUTPUT_BOUND = 400_000  # bytes of text or JSON report for the inputs below, whatever they hold
ROW_KINDS = {"unreadable", "conflict", "prompt", "unreachable", "score"}  # kinds a single row can have


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    base = tmp_path_factory.mktemp("false-ok")
    root = built_demo_checkout(base / "repo")
    run_like_kaggle(root / "tasks" / "demo_v1.py", base / "runs", lambda m: "apple")
    return root / "tasks" / "demo_v1.py", json.loads((base / "runs" / PARENT).read_text(encoding="utf-8"))


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="ascii")
    return path


def _first_number(node: Any) -> tuple[dict[str, Any], str] | None:
    """The first (dict, key) holding a float in a row result."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, float) and not isinstance(value, bool):
                return node, key
            found = _first_number(value)
            if found:
                return found
    return None


def _damaged(parent: dict[str, Any]) -> dict[str, Any]:
    return another_run(parent, 1)


def _rows_deleted(folder: Path, parent: dict[str, Any]) -> list[Path]:
    run = _damaged(parent)
    run["subruns"] = []
    return [_write(folder / "damaged.run.json", run)]


def _rows_of_another_protocol(folder: Path, parent: dict[str, Any]) -> list[Path]:
    run = _damaged(parent)
    for sub in run["subruns"]:
        sub["taskVersion"]["name"] = "other_task_row"
    return [_write(folder / "damaged.run.json", run)]


def _bool_for_float(folder: Path, parent: dict[str, Any]) -> list[Path]:
    run = _damaged(parent)
    found = _first_number(run["subruns"][0]["results"][0]["dictResult"])
    assert found is not None
    holder, key = found
    holder[key] = bool(holder[key])
    return [_write(folder / "damaged.run.json", run)]


def _special(kind: str) -> Callable[[Path, dict[str, Any]], list[Path]]:
    def make(folder: Path, parent: dict[str, Any]) -> list[Path]:
        target = folder / "damaged.run.json"
        if kind == "fifo":
            os.mkfifo(target)
        elif kind == "socket":
            listener = socket.socket(socket.AF_UNIX)
            listener.bind(str(target))
            listener.close()
        elif kind == "dangling":
            target.symlink_to(folder / "nowhere.run.json")
        else:
            target.symlink_to(folder / "loop.run.json")
            (folder / "loop.run.json").symlink_to(target)
        return []  # found by walking the folder

    return make


def _named(kind: str) -> Callable[[Path, dict[str, Any]], list[Path]]:
    def make(folder: Path, parent: dict[str, Any]) -> list[Path]:
        outside = folder.parent / f"named-{kind}.run.json"
        if kind == "fifo":
            os.mkfifo(outside)
        else:
            outside.symlink_to(folder.parent / "nowhere-at-all.run.json")
        return [outside]

    return make


def _failed_before_any_row(folder: Path, parent: dict[str, Any]) -> list[Path]:
    run = _damaged(parent)
    run["subruns"] = []
    run["state"] = "BENCHMARK_TASK_RUN_STATE_ERRORED"
    return [_write(folder / "damaged.run.json", run)]


def _conflict_only(folder: Path, parent: dict[str, Any]) -> list[Path]:
    run = copy.deepcopy(parent)  # the same run identity as the intact file ...
    found = _first_number(run["subruns"][0]["results"][0]["dictResult"])
    assert found is not None
    holder, key = found
    holder[key] = holder[key] + 0.5  # ... with one row stored differently
    return [_write(folder / "damaged.run.json", run)]


def _huge_slug(folder: Path, parent: dict[str, Any]) -> list[Path]:
    run = _damaged(parent)
    slug = "m" * 5_000_000
    run["modelVersion"]["slug"] = slug
    for sub in run["subruns"]:
        sub["modelVersion"]["slug"] = slug
    return [_write(folder / "damaged.run.json", run)]


DAMAGES: dict[str, Callable[[Path, dict[str, Any]], list[Path]]] = {
    "none": lambda folder, parent: [],
    "rows_deleted": _rows_deleted,
    "rows_of_another_protocol": _rows_of_another_protocol,
    "bool_for_float": _bool_for_float,
    "fifo_in_folder": _special("fifo"),
    "socket_in_folder": _special("socket"),
    "dangling_link_in_folder": _special("dangling"),
    "looping_link_in_folder": _special("loop"),
    "fifo_named": _named("fifo"),
    "dangling_link_named": _named("dangling"),
    "failed_before_any_row": _failed_before_any_row,
    "conflicting_copy": _conflict_only,
    "huge_slug": _huge_slug,
}


def test_the_table_covers_every_damage() -> None:
    assert sorted(case["damage"] for case in TABLE["cases"]) == sorted(DAMAGES)


@pytest.mark.parametrize("case", TABLE["cases"], ids=lambda case: case["damage"])
def test_each_input_gives_the_exit_and_problems_of_the_table(
    hosted: tuple[Path, dict[str, Any]], tmp_path: Path, case: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    task, parent = hosted
    folder = tmp_path / "runs"
    folder.mkdir()
    _write(folder / "intact.run.json", parent)
    named = DAMAGES[case["damage"]](folder, parent)
    report, page, rows_csv = tmp_path / "report.json", tmp_path / "report.html", tmp_path / "rows.csv"
    capsys.readouterr()
    outputs = ["--json", str(report), "--html", str(page), "--rows-csv", str(rows_csv)]
    code = main(["rescore", str(folder), *map(str, named), "--task", str(task), *outputs])
    out = capsys.readouterr().out
    assert "Traceback" not in out
    data = json.loads(report.read_text(encoding="utf-8"))
    kinds = sorted({problem["kind"] for problem in data["problems"]})
    assert (code, kinds) == (case["exit"], case["kinds"]), out[-3000:]
    assert data["exit_code"] == code
    reported = {row["case_id"] for m in data["models"].values() for row in m["rows"]}
    cases = {sub["results"][0]["dictResult"]["case_id"] for sub in parent["subruns"]}
    assert cases <= reported  # the intact file's rows are all reported (a byte-identical copy under either name)
    all_clear = "every prompt verified" in out
    green = 'class="banner ok"' in page.read_text(encoding="utf-8")
    assert all_clear == green == (not case["kinds"])
    assert len(out.encode()) < OUTPUT_BOUND and report.stat().st_size < OUTPUT_BOUND
    # The rows CSV reads the same list: every row-level kind the JSON has is on some row, and no other kind.
    with rows_csv.open(encoding="utf-8", newline="") as handle:
        csv_kinds = {kind for line in csv.DictReader(handle) for kind in line["problem_kind"].split()}
    assert csv_kinds == set(kinds) & ROW_KINDS
