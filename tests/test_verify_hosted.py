"""`hallubench verify --hosted TASK`: the code Kaggle holds for a frozen task, taken from run
sources fetched through the real kaggle 2.2.5 client from the loopback fake of the Kaggle API
(`tests/support_kaggle`), compared with the frozen task file through push's jupytext round trip."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from hallubench.tooling import specs
from hallubench.tooling.cli import main
from hallubench.tooling.hosted_copy import (
    FrozenCode,
    HostedRun,
    LineDifference,
    Outcome,
    compare_notebooks,
    first_difference,
    show_line,
)
from hallubench.tooling.lockfile import read_lock
from hallubench.tooling.publish import convert_to_notebook

from support_kaggle.fake_kaggle_api import (
    RUN_COMPLETED,
    RUN_ERRORED,
    RUN_RUNNING,
    TASKS_SERVICE,
    FakeKaggleApi,
    as_kernel_session_notebook,
    make_zip,
)
from support_kaggle.harness import kaggle_test_env, run_hallubench, running_fake

DATA = Path(__file__).parent / "data"
GOOD_TASK = DATA / "publish" / "good_task.py"
DIFFERENCE_CASES = json.loads((DATA / "hosted_copy" / "first_differences.json").read_text(encoding="utf-8"))["cases"]
PROTOCOL = "hallumaze/v2"
SLUG = "hallumaze-v2"
RUN_FILES = {"hallumaze_v2.run.json": b"{}"}


@pytest.fixture(scope="module")
def task_file(repo_root: Path) -> Path:
    (spec,) = specs.find(PROTOCOL)
    return repo_root / spec.task_path


def _seed_push(fake: FakeKaggleApi, task_file: Path) -> int:
    """What `hallubench push` sends, handed to the fake's CreateBenchmarkTask directly (the
    push itself goes through the CLI in the tests that are about it); the new version."""
    notebook = convert_to_notebook(task_file.read_text(encoding="utf-8"))
    status, _ = fake.answer(TASKS_SERVICE, "CreateBenchmarkTask", {"slug": SLUG, "text": notebook})
    assert status == 200
    return fake.tasks[SLUG].version


def _with_line_replaced(notebook_text: str, old: str, new: str) -> str:
    """The notebook with the one source line `old` (without its newline) replaced by `new`."""
    notebook = json.loads(notebook_text)
    hits = 0
    for cell in notebook["cells"]:
        lines = "".join(cell["source"]).splitlines(keepends=True)
        for index, line in enumerate(lines):
            if line.rstrip("\n") == old:
                lines[index] = new + line[len(old) :]
                hits += 1
        cell["source"] = lines
    assert hits == 1, f"{old!r} occurs {hits} times in the notebook"
    return json.dumps(notebook)


def _verify(env: dict[str, str], repo_root: Path, *extra: str) -> tuple[int, str, str]:
    result = run_hallubench(["verify", "--hosted", PROTOCOL, *extra], env, cwd=repo_root)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout, result.stderr


# -- push, run, verify through the real client ------------------------------------------------


@pytest.mark.slow
def test_pushed_frozen_task_with_a_finished_run_verifies(tmp_path: Path, repo_root: Path) -> None:
    with running_fake() as fake:
        env = kaggle_test_env(tmp_path, fake)
        pushed = run_hallubench(["push", PROTOCOL], env, cwd=repo_root)
        assert pushed.returncode == 0, pushed.stderr
        fake.add_run(SLUG, 11, "gemma-3-27b", RUN_COMPLETED, RUN_FILES)
        fake.add_run(SLUG, 12, "gpt-5", RUN_COMPLETED, RUN_FILES)
        fake.add_run(SLUG, 13, "claude-sonnet-4-6-default", RUN_ERRORED, {"stderr.txt": b"Traceback"})
        fake.add_run(SLUG, 14, "o3", RUN_RUNNING, {})
        code, out, err = _verify(env, repo_root)
        downloads = [call.body for call in fake.calls_to("DownloadBenchmarkTaskRunOutput")]
        code_for_gemma, out_for_gemma, _ = _verify(env, repo_root, "-m", "google/gemma-3-27b")
        listed = fake.calls_to("ListBenchmarkTaskRuns")[-1].body
        gemma_downloads = [call.body for call in fake.calls_to("DownloadBenchmarkTaskRunOutput")][len(downloads) :]
    assert code == 0, err
    assert fake.calls_to("GetBenchmarkTask")[-1].body == {"slug": {"taskSlug": SLUG}}
    # one run stands for the version: the newest completed one, fetched with its source
    assert downloads == [{"runId": 12, "includeSource": True}]
    assert "__notebook_source__.ipynb and __notebook__.ipynb of run 12 (gpt-5, completed)" in out
    assert "version 1:    same code" in out
    assert f"verified:     every server version of {SLUG} (1)" in out
    assert code_for_gemma == 0
    assert listed["modelVersionSlugs"] == ["gemma-3-27b"]
    assert gemma_downloads == [{"runId": 11, "includeSource": True}]
    assert "of run 11 (gemma-3-27b, completed)" in out_for_gemma


@pytest.mark.slow
def test_a_changed_code_line_is_named_with_version_run_and_both_lines(
    tmp_path: Path, repo_root: Path, task_file: Path
) -> None:
    lines = task_file.read_text(encoding="utf-8").splitlines()
    old = "hallumaze_v2.run(kbench.llm)"
    new = "hallumaze_v2.run(kbench.llm, n_jobs=8)"
    line_number = lines.index(old) + 1
    with running_fake() as fake:
        env = kaggle_test_env(tmp_path, fake)
        pushed = run_hallubench(["push", PROTOCOL], env, cwd=repo_root)
        assert pushed.returncode == 0, pushed.stderr
        edited = fake.add_run(SLUG, 21, "gpt-5", RUN_COMPLETED, RUN_FILES)
        edited.source_notebook = _with_line_replaced(fake.pushed_notebooks[(SLUG, 1)], old, new)
        assert _seed_push(fake, task_file) == 2
        fake.add_run(SLUG, 22, "gpt-5", RUN_COMPLETED, RUN_FILES)
        code, out, err = _verify(env, repo_root)
    assert code == 1
    assert "version 2:    same code" in out
    assert "version 1:    DIFFERS: __notebook_source__.ipynb of run 21 (gpt-5, completed)" in out
    assert f"first difference at line {line_number}, column {len(old)} of {task_file}" in out
    assert f"frozen: {old!r}" in out
    assert f"hosted: {new!r}" in out
    assert f"the hosted code of {SLUG} differs from the frozen file (version 1)" in err
    assert "verified:" not in out


@pytest.mark.slow
def test_pushed_but_no_finished_run_is_nothing_to_compare(tmp_path: Path, repo_root: Path, task_file: Path) -> None:
    with running_fake() as fake:
        _seed_push(fake, task_file)
        fake.add_run(SLUG, 31, "gpt-5", RUN_RUNNING, {})
        code, out, err = _verify(kaggle_test_env(tmp_path, fake), repo_root)
        assert fake.calls_to("DownloadBenchmarkTaskRunOutput") == []
    assert code == 4
    assert "version 1:    nothing to compare: 1 run(s), none finished (running), so Kaggle offers no copy" in out
    assert f"not verified: nothing to compare for {SLUG} version 1" in err
    assert "verified:" not in out


@pytest.mark.slow
def test_task_not_on_kaggle_is_nothing_to_compare(tmp_path: Path, repo_root: Path) -> None:
    with running_fake() as fake:
        code, out, err = _verify(kaggle_test_env(tmp_path, fake), repo_root)
        methods = [call.method for call in fake.calls]
    assert code == 4
    assert methods == ["IntrospectToken", "GetBenchmarkTask"]
    assert f"Kaggle has no task {SLUG} (push it with `hallubench push`)" in err
    assert "verified:" not in out


@pytest.mark.slow
def test_a_kaggle_api_error_is_one_line(tmp_path: Path, repo_root: Path, task_file: Path) -> None:
    with running_fake() as fake:
        _seed_push(fake, task_file)
        fake.add_run(SLUG, 41, "gpt-5", RUN_COMPLETED, RUN_FILES)
        fake.failures["ListBenchmarkTaskRuns"] = (500, "the run index is unavailable")
        code, out, err = _verify(kaggle_test_env(tmp_path, fake), repo_root)
    assert code == 5
    assert err.strip().splitlines() == [
        f"hallubench: cannot check the hosted copy of {SLUG}: HTTP 500: the run index is unavailable"
    ]
    assert "verified:" not in out


@pytest.mark.slow
def test_an_unreadable_run_output_keeps_the_other_versions_report(
    tmp_path: Path, repo_root: Path, task_file: Path
) -> None:
    with running_fake() as fake:
        _seed_push(fake, task_file)
        broken = fake.add_run(SLUG, 51, "gpt-5", RUN_COMPLETED, RUN_FILES)
        broken.output_zip = b"this is not a zip archive"
        _seed_push(fake, task_file)
        fake.add_run(SLUG, 52, "gpt-5", RUN_COMPLETED, RUN_FILES)
        del fake.pushed_notebooks[(SLUG, 2)]  # Kaggle sends this run's output without its source
        _seed_push(fake, task_file)
        fake.add_run(SLUG, 53, "gpt-5", RUN_COMPLETED, RUN_FILES)
        code, out, err = _verify(kaggle_test_env(tmp_path, fake), repo_root)
    assert code == 5
    assert "version 3:    same code" in out
    assert "version 2:    nothing to compare: the output of run 52 (gpt-5) holds neither" in out
    assert "version 1:    error: download of run 51's output failed: File is not a zip file" in out
    assert f"not verified: Kaggle's copy of {SLUG} version 1 could not be read" in err


# -- refused before any request ---------------------------------------------------------------


def _no_kaggle_setup(monkeypatch: pytest.MonkeyPatch, home: Path, repo_root: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("HALLUBENCH_ROOT", raising=False)
    monkeypatch.chdir(repo_root)
    for name in [name for name in os.environ if name.startswith("KAGGLE_")]:
        monkeypatch.delenv(name)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "--hosted", "no-such-protocol"], "unknown task 'no-such-protocol'"),
        (["verify", "--hosted", str(GOOD_TASK)], "not a frozen protocol"),
        (["verify", "-m", "gpt-5"], "give --hosted TASK"),
    ],
    ids=["unknown-task", "unfrozen-file", "model-without-hosted"],
)
def test_what_is_not_a_frozen_task_is_refused_before_credentials(
    argv: list[str],
    message: str,
    tmp_path: Path,
    repo_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _no_kaggle_setup(monkeypatch, tmp_path, repo_root)
    assert main(argv) == 2  # not 3: the task is checked before credentials are looked for
    err = capsys.readouterr().err
    assert message in err


def test_without_credentials_says_what_is_missing(
    tmp_path: Path, repo_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_kaggle_setup(monkeypatch, tmp_path, repo_root)
    assert main(["verify", "--hosted", PROTOCOL]) == 3
    captured = capsys.readouterr()
    assert "cannot check the hosted copy: no Kaggle credentials found" in captured.err
    for where in ("KAGGLE_API_TOKEN", "~/.kaggle/access_token", "kaggle.json", "kaggle auth login"):
        assert where in captured.err
    assert "verified" not in captured.out


# -- the comparison ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", DIFFERENCE_CASES, ids=lambda case: case["name"])
def test_first_difference(case: dict[str, object]) -> None:
    found = first_difference(str(case["frozen"]), str(case["hosted"]))
    expected = case["expected"]
    assert (None if found is None else dataclasses.asdict(found)) == expected


def test_long_lines_are_shown_around_the_difference() -> None:
    frozen = "x = '" + "a" * 300 + "'\n"
    hosted = "x = '" + "a" * 200 + "b" + "a" * 99 + "'\n"
    difference = first_difference(frozen, hosted)
    assert difference is not None and difference.column == 206
    shown = show_line(difference.hosted, difference.column, difference.frozen)
    assert shown.startswith("...") and shown.endswith("...") and "b" in shown and len(shown) < 140
    assert show_line("a = 1\n", 6, "a = 1\r\n") == repr("a = 1\n")  # only the ending differs: show it
    assert show_line(None, 1, "x") == "(no such line: the text ends before it)"


def _good_task_code() -> tuple[FrozenCode, str]:
    notebook = convert_to_notebook(GOOD_TASK.read_text(encoding="utf-8"))
    return FrozenCode.from_notebook(GOOD_TASK, notebook), notebook


RUN = HostedRun(run_id=7, model="gpt-5", state="completed", version=1)


def test_what_kaggle_adds_and_drops_around_the_code_is_no_difference() -> None:
    frozen, notebook = _good_task_code()
    assert frozen.same_as_file
    hosted = json.loads(as_kernel_session_notebook(notebook, executed=True))
    del hosted["metadata"]["jupytext"]  # even when Kaggle drops jupytext's record of the format
    check = compare_notebooks(frozen, RUN, {"__notebook__.ipynb": json.dumps(hosted)})
    assert check.outcome is Outcome.SAME, check.difference


def test_a_code_cell_turned_markdown_is_a_difference_at_its_marker() -> None:
    frozen, notebook = _good_task_code()
    hosted = json.loads(notebook)
    index = next(i for i, cell in enumerate(hosted["cells"]) if cell["cell_type"] == "code")
    hosted["cells"][index]["cell_type"] = "markdown"
    for key in ("outputs", "execution_count"):
        hosted["cells"][index].pop(key, None)
    check = compare_notebooks(frozen, RUN, {"__notebook_source__.ipynb": json.dumps(hosted)})
    assert check.outcome is Outcome.DIFFERS and check.difference is not None
    markers = [n for n, line in enumerate(GOOD_TASK.read_text(encoding="utf-8").splitlines(), 1) if line == "# %%"]
    assert check.difference.line == markers[0]
    assert check.difference.frozen == "# %%\n"


def test_the_executed_notebook_is_compared_too() -> None:
    frozen, notebook = _good_task_code()
    source = as_kernel_session_notebook(notebook, executed=False).decode("utf-8")
    executed = json.loads(as_kernel_session_notebook(notebook, executed=True))
    extra = {"cell_type": "code", "id": "extra", "metadata": {}, "source": ["import os"], "outputs": []}
    executed["cells"].append({**extra, "execution_count": None})
    check = compare_notebooks(
        frozen, RUN, {"__notebook_source__.ipynb": source, "__notebook__.ipynb": json.dumps(executed)}
    )
    assert check.outcome is Outcome.DIFFERS
    assert check.notebook == "__notebook__.ipynb"
    file_lines = GOOD_TASK.read_text(encoding="utf-8").splitlines()
    assert check.difference == LineDifference(len(file_lines) + 1, 1, None, "\n")  # the new cell starts there


def test_a_zip_without_notebooks_is_nothing_to_compare() -> None:
    frozen, _ = _good_task_code()
    assert compare_notebooks(frozen, RUN, {}).outcome is Outcome.NOT_COMPARED
    assert make_zip({})  # the fake's empty output is still a zip


@pytest.mark.slow
@pytest.mark.parametrize("protocol_id", sorted(read_lock(Path(__file__).resolve().parents[1]).protocols))
def test_every_frozen_task_file_survives_the_round_trip(protocol_id: str, repo_root: Path) -> None:
    """Line numbers of a difference are the frozen file's own only if py -> ipynb -> py gives it back."""
    entry = read_lock(repo_root).protocols[protocol_id]
    path = repo_root / entry.task_file
    frozen = FrozenCode.from_notebook(path, convert_to_notebook(path.read_text(encoding="utf-8")))
    assert first_difference(path.read_text(encoding="utf-8"), frozen.text) is None
