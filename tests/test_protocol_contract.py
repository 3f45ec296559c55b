"""The contract every registered protocol version keeps, tested the same way for each: a benchmark gets
these tests by being declared in shared/tooling/<package>/benchmark.py.

For every version of this checkout's registry (frozen ones through their frozen task file, the
rest through a fresh build): the declaration is consistent, rendering is deterministic and gives
the committed golden prompts, `play` on a scripted non-answer and on a failing model call gives a
row that identifies itself, `aggregate` over rows that include error rows gives a JSON headline
with its metrics, and the task file runs under the real kaggle-benchmarks and rescores with every
prompt verified. Benchmark-specific behaviour is tested beside each benchmark; nothing here knows
one benchmark from another.
"""

from __future__ import annotations

import json
import math
import os
import random
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hallubench.hashing import sha256_text
from hallubench.tooling.cli import main, make_parser
from hallubench.tooling.contract_check import check_entry, resolve_hooks
from hallubench.tooling.specs import ProtocolSpec, load_hook, load_registry
from hallubench.tooling.taskfile.reader import FrozenProtocol, read_task_file
from hallubench.tooling.testing import ScriptedConversation

from support.services import environment

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = load_registry(ROOT)
SPECS = [spec for spec in REGISTRY.protocols if (ROOT / spec.task_path).is_file()]
IDS = [spec.protocol_id for spec in SPECS]
NON_ANSWER = "I am not able to help with that."
CASES_TRIED = 3
# Frozen versions whose renderer breaks the rule (their bytes cannot change; the fix is a later version).
RENDERS_WITH_IO = {
    protocol: "frozen v1: its renderer reads HALLUBENCH_HUMANEVALPACK and may download the data (v2 prepares it)"
    for protocol in ("misled-tests/v1", "misled-tests-thinking/v1")
}
ROW_IDENTITY = {"row_format": int, "protocol": str, "payload_sha256": str, "case_id": str, "calls": int}


@dataclass
class Loaded:
    """A version's frozen task file loaded in isolation, with the cases `render` and `play` get."""

    spec: ProtocolSpec
    frozen: FrozenProtocol
    cases: list[dict[str, Any]]


@pytest.fixture(scope="module")
def services(loaded: Loaded) -> Iterator[dict[str, str]]:
    """What the version's runs need besides the model (`tests/<package>/services.py`), set in the environment."""
    with environment(REGISTRY, loaded.spec) as env, pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        yield env


@pytest.fixture(scope="module", params=SPECS, ids=IDS)
def loaded(request: pytest.FixtureRequest, require_benchmark_data: Callable[[str], None]) -> Iterator[Loaded]:
    spec: ProtocolSpec = request.param
    require_benchmark_data(spec.benchmark)
    with FrozenProtocol(read_task_file(ROOT / spec.task_path)) as frozen:
        yield Loaded(spec, frozen, resolve_hooks(frozen.entry, frozen.task.cases, spec).cases)


@contextmanager
def _no_environment_and_no_network() -> Iterator[None]:
    """What rendering may not use: the environment (emptied) and the network (every connection refused)."""
    saved = dict(os.environ)
    os.environ.clear()
    original = socket.socket.connect

    def refuse(self: socket.socket, address: Any) -> None:
        raise ConnectionRefusedError(f"rendering tried to connect to {address}")

    socket.socket.connect = refuse  # type: ignore[method-assign]
    try:
        yield
    finally:
        socket.socket.connect = original  # type: ignore[method-assign]
        os.environ.clear()
        os.environ.update(saved)


def _play(spec: ProtocolSpec, frozen: FrozenProtocol, case: dict[str, Any], conv: Any) -> dict[str, Any]:
    play = frozen.entry.play
    if spec.run_options:
        options = spec.option_defaults()

        def played(case: dict[str, Any], conv: Any) -> Any:
            return frozen.entry.play(case, conv, options)

        play = played
    row: dict[str, Any] = frozen.rows.play_row(
        play, case, conv, protocol_id=spec.protocol_id, payload_sha256=frozen.task.payload_sha256
    )
    return row


def _assert_row(row: dict[str, Any], spec: ProtocolSpec, case: dict[str, Any]) -> None:
    for key, kind in ROW_IDENTITY.items():
        assert isinstance(row.get(key), kind), (key, row.get(key))
    assert row["protocol"] == spec.protocol_id and row["case_id"] == case["id"]
    assert row["verdict"] in ("pass", "fail", "error", "unscored")
    assert all(isinstance(digest, str) and len(digest) == 64 for digest in row["prompt_sha256"])
    json.dumps(row, allow_nan=False)  # a run file stores it as a protobuf Struct: no NaN, JSON only


# -- the declaration ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_the_declaration_ties_name_folder_commands_and_files_together(spec: ProtocolSpec) -> None:
    benchmark = REGISTRY.benchmark_of(spec.protocol_id)
    assert benchmark is not None and benchmark.name == spec.benchmark
    assert spec.entry.split("/")[0] == benchmark.package, "the entry module lives in the benchmark's package"
    assert (ROOT / "shared" / benchmark.package / "__init__.py").is_file()
    assert (ROOT / "shared" / "tooling" / benchmark.package / "benchmark.py").is_file(), "declared in its own folder"
    assert spec.task_path == Path("tasks") / f"{spec.benchmark.replace('-', '_')}_v{spec.version}.py"
    task = read_task_file(ROOT / spec.task_path)
    # A version frozen before its folder was renamed embeds the entry under the old folder, and says so.
    assert (task.protocol_id, task.entry) == (spec.protocol_id, spec.embedded_entry)
    if spec.frozen_entry is not None:
        assert spec.frozen_entry.split("/", 1)[1] == spec.entry.split("/", 1)[1], "only the folder was renamed"
        assert spec.path_today(spec.frozen_entry) == spec.entry
    if benchmark.report is not None:
        assert callable(load_hook(benchmark.report, "report"))
    if benchmark.commands is not None:
        groups = next(a for a in make_parser()._actions if a.dest == "command").choices
        assert groups is not None and benchmark.name in groups
        assert all(groups[alias] is groups[benchmark.name] for alias in benchmark.cli_aliases)


def test_the_entry_provides_what_its_spec_declares(loaded: Loaded) -> None:
    spec, frozen = loaded.spec, loaded.frozen
    check_entry(frozen.entry, spec)


def test_every_frozen_protocol_is_still_declared() -> None:
    from hallubench.tooling.lockfile import read_lock

    missing = sorted(set(read_lock(ROOT).protocols) - {spec.protocol_id for spec in REGISTRY.protocols})
    assert not missing, f"frozen protocols without a declaration: {missing}"


def test_every_declared_protocol_is_built() -> None:
    unbuilt = sorted(spec.protocol_id for spec in REGISTRY.protocols if spec not in SPECS)
    assert not unbuilt, f"run `hallubench build` for {unbuilt}"


# -- render ------------------------------------------------------------------------------------------------------


def test_render_is_deterministic_and_gives_the_golden_prompts(loaded: Loaded) -> None:
    spec, frozen = loaded.spec, loaded.frozen
    goldens = json.loads((ROOT / spec.golden_path).read_text(encoding="utf-8"))
    cases = loaded.cases
    assert set(goldens) == {case["id"] for case in cases}
    first = [frozen.entry.render(case) for case in cases]
    random.seed(12345)  # global random state must not leak into a render
    random.random()
    with FrozenProtocol(frozen.task) as again, _no_environment_and_no_network():  # nor state, environment, I/O
        if spec.protocol_id in RENDERS_WITH_IO:
            pytest.xfail(RENDERS_WITH_IO[spec.protocol_id])
        second = [again.entry.render(case) for case in reversed(cases)][::-1]
    assert first == second
    assert {case["id"]: sha256_text(text) for case, text in zip(cases, first, strict=True)} == goldens


# -- play and aggregate ------------------------------------------------------------------------------------------


def test_play_on_a_non_answer_gives_a_row_that_identifies_itself(loaded: Loaded, services: dict[str, str]) -> None:
    spec, frozen = loaded.spec, loaded.frozen
    for case in loaded.cases[:CASES_TRIED]:
        conv = ScriptedConversation.always(NON_ANSWER)
        row = _play(spec, frozen, case, conv)
        _assert_row(row, spec, case)
        assert row["verdict"] != "pass", "a non-answer must not pass"
        assert row["prompt_sha256"][0 if conv.sent[0][0] == "user" else 1] == sha256_text(frozen.entry.render(case))
        assert len(row["prompt_sha256"]) == len(conv.sent) and row["calls"] == len(conv.asked)


def test_a_failing_model_call_is_an_error_row_never_a_verdict_on_the_model(
    loaded: Loaded, services: dict[str, str]
) -> None:
    spec, frozen = loaded.spec, loaded.frozen
    case = loaded.cases[0]
    row = _play(spec, frozen, case, ScriptedConversation.always(frozen.model_call_error("quota exhausted")))
    _assert_row(row, spec, case)
    assert row["verdict"] == "error" and row["error_kind"] == "model_call"


def test_aggregate_counts_error_rows_and_gives_a_json_headline(loaded: Loaded, services: dict[str, str]) -> None:
    spec, frozen = loaded.spec, loaded.frozen
    cases = loaded.cases[:CASES_TRIED]
    played = [_play(spec, frozen, case, ScriptedConversation.always(NON_ANSWER)) for case in cases]
    errors = [
        frozen.rows.error_row(spec.protocol_id, frozen.task.payload_sha256, str(case["id"]), "run_errored", "gone")
        for case in cases
    ]
    for rows in (played + errors, errors):
        summary = frozen.entry.aggregate(rows)
        assert isinstance(summary.get("headline_name"), str) and isinstance(summary.get("metrics"), dict)
        headline = summary.get("headline")
        assert headline is None or isinstance(headline, int | float)  # NaN: undefined, stored as null (json_safe)
        json.dumps(frozen.rows.json_safe(summary), allow_nan=False)
        assert math.isfinite(frozen.rows.headline_value(summary))


# -- the task file, end to end -----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_the_task_file_runs_under_kbench_and_rescores_verified(
    spec: ProtocolSpec,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    require_benchmark_data: Callable[[str], None],
) -> None:
    pytest.importorskip("kaggle_benchmarks")
    require_benchmark_data(spec.benchmark)
    from support.hosted import run_like_kaggle

    task = ROOT / spec.task_path
    with environment(REGISTRY, spec) as env:
        for name, value in env.items():  # the rescore asks the same services again
            monkeypatch.setenv(name, value)
        run_like_kaggle(task, tmp_path, lambda messages: NON_ANSWER, env={"HALLUBENCH_LIMIT": "2", **env})
        report = tmp_path / "report.json"
        assert main(["rescore", str(tmp_path), "--task", str(task), "--json", str(report), "--quiet"]) == 0
    (summary,) = json.loads(report.read_text())["summary"]
    assert summary["rows"] == summary["prompts_verified"] == summary["scores_agree"] == 2
