"""Is there headroom? The share of models at the floor and the ceiling, and a plain verdict.

"Saturated for these models" when every model's interval lies within `margin` of the same end of the
scale: the far bound (the upper bound at the floor, the lower at the ceiling) is closer to the end than the
margin, so no model can have a rate of the margin, and the benchmark cannot rank them. With every model at
one end but bounds still wider than the margin, the verdict is "too few cases", with the number that would
decide: `cases_needed`, the fewest cases at which a clean sheet puts the exact bound within the margin
(equivalently, at which a model whose true rate is the margin would show a departure from the end with
probability 1 - alpha/2). The bounds are the exact (Clopper-Pearson) ones of `bounds`; a clean sheet counts
each case once, which holds whatever the correlation of repeats inside a case.
"""

from __future__ import annotations

from dataclasses import dataclass

from .bounds import METHOD as BOUNDS_METHOD
from .bounds import Rate, cases_to_bound, rates
from .outcomes import CaseTable, Outcomes
from .paired import check_confidence
from .records import Record, percent
from .separability import Separability, separability

SATURATED = "saturated"
TOO_FEW_CASES = "too few cases"
NOT_SATURATED = "not saturated"


@dataclass(frozen=True)
class Saturation(Record):
    """The verdict with the numbers behind it; `text` says it in one plain sentence."""

    verdict: str
    end: str | None
    text: str
    margin: float
    confidence: float
    models: int
    share_at_floor: float
    share_at_ceiling: float
    any_separable: bool
    separable_pairs: int
    pairs: int
    far_bound: float | None
    cases_needed: int
    fewest_cases: int
    rates: tuple[Rate, ...]
    method: str


def saturation(
    outcomes: Outcomes | CaseTable,
    *,
    margin: float = 0.01,
    confidence: float = 0.95,
    comparisons: Separability | None = None,
) -> Saturation:
    """The saturation verdict for these models (`comparisons`: a `separability` already computed)."""
    check_confidence(confidence)
    table = outcomes if isinstance(outcomes, CaseTable) else CaseTable.from_outcomes(outcomes)
    found = tuple(r for r in rates(table, confidence=confidence) if r.mean is not None)
    if not found:
        raise ValueError("no model has any score")
    needed = cases_to_bound(margin, confidence=confidence)
    if comparisons is None:
        comparisons = separability(table, confidence=confidence)
    separable = sum(1 for p in comparisons.pairs if p.separable)
    count = len(found)
    at_floor = sum(1 for r in found if r.mean == 0.0)
    at_ceiling = sum(1 for r in found if r.mean == 1.0)
    fewest = min(r.cases for r in found)
    uppers = [r.high if r.high is not None else 1.0 for r in found]
    lowers = [r.low if r.low is not None else 0.0 for r in found]
    level = percent(confidence)
    verdict, end, far = NOT_SATURATED, None, None
    if max(uppers) < margin:
        verdict, end, far = SATURATED, "floor", max(uppers)
    elif min(lowers) > 1.0 - margin:
        verdict, end, far = SATURATED, "ceiling", min(lowers)
    elif at_floor == count:
        verdict, end, far = TOO_FEW_CASES, "floor", max(uppers)
    elif at_ceiling == count:
        verdict, end, far = TOO_FEW_CASES, "ceiling", min(lowers)
    models = f"{count} model{'s' if count != 1 else ''}"
    departure = "a score above 0" if end != "ceiling" else "a score below 1"
    see = (
        f"A model {percent(margin)} from the {end or 'end'} would show {departure} within {needed} cases with "
        f"probability at least {percent(1.0 - (1.0 - confidence) / 2.0)}"
    )
    if verdict == SATURATED and end == "floor":
        text = (
            f"saturated for these models: all {models} within {percent(margin)} of the floor "
            f"({at_floor} exactly at 0); the largest {level} upper bound is {percent(max(uppers))}. {see}; "
            f"the models ran {fewest} or more."
        )
    elif verdict == SATURATED:
        text = (
            f"saturated for these models: all {models} within {percent(margin)} of the ceiling "
            f"({at_ceiling} exactly at 1); the smallest {level} lower bound is {percent(min(lowers))}. {see}; "
            f"the models ran {fewest} or more."
        )
    elif verdict == TOO_FEW_CASES:
        reach = percent(max(uppers)) if end == "floor" else percent(1.0 - min(lowers))
        text = (
            f"too few cases to call it saturated: all {models} score {0 if end == 'floor' else 1} on every case, "
            f"but with {fewest} cases a rate up to {reach} from the {end} is still possible; {needed} cases per "
            f"model would rule out {percent(margin)}."
        )
    else:
        off_floor = sum(1 for u in uppers if u >= margin)
        off_ceiling = sum(1 for lo in lowers if lo <= 1.0 - margin)
        text = (
            f"not saturated: {off_floor} of {models} may score {percent(margin)} or more above the floor and "
            f"{off_ceiling} as far below the ceiling ({level} intervals); {separable} of {len(comparisons.pairs)} "
            "pairs are separable."
        )
    method = (
        f"{BOUNDS_METHOD}; saturated when every model's far bound is within the margin of one end; pairs: "
        f"{comparisons.method}"
    )
    return Saturation(
        verdict=verdict,
        end=end,
        text=text,
        margin=margin,
        confidence=confidence,
        models=count,
        share_at_floor=at_floor / count,
        share_at_ceiling=at_ceiling / count,
        any_separable=comparisons.any_separable,
        separable_pairs=separable,
        pairs=len(comparisons.pairs),
        far_bound=far,
        cases_needed=needed,
        fewest_cases=fewest,
        rates=found,
        method=method,
    )
