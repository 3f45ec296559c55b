"""What a benchmark can show: power planning, saturation, rank intervals, multiple comparisons and drift.

Over generic outcomes (model -> case id -> the scores of that case's repeats, each 0/1 or in [0, 1]):

* `plan` / `plan_pair` / `plan_single`: the minimum detectable paired difference at the pilot's cases and
  repeats, and the cases x repeats a given difference needs (`plan`);
* `saturation`: floor and ceiling shares, separability and the plain verdict, with exact bounds (`saturation`);
* `rank_intervals`: cluster-bootstrap rank intervals (`ranks`);
* `separability`: pairwise paired tests adjusted together (Holm by default) and the group letters
  (`separability`, `multiplicity`);
* `drift`: two runs of one slug compared metric by metric (`drift`);
* `paired_difference` and `rates`: the building blocks (`paired`, `bounds`).

Every result is a frozen dataclass with `to_dict()` for JSON. Tooling only, never embedded in a task file:
numpy and scipy, no I/O. `synthetic` and `calibration` hold the simulation checks that
`scripts/bench/stats_calibration.py` prints and the tests run small.
"""

from __future__ import annotations

from .bounds import Rate, cases_to_bound, rates
from .drift import Drift, MetricDrift, drift
from .multiplicity import ADJUSTMENTS, adjust
from .outcomes import CaseTable, ModelOutcomes, Outcomes
from .paired import PairedDifference, paired_difference
from .plan import (
    Components,
    DesignOption,
    PowerPlan,
    cases_needed,
    minimum_detectable,
    plan,
    plan_pair,
    plan_single,
    power,
    repeats_needed,
)
from .ranks import RankInterval, Ranks, rank_intervals
from .saturation import Saturation, saturation
from .separability import PairTest, Separability, Standing, separability

__all__ = [
    "ADJUSTMENTS",
    "CaseTable",
    "Components",
    "DesignOption",
    "Drift",
    "MetricDrift",
    "ModelOutcomes",
    "Outcomes",
    "PairTest",
    "PairedDifference",
    "PowerPlan",
    "RankInterval",
    "Ranks",
    "Rate",
    "Saturation",
    "Separability",
    "Standing",
    "adjust",
    "cases_needed",
    "cases_to_bound",
    "drift",
    "minimum_detectable",
    "paired_difference",
    "plan",
    "plan_pair",
    "plan_single",
    "power",
    "rank_intervals",
    "rates",
    "repeats_needed",
    "saturation",
    "separability",
]
