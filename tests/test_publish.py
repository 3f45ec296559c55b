"""`hallubench push`: task-file validation, the frozen-lock check, and pushes through the real
kaggle 2.2.5 client to a loopback fake of the Kaggle API (`tests/support_kaggle`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from hallubench import errors
from hallubench.hashing import sha256_bytes
from hallubench.tooling import specs
from hallubench.tooling.cli import main
from hallubench.tooling.kaggle_access import CredentialSource, _no_network_and_quiet, find_credentials
from hallubench.tooling.lockfile import Lock, LockEntry, write_lock
from hallubench.tooling.publish import slugify_task_name, validate_task_file

from support_kaggle.fake_kaggle_api import ERRORED, FakeKaggleApi
from support_kaggle.harness import clean_env, kaggle_test_env, run_hallubench, running_fake

DATA = Path(__file__).parent / "data" / "publish"
GOOD_TASK = DATA / "good_task.py"
REGISTRY_MODULE = Path(specs.__file__)
ERRORS_MODULE = Path(errors.__file__)
CASES = json.loads((DATA / "validation_cases.json").read_text(encoding="utf-8"))["cases"]


# -- validation on hand-written task files ---------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['file']}-{c['expected_slug']}")
def test_validation_reports_expected_problems(case: dict[str, object]) -> None:
    validation = validate_task_file(DATA / str(case["file"]), expected_slug=case["expected_slug"])  # type: ignore[arg-type]
    found = [[problem.code, problem.line] for problem in validation.problems]
    assert found == case["problems"], "\n".join(p.render(validation.path) for p in validation.problems)
    assert validation.slug == case["slug"]
    assert validation.ok == (not case["problems"])


def test_problem_messages_name_the_fix() -> None:
    two = validate_task_file(DATA / "two_stored_tasks.py").problems[0].message
    assert "first task" in two and "second task" in two and "store_task=False" in two
    guard = validate_task_file(DATA / "run_under_main_guard.py").problems[0].message
    assert "guarded_task.run" in guard and "__main__" in guard
    magic = validate_task_file(DATA / "uncommented_magic.py").problems[1].message
    assert "# %choose magic_task" in magic


@pytest.mark.slow
def test_kaggle_client_agrees_with_our_reading_of_the_files(tmp_path: Path) -> None:
    """Cross-check against kaggle 2.2.5's own parser and notebook conversion, run in a clean
    process (importing kaggle touches HOME and tries to authenticate)."""
    script = r"""
import json, sys
from pathlib import Path
from hallubench.tooling.kaggle_access import _import_kaggle_api_class
from hallubench.tooling.publish import convert_to_notebook, slugify_task_name, validate_task_file
KaggleApi = _import_kaggle_api_class()

def without_cell_ids(text):  # nbformat gives every cell a random id
    notebook = json.loads(text)
    for cell in notebook["cells"]:
        cell.pop("id")
    return notebook

report = {}
for path in sorted(Path(sys.argv[1]).glob("*.py")):
    source = path.read_text(encoding="utf-8")
    ours = validate_task_file(path)
    report[path.name] = {
        "ours": ours.slug,
        "kaggle": sorted(slugify_task_name(n) for n in KaggleApi._get_task_names_from_file(source)),
        "same_notebook": without_cell_ids(KaggleApi._convert_py_to_notebook(source))
        == without_cell_ids(ours.notebook),
    }
print(json.dumps(report))
"""
    result = subprocess.run(
        [sys.executable, "-c", script, str(DATA)],
        env=clean_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert len(report) >= 8
    for name, item in report.items():
        assert item["same_notebook"], name
        if item["ours"] is not None:
            assert item["ours"] in item["kaggle"], name
    assert report["two_stored_tasks.py"]["kaggle"] == ["first-task", "second-task"]


# -- dry run: no credentials, no network, kaggle never imported ------------------------------


def test_dry_run_needs_no_credentials_and_never_imports_kaggle(tmp_path: Path) -> None:
    script = (
        "import sys; from hallubench.tooling.cli import main; "
        f"code = main(['push', {str(GOOD_TASK)!r}, '--dry-run', '-d', 'me/riddles']); "
        "print('KAGGLE-IMPORTED' if 'kaggle' in sys.modules else 'kaggle-not-imported'); sys.exit(code)"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], env=clean_env(tmp_path), capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "kaggle-not-imported" in result.stdout
    assert "riddle-check" in result.stdout
    assert "me/riddles" in result.stdout
    assert "dry run: nothing was sent" in result.stdout


def _point_kaggle_at(monkeypatch: pytest.MonkeyPatch, home: Path, fake: FakeKaggleApi | None) -> None:
    """In-process runs: a scratch HOME and, when given, the fake's endpoint and token."""
    home.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    for name in [name for name in os.environ if name.startswith("KAGGLE_")]:
        monkeypatch.delenv(name)
    if fake is not None:
        monkeypatch.setenv("KAGGLE_API_ENVIRONMENT", "TEST")
        monkeypatch.setenv("KAGGLE_API_TOKEN", fake.token)


def test_invalid_file_exits_2_and_sends_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with running_fake() as fake:
        _point_kaggle_at(monkeypatch, tmp_path, fake)
        assert main(["push", str(DATA / "two_stored_tasks.py")]) == 2
        assert fake.calls == []
    stderr = capsys.readouterr().err
    assert "two_stored_tasks.py:10: [several-stored-tasks]" in stderr
    assert "nothing was pushed" in stderr


def test_bad_dataset_name_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["push", str(GOOD_TASK), "--dry-run", "-d", "no-owner"]) == 2
    assert "[bad-dataset] dataset `no-owner`" in capsys.readouterr().err


def test_unknown_task_name_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["push", "no-such-protocol", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "unknown task 'no-such-protocol': give a path to a .py task file or a protocol (" in err
    assert "hallumaze" in err


# -- pushes through the real client to the loopback fake ------------------------------------


def _notebook_code(text: str) -> str:
    notebook = json.loads(text)
    return "\n".join("".join(cell["source"]) for cell in notebook["cells"])


@pytest.mark.slow
def test_push_sends_the_notebook_under_the_stored_task_slug(tmp_path: Path) -> None:
    with running_fake() as fake:
        result = run_hallubench(
            ["push", str(GOOD_TASK), "-d", "me/riddles", "-d", "me/more"], kaggle_test_env(tmp_path, fake)
        )
        assert result.returncode == 0, result.stderr
        assert [call.method for call in fake.calls] == [
            "IntrospectToken",
            "GetBenchmarkTask",
            "CreateBenchmarkTask",
        ]
        assert {call.authorization for call in fake.calls} == {f"Bearer {fake.token}"}
        body = fake.calls_to("CreateBenchmarkTask")[0].body
    assert body["slug"] == "riddle-check"
    assert body["options"] == {"datasetDataSources": ["me/riddles", "me/more"]}
    notebook = json.loads(body["text"])
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    code = _notebook_code(body["text"])
    source = GOOD_TASK.read_text(encoding="utf-8")
    for line in source.splitlines():
        if line.strip() and not line.startswith("# %%") and not line.startswith("# "):
            assert line in code, line
    assert "%choose riddle_check" in code.splitlines()  # the commented magic is live in the notebook
    assert "Pushed riddle-check" in result.stdout
    assert "hallubench download riddle-check" in result.stdout


@pytest.mark.slow
def test_repush_bumps_version_and_warns_about_detached_datasets(tmp_path: Path) -> None:
    with running_fake() as fake:
        fake.add_task("riddle-check", version=4, datasets=["me/old-data"])
        result = run_hallubench(["push", str(GOOD_TASK)], kaggle_test_env(tmp_path, fake))
        assert result.returncode == 0, result.stderr
        assert "new version of riddle-check" in result.stdout
        assert "me/old-data" in result.stderr and "detach" in result.stderr
        assert "options" not in fake.calls_to("CreateBenchmarkTask")[0].body
        assert fake.tasks["riddle-check"].version == 5


@pytest.mark.slow
def test_push_wait_polls_until_created(tmp_path: Path) -> None:
    with running_fake() as fake:
        result = run_hallubench(["push", str(GOOD_TASK), "--wait", "30"], kaggle_test_env(tmp_path, fake))
        assert result.returncode == 0, result.stderr
        methods = [call.method for call in fake.calls]
    assert methods[:3] == ["IntrospectToken", "GetBenchmarkTask", "CreateBenchmarkTask"]
    assert methods[3:] == ["GetBenchmarkTask"]
    assert "Completed" in result.stdout


@pytest.mark.slow
def test_push_wait_reports_a_failed_creation(tmp_path: Path) -> None:
    with running_fake() as fake:
        fake.creation_state_after_push = ERRORED
        fake.creation_error_after_push = "Can only save one task. Use %choose <task_name>"
        result = run_hallubench(["push", str(GOOD_TASK), "--wait"], kaggle_test_env(tmp_path, fake))
    assert result.returncode == 1
    assert "push of riddle-check failed" in result.stderr
    assert "Can only save one task" in result.stderr


# -- frozen protocol files --------------------------------------------------------------------


def _frozen_checkout(root: Path, recorded_sha256: str | None = None) -> Path:
    """A minimal checkout (frozen_cases/, a registry without benchmarks) whose lock freezes tasks/riddle_v1.py."""
    (root / "shared" / "tooling").mkdir(parents=True)
    shutil.copyfile(REGISTRY_MODULE, root / "shared" / "tooling" / "specs.py")
    shutil.copyfile(ERRORS_MODULE, root / "shared" / "errors.py")  # what specs.py imports
    (root / "tasks").mkdir()
    task_file = root / "tasks" / "riddle_v1.py"
    shutil.copyfile(GOOD_TASK, task_file)
    entry = LockEntry(
        protocol="riddle/v1",
        tag="riddle/v1",
        task_file="tasks/riddle_v1.py",
        task_sha256=recorded_sha256 or sha256_bytes(task_file.read_bytes()),
        payload_sha256="0" * 64,
        cases_sha256="0" * 64,
        golden_sha256="0" * 64,
        cases=2,
    )
    write_lock(root, Lock(protocols={entry.protocol: entry}))
    return task_file


@pytest.mark.slow
def test_frozen_file_with_its_locked_hash_is_pushed(tmp_path: Path) -> None:
    task_file = _frozen_checkout(tmp_path / "repo")
    with running_fake() as fake:
        result = run_hallubench(["push", str(task_file)], kaggle_test_env(tmp_path / "home", fake))
        assert result.returncode == 0, result.stderr
        assert "frozen as riddle/v1; sha256 matches" in result.stdout
        assert len(fake.calls_to("CreateBenchmarkTask")) == 1


def test_changed_frozen_file_is_refused_before_any_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    task_file = _frozen_checkout(tmp_path / "repo", recorded_sha256="ab" * 32)
    monkeypatch.delenv("HALLUBENCH_ROOT", raising=False)
    with running_fake() as fake:
        _point_kaggle_at(monkeypatch, tmp_path / "home", fake)
        assert main(["push", str(task_file)]) == 2
        assert fake.calls == []
    stderr = capsys.readouterr().err
    assert "[frozen-file-changed]" in stderr
    assert "ab" * 32 in stderr


def test_unreadable_lock_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    task_file = _frozen_checkout(tmp_path / "repo")
    monkeypatch.delenv("HALLUBENCH_ROOT", raising=False)
    (tmp_path / "repo" / "frozen_cases" / "protocols.lock").write_text("{not json", encoding="utf-8")
    assert main(["push", str(task_file), "--dry-run"]) == 2
    assert "[lock-unreadable]" in capsys.readouterr().err


def test_file_outside_the_lock_is_not_frozen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hallubench.tooling.publish import check_frozen

    _frozen_checkout(tmp_path / "repo")
    monkeypatch.delenv("HALLUBENCH_ROOT", raising=False)
    other = tmp_path / "repo" / "tasks" / "other.py"
    shutil.copyfile(GOOD_TASK, other)
    other.write_text(other.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    check = check_frozen(other)
    assert check.problem is None
    assert check.summary.startswith("not frozen")


# -- credentials ------------------------------------------------------------------------------


def test_push_without_credentials_says_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with running_fake() as fake:
        _point_kaggle_at(monkeypatch, tmp_path / "empty-home", None)
        monkeypatch.setenv("KAGGLE_API_ENVIRONMENT", "TEST")
        assert main(["push", str(GOOD_TASK)]) == 3
        assert fake.calls == []
    captured = capsys.readouterr()
    assert "no Kaggle credentials found" in captured.err
    for where in ("KAGGLE_API_TOKEN", "~/.kaggle/access_token", "kaggle.json", "kaggle auth login"):
        assert where in captured.err
    assert "Authentication required" not in captured.out  # kaggle's own help text is not printed


@pytest.mark.slow
def test_push_with_a_rejected_token_says_so(tmp_path: Path) -> None:
    with running_fake() as fake:
        env = clean_env(tmp_path / "home", KAGGLE_API_ENVIRONMENT="TEST", KAGGLE_API_TOKEN="not-the-token")
        result = run_hallubench(["push", str(GOOD_TASK)], env)
        assert [call.method for call in fake.calls] == ["IntrospectToken"]
    assert result.returncode == 3
    assert "did not accept the access token from KAGGLE_API_TOKEN" in result.stderr


@pytest.mark.parametrize(
    ("files", "env", "expected"),
    [
        ({}, {}, None),
        ({}, {"KAGGLE_API_TOKEN": "abc"}, CredentialSource("access token", "KAGGLE_API_TOKEN environment variable")),
        ({".kaggle/access_token": "abc\n"}, {}, CredentialSource("access token", "{home}/.kaggle/access_token")),
        ({".kaggle/access_token": "  \n"}, {}, None),
        (
            {".kaggle/kaggle.json": '{"username": "me", "key": "k"}'},
            {},
            CredentialSource("legacy API key", "{home}/.kaggle/kaggle.json"),
        ),
        ({".kaggle/kaggle.json": '{"username": "me"}'}, {}, None),
        (
            {},
            {"KAGGLE_USERNAME": "me", "KAGGLE_KEY": "k"},
            CredentialSource("legacy API key", "KAGGLE_USERNAME and KAGGLE_KEY environment variables"),
        ),
        (
            {".config/kaggle/kaggle.json": '{"username": "me", "key": "k"}'},
            {},
            CredentialSource("legacy API key", "{home}/.config/kaggle/kaggle.json"),
        ),
        (
            {".kaggle/credentials.json": '{"refresh_token": "r"}'},
            {},
            CredentialSource("OAuth credentials", "{home}/.kaggle/credentials.json"),
        ),
    ],
)
def test_find_credentials_follows_kaggle_sources(
    tmp_path: Path, files: dict[str, str], env: dict[str, str], expected: CredentialSource | None
) -> None:
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    found = find_credentials({"HOME": str(tmp_path), **env}, tmp_path)
    if expected is None:
        assert found is None
    else:
        assert found == CredentialSource(expected.kind, expected.where.format(home=tmp_path))


def test_import_guard_blocks_http_and_restores_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """kaggle authenticates at import; during that import no request may leave the process."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    watched = ("NO_PROXY", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")
    before = {name: os.environ.get(name) for name in watched}
    fake = FakeKaggleApi(port=0).start()
    url = f"http://127.0.0.1:{fake.port}/api/v1/security.OAuthService/IntrospectToken"
    try:
        with _no_network_and_quiet():
            print("muted")
            with pytest.raises(requests.ConnectionError):
                requests.post(url, json={"token": fake.token}, timeout=5)
        assert fake.calls == []
        assert requests.post(url, json={"token": fake.token}, timeout=5).status_code == 401
        assert len(fake.calls) == 1
    finally:
        fake.stop()
    assert "muted" not in capsys.readouterr().out
    assert {name: os.environ.get(name) for name in watched} == before


@pytest.mark.slow
@pytest.mark.parametrize("protocol_id", [spec.protocol_id for spec in specs.installed_registry().protocols])
def test_every_generated_task_file_would_push(
    protocol_id: str, repo_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The protocol name resolves to its built task file, which passes every check."""
    (spec,) = specs.find(protocol_id)
    monkeypatch.delenv("HALLUBENCH_ROOT", raising=False)
    monkeypatch.chdir(repo_root)
    code = main(["push", protocol_id, "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"task file:    {repo_root / spec.task_path}" in out
    assert f"Kaggle slug:  {slugify_task_name(spec.task_name)} " in out
