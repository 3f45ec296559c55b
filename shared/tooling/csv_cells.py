"""CSV cells meant for reading: floats rounded to 6 decimals, undefined numbers left empty.

A CSV is opened in a spreadsheet or a diff, where `0.9499999999999998` reads like a bug; six
decimals keep every rate and interval exact enough to compare. The JSON output keeps full precision.
"""

from __future__ import annotations

import math
from typing import Any

DECIMALS = 6


def cell(value: Any) -> Any:
    """`value` as a CSV cell: a float rounded (`0.9499999999999998` -> `0.95`), None/NaN/inf as ""."""
    if value is None:
        return ""
    if isinstance(value, float):
        return round(value, DECIMALS) if math.isfinite(value) else ""
    return value


def cells(values: list[Any]) -> list[Any]:
    return [cell(value) for value in values]
