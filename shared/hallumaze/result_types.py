"""What a hallumaze row and aggregate hold, as types: for the next version's entry module and the tooling.

The frozen v2 and v3 files build the same shapes as plain dicts; these types describe them, they
change nothing in what is stored. Rows come back from run files as JSON, so a reader still checks
what it relies on. Embedded into task files: `typing` only (and the contract's types).
"""

from __future__ import annotations

from typing import Any, Literal, Required, TypedDict

from ..contract import ErrorKind, Verdict  # hallumaze verdicts: pass when the final path is valid, else fail

VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "error", "unscored")
SCORED_VERDICTS: tuple[Verdict, ...] = ("pass", "fail")  # the rows that carry `scores`
ERROR: Verdict = "error"
Mode = Literal["single", "interactive"]
ScoreBasis = Literal["with_ce", "without_ce", "with_ce_without_brs", "without_ce_or_brs", "format_failure"]


class Condition(TypedDict):
    """A case's experimental condition, copied into every row so aggregation needs no case list."""

    size: int
    seed: int
    mirage: bool
    confidence: bool
    group: str  # "A", "B" or "C" (interactive hints); "A" for single trials
    repeat: int
    mode: Mode


class LureCounts(TypedDict):
    exposures: int
    follows: int
    resists: int


class Scores(TypedDict, total=False):
    """A trial's verified numbers (`metrics.trial_metrics`) and what v3 adds beside them."""

    sr: Required[float]  # 1.0 when the final path is valid
    hc: Required[int]
    fhr: int | None
    bt: Required[int]
    lt: Required[int]
    hrr: Required[float]
    mei: Required[float]
    brs: Required[float | None]  # None: no lure met
    ce: Required[float | None]  # None: no confidence stated
    brier: float | None
    score: Required[float]
    score_basis: ScoreBasis
    teleports: Required[int]
    revisits: int
    moves: int
    reached_exit: bool
    format: Required[dict[str, Any]]
    calibration: dict[str, Any]
    claims: dict[str, Any]
    lures: LureCounts
    interactive: dict[str, Any]
    v11: dict[str, Any]  # HalluMaze v1.1 scoring as coded, labelled, for comparison only


class Row(TypedDict, total=False):
    """A stored hallumaze row: the outcome `play` returns plus the identity `rows.play_row` adds."""

    verdict: Required[Verdict]
    detail: str
    condition: Condition
    scores: Scores  # absent on error and unscored rows
    error_kind: ErrorKind
    protocol: str
    case_id: str
    payload_sha256: str
    prompt_sha256: list[str]
    calls: int
    row_format: int


class Metrics(TypedDict, total=False):
    """`aggregate_rows`' metrics: rates over all trials (errors count 0), BRS and CE where defined."""

    n_trials: Required[int]
    n_scored: Required[int]
    n_error: Required[int]
    verdicts: Required[dict[str, int]]
    sr: float | None
    hrr: float | None
    mei: float | None
    score: float | None
    brs: float | None
    n_brs: int
    ce: float | None
    n_ce: int
    hc: float | None
    bt: float | None
    lt: float | None
    teleports: float | None
    format_failures: int
    calibration: dict[str, Any]
    claims: dict[str, Any]
    lures: dict[str, Any]
    mirage_effect: dict[str, Any]
    ariadne: dict[str, Any]
    v11: dict[str, Any]


class Aggregate(TypedDict):
    """What the entry module's `aggregate` returns for one model."""

    headline: float  # the mean verified HalluMaze score over all trials; 0.0 when there are none
    headline_name: Literal["hallumaze_score"]
    metrics: Metrics
