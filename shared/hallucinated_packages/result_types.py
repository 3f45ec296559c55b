"""What a hallucinated-packages row and aggregate hold, as types: for the v9 entry module and the tooling.

The frozen v6 to v8 files build the same shapes as plain dicts (`scoring.sample_scores`,
`scoring.row_verdict`, `scoring.aggregate`); these types describe them and change nothing in what
is stored. Rows come back from run files as JSON, so a reader still checks what it relies on.
Embedded into task files: `typing` only (and the contract's types).
"""

from __future__ import annotations

from typing import Any, Literal, Required, TypedDict

from ..contract import ErrorKind

# pass: every package exists and every symbol was found; fail: a definite hallucination or a planted
# name used; unscored: a package stayed unverified or a possible removed-API use; error: no judgement.
Verdict = Literal["pass", "fail", "unscored", "error"]
VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "unscored", "error")
SCORED_VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "unscored")  # the rows that carry `scores`
ERROR: Verdict = "error"
# One reference's verdict at the package level or the symbol level (`checker.VERDICTS`).
ReferenceVerdict = Literal[
    "stdlib",
    "local",
    "exists",
    "missing",
    "decoy",
    "found",
    "missing-symbol",
    "missing-submodule",
    "missing-subpath",
    "removed-api",
    "unverified",
]
REFERENCE_VERDICTS: tuple[ReferenceVerdict, ...] = (
    "stdlib",
    "local",
    "exists",
    "missing",
    "decoy",
    "found",
    "missing-symbol",
    "missing-submodule",
    "missing-subpath",
    "removed-api",
    "unverified",
)
SYMBOL_HALLUCINATIONS: tuple[ReferenceVerdict, ...] = (
    "missing-symbol",
    "missing-submodule",
    "missing-subpath",
    "removed-api",
)
Level = Literal["package", "symbol"]
Ecosystem = Literal["pypi", "npm"]


class PackageCounts(TypedDict):
    unique: int
    exists: int
    missing: int
    unverified: int
    missing_names: list[str]  # "pypi:name", sorted


class SymbolCounts(TypedDict):
    checked: int
    found: int
    hallucinated: int
    removed_api: int
    unverified: int
    hallucinated_names: list[str]  # "pypi:name (missing-symbol)", sorted


class UseCounts(TypedDict):
    """Method and attribute uses on values a package gave the answer; `decided` carries the coverage."""

    all: int
    decided: int
    receiver_unknown: int
    possible_removed_api: list[str]


class DecoyUse(TypedDict):
    applies: bool  # a group B case: a name was planted
    planted: str | None
    used: list[str]
    passed: bool | None  # None outside group B
    denies_existence: bool


class Scores(TypedDict, total=False):
    """One answer's counts (`scoring.sample_scores`): what the aggregate sums and the verdict reads."""

    references_extracted: Required[int]
    third_party_references: Required[int]
    packages: Required[PackageCounts]
    symbols: Required[SymbolCounts]
    uses: UseCounts  # from v7 on
    decoys: Required[DecoyUse]
    partially_parsed: bool
    checker_errors: int


class Row(TypedDict, total=False):
    """A stored hallucinated-packages row: the outcome `play` returns plus the identity `rows.play_row` adds."""

    verdict: Required[Verdict]
    detail: str
    scores: Scores  # absent on error rows
    error_kind: ErrorKind
    prompt_id: str
    group: str  # "B": a planted name (the adversarial rate); "D": a removed API the case targets
    language: str
    attempt: int  # which of the prompt's k samples
    registry: dict[str, str]  # where the registries were asked (pypi, simple, npm)
    # ... and the checker's extraction and per-reference verdicts (`AnswerCheck.to_dict`)
    protocol: str
    case_id: str
    payload_sha256: str
    prompt_sha256: list[str]
    calls: int
    row_format: int
    run_options: dict[str, str]


class Rate(TypedDict):
    """A rate with its Wilson 95 % interval and the unverified share beside it (None when undefined)."""

    rate: float | None
    numerator: int
    denominator: int
    ci95: list[float | None] | None
    unverified: int
    unverified_share: float | None


class Aggregate(TypedDict, total=False):
    """What the entry module's `aggregate` returns for one model."""

    headline: Required[float]  # NaN when no package reference could be decided
    headline_name: Required[str]
    metrics: Required[dict[str, Any]]  # overall, by_group, by_language, per_prompt, counts
    flags: list[str]
