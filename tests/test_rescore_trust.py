"""Rescore never loses a report: text no program can encode is a located problem, two different copies of one
row are a conflict that is never counted, `--quiet` still names every problem, the exit code follows a
documented precedence, and `--json` is strict JSON.

The run files are real: the demo task file run under kaggle-benchmarks against the loopback stub model.
Other runs of the same model are made from that one by giving its rows other start times and conversation
ids (what tells two runs apart in a run file), so each damaged file is a run of its own.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hallubench.tooling.cli import main

from spine_demo import built_demo_checkout
from support.hosted import run_like_kaggle
from support.run_copies import another_run

pytest.importorskip("kaggle_benchmarks")

PARENT = "demo-v1-run_id_Run_1_stub_model-a.run.json"
PRECEDENCE = json.loads((Path(__file__).parent / "data" / "rescore" / "exit_precedence.json").read_text())
LONE = "\ud800"


@dataclass(frozen=True)
class Hosted:
    task: Path
    parent: dict[str, Any]

    def run(self, number: int) -> dict[str, Any]:
        """Run `number` of the same model: the hosted run with other start times and conversation ids (0: itself)."""
        return another_run(self.parent, number) if number else copy.deepcopy(self.parent)


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Hosted:
    base = tmp_path_factory.mktemp("trust")
    root = built_demo_checkout(base / "repo")

    def replies(messages: list[dict[str, Any]]) -> str:
        return "APPLE" if "capital letters" in messages[-1]["content"] else "apple"

    run_like_kaggle(root / "tasks" / "demo_v1.py", base / "runs", replies)
    return Hosted(root / "tasks" / "demo_v1.py", json.loads((base / "runs" / PARENT).read_text()))


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="ascii")  # kbench writes ASCII JSON: "\ud800" stays an escape
    return path


def _texts(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The message parts of a row, in order (system, prompt, reply, prompt, reply)."""
    return [part for request in row["conversations"][0]["requests"] for c in request["contents"] for part in c["parts"]]


def _rescore(hosted: Hosted, capsys: pytest.CaptureFixture[str], *paths: Path, extra: tuple[str, ...] = ()) -> Any:
    capsys.readouterr()
    code = main(["rescore", *map(str, paths), "--task", str(hosted.task), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- text that cannot be encoded -------------------------------------------------------------------------------

SURROGATE_PLACES: dict[str, Callable[[dict[str, Any]], None]] = {
    "prompt": lambda d: _texts(d["subruns"][1])[1].update(text="Case w-river" + LONE),
    "reply": lambda d: _texts(d["subruns"][1])[2].update(text="riv" + LONE + "er"),
    "case id": lambda d: d["subruns"][1]["results"][0]["dictResult"].update(case_id="w-river" + LONE),
    "metric name": lambda d: d["subruns"][1]["results"][0]["dictResult"]["scores"].update({"first" + LONE: 1.0}),
    "model slug": lambda d: d["modelVersion"].update(slug="stub/" + LONE),
    "task metric": lambda d: d["conversations"][0]["metrics"].update({LONE: 1.0}),
}


@pytest.mark.parametrize("place", sorted(SURROGATE_PLACES))
def test_a_lone_surrogate_is_a_located_problem_and_the_other_files_still_report(
    hosted: Hosted, tmp_path: Path, capsys: pytest.CaptureFixture[str], place: str
) -> None:
    damaged = hosted.run(1)
    SURROGATE_PLACES[place](damaged)
    good = _write(tmp_path / "good.run.json", hosted.run(0))
    bad = _write(tmp_path / "damaged.run.json", damaged)
    code, out, err = _rescore(hosted, capsys, bad, good, extra=("--json", str(tmp_path / "r.json")))
    assert code == 5, err
    problem = next(line for line in out.splitlines() if line.startswith(("FILE", "UNREADABLE")) and "damaged" in line)
    assert "lone surrogate U+D800" in problem
    assert "\\ud800" in problem or "U+D800" in problem  # shown as an escape, never as the raw code point
    if problem.startswith("UNREADABLE"):
        assert "subruns[1]" in problem  # the row, located; the file's two other rows still count
    report = json.loads((tmp_path / "r.json").read_text())
    rows = report["models"]["stub/model-a"]["rows"]
    good_rows = [row for row in rows if row["source"].startswith(str(good))]
    assert len(good_rows) == 3 and all(row["prompt_verified"] and row["score_agrees"] for row in good_rows)


def test_printing_a_report_never_fails_on_what_a_file_held(
    hosted: Hosted, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged = hosted.run(1)
    SURROGATE_PLACES["reply"](damaged)
    bad = _write(tmp_path / "damaged.run.json", damaged)
    for extra in ((), ("--quiet",), ("--markdown", str(tmp_path / "r.md"), "--rows-csv", str(tmp_path / "r.csv"))):
        code, out, err = _rescore(hosted, capsys, bad, extra=extra)
        assert code == 5 and LONE not in out + err


# -- conflicts ---------------------------------------------------------------------------------------------------


def test_an_edited_copy_of_a_row_is_a_conflict_and_neither_copy_counts(
    hosted: Hosted, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = hosted.run(0)
    edited = copy.deepcopy(run)
    _texts(edited["subruns"][0])[2]["text"] = "Apple"  # one character; the demo's check ignores case
    original = _write(tmp_path / "a.run.json", run)
    tampered = _write(tmp_path / "b.run.json", edited)
    other = _write(tmp_path / "c.run.json", hosted.run(1))
    code, out, _ = _rescore(hosted, capsys, original, tampered, other, extra=("--json", str(tmp_path / "r.json")))
    assert code == 6
    conflict = next(line for line in out.splitlines() if line.startswith("CONFLICT"))
    assert "case w-apple" in conflict
    assert f"{original} subruns[0]" in conflict and f"{tampered} subruns[0]" in conflict
    report = json.loads((tmp_path / "r.json").read_text())
    (summary,) = report["summary"]
    assert summary["rows"] == 5 and summary["conflicting_rows"] == 2  # 6 rows of two runs, less the conflict
    assert report["models"]["stub/model-a"]["metrics"]["metrics"]["rows"] == 5
    assert report["exit_code"] == 6


def test_a_copy_whose_stored_result_alone_differs_is_a_conflict(
    hosted: Hosted, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The digest of a copy leaves the result out (it is compared only when the rest is the same): still a conflict.
    run = hosted.run(0)
    edited = copy.deepcopy(run)
    result = edited["subruns"][0]["results"][0]["dictResult"]
    result["detail"] = str(result.get("detail", "")) + " (edited)"
    original = _write(tmp_path / "a.run.json", run)
    tampered = _write(tmp_path / "b.run.json", edited)
    code, out, _ = _rescore(hosted, capsys, original, tampered)
    assert code == 6
    conflict = next(line for line in out.splitlines() if line.startswith("CONFLICT"))
    assert f"{original} subruns[0]" in conflict and f"{tampered} subruns[0]" in conflict


def test_a_copy_whose_result_keys_stand_in_another_order_is_the_same_row(
    hosted: Hosted, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = hosted.run(0)
    reordered = copy.deepcopy(run)
    for subrun in reordered["subruns"]:
        for result in subrun["results"]:
            if "dictResult" in result:
                result["dictResult"] = dict(reversed(list(result["dictResult"].items())))
    code, out, _ = _rescore(
        hosted, capsys, _write(tmp_path / "a.run.json", run), _write(tmp_path / "b.run.json", reordered)
    )
    assert code == 0
    assert "rows: 3  identical copies skipped: 3" in out and "CONFLICT" not in out


def test_a_byte_identical_copy_is_skipped_not_a_conflict(
    hosted: Hosted, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = hosted.run(0)
    code, out, _ = _rescore(hosted, capsys, _write(tmp_path / "a.run.json", run), _write(tmp_path / "b.run.json", run))
    assert code == 0
    assert "rows: 3  identical copies skipped: 3" in out and "CONFLICT" not in out


def test_two_runs_with_the_same_replies_both_count(
    hosted: Hosted, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A deterministic model answers two runs identically: two samples each, not one row skipped as a copy.
    first, second = _write(tmp_path / "a.run.json", hosted.run(0)), _write(tmp_path / "b.run.json", hosted.run(1))
    code, out, _ = _rescore(hosted, capsys, first, second)
    assert code == 0 and "rows: 6  conflicting rows: 0" in out


# -- the exit code and --quiet -----------------------------------------------------------------------------------


def _damage(hosted: Hosted, folder: Path, kind: str, number: int) -> str:
    """Write one run file with one kind of problem; returns the tag of the line that must name it."""
    data = hosted.run(number)
    path = folder / f"{kind}.run.json"
    if kind == "unreadable_file":
        path.write_text('{"taskVersion": {', encoding="ascii")
        return "FILE"
    if kind == "unreadable_row":
        _texts(data["subruns"][2])[2]["text"] = LONE
        tag = "UNREADABLE"
    elif kind == "prompt":
        part = _texts(data["subruns"][1])[1]
        part["text"] = part["text"].replace("nothing else", "nothing more")
        tag = "PROMPT"
    elif kind == "score":
        data["subruns"][0]["results"][0]["dictResult"]["verdict"] = "fail"
        tag = "SCORE"
    elif kind == "headline":
        data["results"][0]["numericResult"]["value"] = 0.9
        tag = "HEADLINE"
    elif kind == "conflict":
        edited = copy.deepcopy(data)
        _texts(edited["subruns"][0])[2]["text"] = "Apple"
        _write(folder / "conflict-copy.run.json", edited)
        tag = "CONFLICT"
    else:
        raise AssertionError(kind)
    _write(path, data)
    return tag


@pytest.mark.parametrize("case", PRECEDENCE["cases"], ids=lambda case: "+".join(case["damages"]) or "clean")
def test_the_exit_code_follows_the_documented_precedence_and_every_problem_is_printed(
    hosted: Hosted, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: dict[str, Any]
) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    _write(folder / "clean.run.json", hosted.run(0))
    tags = [_damage(hosted, folder, kind, number) for number, kind in enumerate(case["damages"], start=1)]
    code, out, _ = _rescore(hosted, capsys, folder)
    assert code == case["exit"]
    for tag in tags:
        assert any(line.startswith(tag) for line in out.splitlines()), (tag, out)
    code, quiet_out, quiet_err = _rescore(hosted, capsys, folder, extra=("--quiet",))
    assert code == case["exit"] and quiet_out == ""
    assert sorted(line.split()[0] for line in quiet_err.splitlines()) == sorted(tags)  # one line per problem


def test_quiet_names_an_unreadable_file_beside_a_good_one(
    hosted: Hosted, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _write(tmp_path / "good.run.json", hosted.run(0))
    unreadable = tmp_path / "unreadable.run.json"
    unreadable.write_text("{", encoding="ascii")
    code, out, err = _rescore(hosted, capsys, good, unreadable, extra=("--quiet",))
    assert code == 5 and out == ""
    (line,) = err.splitlines()
    assert line.startswith("FILE") and "unreadable.run.json" in line


def test_a_path_that_does_not_exist_is_a_problem_not_the_end_of_the_report(
    hosted: Hosted, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _write(tmp_path / "good.run.json", hosted.run(0))
    code, out, _ = _rescore(hosted, capsys, good, tmp_path / "typo.run.json")
    assert code == 5 and "typo.run.json: no such file or directory" in out
    assert "rows: 3" in out  # the other input's report is all there
    code, _, err = _rescore(hosted, capsys, tmp_path / "typo.run.json")
    assert code == 2 and "typo.run.json: no such file or directory" in err  # nothing at all to read: bad usage


# -- strict JSON -------------------------------------------------------------------------------------------------


def _refuse(constant: str) -> Any:
    raise ValueError(f"not JSON: {constant}")


def test_json_output_is_strict_when_the_hosted_headline_is_nan(
    hosted: Hosted, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = hosted.run(0)
    run["results"][0]["numericResult"]["value"] = math.nan  # json.dumps writes a bare NaN; Python reads it back
    path = tmp_path / "nan.run.json"
    path.write_text(json.dumps(run), encoding="ascii")
    assert "NaN" in path.read_text()
    _rescore(hosted, capsys, path, extra=("--json", str(tmp_path / "r.json")))
    report = json.loads((tmp_path / "r.json").read_text(), parse_constant=_refuse)
    (parent,) = report["models"]["stub/model-a"]["parents"]
    assert parent["hosted_headline"] is None
