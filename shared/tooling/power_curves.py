"""Power curves for the leaderboard: how likely the current design is to tell neighbours apart.

For each pair of entries next to each other in the ranking (the pairs a reader asks about), the plan from the
entries' own per-case repeat scores (`hallubench.tooling.statistics.plan_pair`): the minimum detectable
difference at the cases and repeats they share, and the power to detect each difference on a grid, at that
design and at four times the cases. Only neighbours, because a page with 36 models would otherwise carry 630
curves; `hallubench plan` gives any pair. Tooling only: JSON-able dicts for the page and the saved result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from .headline import Headline
from .statistics import CaseTable, plan_pair

ALPHA = 0.05
TARGET = 0.8
GRID_POINTS = 21
MAX_PAIRS = 40  # neighbours shown at most (a board of 41 entries)
SCALE_UP = 4  # the second curve: this many times the cases


def neighbour_curves(
    headlines: Mapping[str, Headline],
    ranked: Sequence[str],
    *,
    alpha: float = ALPHA,
    target: float = TARGET,
) -> dict[str, Any]:
    """The power section of a board: `pairs` in rank order, each with its plan numbers and two curves."""
    names = [name for name in ranked if name in headlines]
    outcomes = {name: headlines[name].cluster_scores() for name in names}
    table = CaseTable.from_outcomes(outcomes)
    pairs = []
    for first, second in list(pairwise(names))[:MAX_PAIRS]:
        found = plan_pair(table, first, second, alpha=alpha, target=target)
        curve: list[list[float | None]] = []
        scaled: list[list[float | None]] = []
        if found.mdd is not None:
            top = min(1.0, max(2.5 * found.mdd, 0.02))
            grid = [top * k / (GRID_POINTS - 1) for k in range(GRID_POINTS)]
            bigger = found.cases * SCALE_UP
            curve = [_point(d, found.power_at(d) if d > 0 else alpha) for d in grid]
            scaled = [_point(d, found.power_at(d, cases=bigger) if d > 0 else alpha) for d in grid]
        pairs.append(
            {
                "first": first,
                "second": second,
                "observed_diff": found.observed_diff,
                "cases": found.cases,
                "repeats": found.repeats,
                "mdd": found.mdd,
                "icc": found.icc,
                "curve": curve,
                "scaled_cases": found.cases * SCALE_UP,
                "scaled_curve": scaled,
                "notes": list(found.notes),
            }
        )
    return {
        "alpha": alpha,
        "power": target,
        "method": (
            f"neighbours in the ranking; two-sided paired t test at {alpha:g}, power from the noncentral t with the "
            "pilot's between- and within-case variance (hallubench plan)"
        ),
        "pairs": pairs,
    }


def _point(diff: float, power: float | None) -> list[float | None]:
    """A curve point, rounded: the page draws it, four decimals are more than a pixel."""
    return [round(diff, 4), None if power is None or not math.isfinite(power) else round(power, 4)]
