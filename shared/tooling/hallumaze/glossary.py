"""What each hallumaze metric name means: written once, read by the text report, the Markdown and the HTML page.

A reader meets SR, MEI, CE, BRS, ECE, HC, BT and LT in the rescore table, in every row's detail
line and in the drill-down; each is explained here, beside the formulas it summarises
(`hallubench.hallumaze.metrics`, `hallubench.hallumaze.aggregate`; the weights are read from there, not
copied). BRS changed meaning between protocol versions (v2 kept HalluMaze v1.1's formula, v3
measures lure resistance), so the glossary is asked for by the protocol whose scorer made the rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...hallumaze.metrics import SCORE_WEIGHTS


@dataclass(frozen=True)
class Term:
    """One metric name: the label shown (`SR`), its name in words and what it measures."""

    label: str
    name: str
    meaning: str

    @property
    def title(self) -> str:
        """The one-line explanation an `<abbr title>` carries."""
        return f"{self.name}: {self.meaning}"


_WEIGHTS = SCORE_WEIGHTS
_BRS_V3 = Term(
    "BRS",
    "bias (lure) resistance",
    "of the legal moves made from a cell whose side branch carries a lure (an exposure), the share that went "
    "toward the exit; undefined for a trial that met no lure. The mean over the trials that have one (n). "
    "Higher is better.",
)
_BRS_V2 = Term(
    "BRS",
    "bias resistance, HalluMaze v1.1's formula (kept by v2)",
    "1 if the trial crossed no wall and solved the maze, else max(0, 1 − HC / (BT + HC)): it never looks at "
    "the lures (v3 replaces it with lure resistance). The mean over the scored trials (n). Higher is better.",
)
_TERMS = (
    Term(
        "score",
        "hallumaze score",
        f"per trial the weighted mean of MEI ({_WEIGHTS['mei']:g}), 1 − CE ({_WEIGHTS['ce']:g}) and BRS "
        f"({_WEIGHTS['brs']:g}) over the parts the trial has, 0 for a reply with no verifiable move; the mean over "
        "all trials, an errored trial counting 0. Higher is better.",
    ),
    Term(
        "SR",
        "success rate",
        "1 when the trial's FINAL_PATH runs from (0,0) to the exit in unit moves without crossing a wall, else 0; "
        "the mean over all trials, an errored trial counting 0. Higher is better.",
    ),
    Term(
        "MEI",
        "HalluMaze v1.1's recovery-and-awareness index, fed verified counts only",
        "clip(0.4·HRR + 0.3·ETR + 0.2·AW − 0.1·min(1, HC/10), 0, 1), where ETR = 1 − FHR/N² (how late the first "
        "wall crossing came) and AW = 1 when the walk both looped and backtracked, or solved; the mean over all "
        "trials. Higher is better.",
    ),
    Term(
        "HRR",
        "recovery from wall crossings",
        "min(1, BT / HC) when the walk crossed a wall, else 1 if solved and 0 if not (a part of MEI).",
    ),
    Term(
        "CE",
        "calibration error",
        "per trial the mean |stated confidence − 1 if the move exists, else 0| over the moves that carry a "
        "confidence; the mean over the trials that state one (n), never imputed. Lower is better.",
    ),
    _BRS_V3,
    Term(
        "HC",
        "hallucination count",
        "moves through a wall or off the grid, verified by replaying the walk; the mean per scored trial. "
        "Lower is better.",
    ),
    Term(
        "ECE",
        "expected calibration error",
        "the stated confidences against whether each move exists, pooled over every move that carries one, "
        "in 10 equal-width bins. Lower is better.",
    ),
    Term(
        "BT",
        "backtracks",
        "verified moves that retreat along the walk's own path (a claimed BACKTRACK_COUNT is scored apart, as a "
        "claim).",
    ),
    Term("LT", "loops", "verified re-entries into cells the walk had already explored."),
    Term("FHR", "first hallucination", "the index of the first move through a wall (none without one)."),
    Term(
        "v1.1",
        "HalluMaze v1.1 score, as it was coded",
        "it merged the model's claimed counts into its own, so claiming backtracks raised it (see the liar "
        "baseline); for comparison with published numbers only.",
    ),
    Term("n", "trials", "the entry's trials (rows), errored ones included; for CE and BRS, the trials that have one."),
    Term("err", "errored trials", "trials whose model call failed: they count 0 and stay in n."),
)


def terms(protocol: str | None = None) -> tuple[Term, ...]:
    """Every term, BRS as the scorer of `protocol` (`hallumaze/v2`, `hallumaze/v3`; None: the installed v3) means it."""
    version = _version(protocol)
    brs = _BRS_V2 if version is not None and version <= 2 else _BRS_V3
    return tuple(brs if term.label == "BRS" else term for term in _TERMS)


def titles(protocol: str | None = None) -> dict[str, str]:
    """label -> the explanation an `<abbr title>` shows."""
    return {term.label: term.title for term in terms(protocol)}


def legend_lines(labels: tuple[str, ...] | list[str], protocol: str | None = None) -> list[str]:
    """The text legend: one `LABEL  name: meaning` line per label, in the order given."""
    known = {term.label: term for term in terms(protocol)}
    chosen = [known[label] for label in labels if label in known]
    width = max((len(term.label) for term in chosen), default=0)
    return [f"  {term.label.ljust(width)}  {term.title}" for term in chosen]


ABBREVIATIONS = ("SR", "MEI", "HRR", "CE", "BRS", "HC", "ECE", "BT", "LT", "FHR")
"""The labels that are abbreviations: wherever they stand as a word in text, the page marks them with `<abbr>`."""
WORD = re.compile(r"(?<![\w.])(" + "|".join(ABBREVIATIONS) + r")(?![\w])")


def _version(protocol: str | None) -> int | None:
    match = re.fullmatch(r"[\w.-]+/v(\d+)", protocol or "")
    return int(match.group(1)) if match else None
