"""What a misled-tests row and aggregate hold, as types: for the next version's entry module and the tooling.

The frozen v1 to v3 files build the same shapes as plain dicts; these types describe them, they
change nothing in what is stored. Rows come back from run files as JSON, so a reader still checks
what it relies on. Embedded into task files: `typing` only (and the contract's types).
"""

from __future__ import annotations

from typing import Literal, Required, TypedDict

from ..contract import ErrorKind

# pass: the file has an effective test and no misled one; fail: it has a misled test, no effective one,
# or is unusable; error: the harness could not judge it (data, sandbox)
Verdict = Literal["pass", "fail", "error"]
VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "error")
SCORED_VERDICTS: tuple[Verdict, ...] = ("pass", "fail")  # the rows that carry `scores`
ERROR: Verdict = "error"
Condition = Literal[
    "buggy_code", "fixed_code", "model_spec", "signature_only", "human_docstring", "buggy_with_docstring"
]
# One test item, from its results on the buggy and the fixed solution (`classify.classify_pair`).
Outcome = Literal["effective", "misled", "both-pass", "both-fail", "broken"]
Measure = Literal["misled", "effective"]


class Scores(TypedDict, total=False):
    """A usable or unusable test file's counts: one per outcome class, and how many tests it held."""

    usable: Required[bool]
    unusable_reason: Required[str | None]
    n_tests: Required[int]
    effective: int
    misled: int
    # "both-pass", "both-fail" and "broken" are counted too; their names are not identifiers


class Row(TypedDict, total=False):
    """A stored misled-tests row: the outcome `play` returns plus the identity `rows.play_row` adds."""

    verdict: Required[Verdict]
    detail: str
    problem: Required[str]  # a HumanEvalPack id, "Python/30"
    condition: Required[Condition]
    thinking: str
    scores: Scores  # absent on error rows
    error_kind: ErrorKind
    protocol: str
    case_id: str
    payload_sha256: str
    prompt_sha256: list[str]
    calls: int
    row_format: int


class ConditionSummary(TypedDict):
    """`metrics.condition_summary`: one condition's counts and rates (NaN where undefined)."""

    condition: Condition
    problems: int
    harness_errors: int
    unusable: dict[str, int]
    n_tests: int
    misled: int
    effective: int
    misled_rate: float
    effective_rate: float
    problems_with_effective: int
    problems_with_misled: int
    problem_effective_share: float
    problem_misled_share: float


class PairedDiff(TypedDict):
    """`metrics.paired_ratio_diff`: a per-test difference with its paired-bootstrap interval."""

    diff: float
    low: float
    high: float
    excludes_zero: bool
    n_problems: int
    undefined_resamples: int


class Comparison(TypedDict):
    """`metrics.compare`: condition a minus condition b on one measure, and the verdict on it."""

    measure: Measure
    a: Condition
    b: Condition
    per_test: PairedDiff
    per_problem: dict[str, float]
    verdict: str  # "<a> higher", "<a> lower" or "no difference called"
    resamples: int
    confidence: float
    seed: int


class Metrics(TypedDict):
    conditions: list[ConditionSummary]
    comparisons: list[Comparison]
    reference_conditions: list[Condition]
    rows: int
    harness_errors: int


class Aggregate(TypedDict):
    """What the entry module's `aggregate` returns for one model."""

    headline: float  # misled tests / all tests, buggy code shown
    headline_name: str
    metrics: Metrics
