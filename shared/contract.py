"""The protocol contract as types: what an entry module's functions take and return.

An entry module (`shared/<package>/task_v<N>.py`, declared by a `ProtocolSpec`) provides
`render`, `play` and `aggregate`, and the hooks its spec declares (`preflight`, `comparable`,
`prepare`): `EntryModule`, `EntryModuleWithOptions` and the hook Protocols say so, and
`hallubench build` checks the same at run time by reading their signatures
(`hallubench.tooling.contract_check`). The dicts are TypedDicts: a benchmark's own outcome
extends `PlayOutcome` with its fields (`class MazeOutcome(PlayOutcome): ...`); its rows and
aggregates are typed in `shared/<package>/result_types.py`.

Rows travel through run files as protobuf Structs, so every value must be JSON (no NaN: an
undefined rate is None, its denominator beside it). Embedded into task files: typing only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, Required, TypedDict

from .conversation import Conversation

Verdict = Literal["pass", "fail", "error", "unscored"]
# Why a row is an error row: the protocol's own kinds (data, sandbox, scorer, model_call) and the harness's.
ErrorKind = Literal["data", "sandbox", "scorer", "model_call", "run_errored", "jail", "unreadable", "unverified"]
Case = dict[str, Any]  # one case as frozen in cases.json: canonical JSON with a string "id"
RunOptions = Mapping[str, str]  # the declared run options, every one present (defaults filled in)


class PlayOutcome(TypedDict, total=False):
    """What `play` returns: a verdict, why, and the scores the aggregate needs."""

    verdict: Required[Verdict]
    detail: str
    scores: dict[str, Any]
    error_kind: ErrorKind  # for verdict "error"


class Row(PlayOutcome, total=False):
    """A stored row: the outcome plus the identity `rows.play_row` adds (run files keep no inputs)."""

    row_format: Required[int]
    protocol: Required[str]
    payload_sha256: Required[str]
    case_id: Required[str]
    prompt_sha256: Required[list[str]]  # of every message the protocol sent, in order
    calls: Required[int]
    run_options: dict[str, str]  # present when the version declares run options


class Aggregate(TypedDict, total=False):
    """What `aggregate` returns over one model's rows (error rows included, counted in denominators)."""

    headline: Required[float | None]  # None when undefined (0 of 0); the stored task's score is then 0.0
    headline_name: Required[str]
    metrics: Required[dict[str, Any]]


class EntryModule(Protocol):
    """The three functions every entry module defines."""

    def render(self, case: Case) -> str: ...

    def play(self, case: Case, conv: Conversation) -> PlayOutcome: ...

    def aggregate(self, rows: list[Row]) -> Aggregate: ...


class EntryModuleWithOptions(Protocol):
    """An entry module whose version declares run options: `play` takes them as its third argument."""

    def render(self, case: Case) -> str: ...

    def play(self, case: Case, conv: Conversation, options: RunOptions) -> PlayOutcome: ...

    def aggregate(self, rows: list[Row]) -> Aggregate: ...


class PreflightHook(Protocol):
    """`ProtocolSpec.preflight`: run once in the task file before any model call; raise to abort the run."""

    def preflight(self, cases: Sequence[Case]) -> dict[str, Any]: ...


class PreflightHookWithOptions(Protocol):
    """The preflight of a version that declares run options: it gets them as its second argument."""

    def preflight(self, cases: Sequence[Case], options: RunOptions) -> dict[str, Any]: ...


class PrepareHook(Protocol):
    """`ProtocolSpec.prepare`: the frozen cases with the external data they refer to, loaded and verified."""

    def prepare(self, cases: Sequence[Case]) -> list[Case]: ...


class ComparableHook(Protocol):
    """`ProtocolSpec.comparable`: the part of a row `rescore` compares with the hosted row."""

    def comparable(self, row: Mapping[str, Any]) -> Any: ...
