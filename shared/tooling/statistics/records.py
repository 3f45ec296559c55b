"""The base of every result: a frozen dataclass that turns itself into JSON-ready data."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any


class Record:
    """Mixin for the frozen result dataclasses: `to_dict()` gives plain JSON data (lists, no NaN)."""

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON-ready data: nested records as dicts, tuples as lists, non-finite floats as None."""
        out = _plain(self)
        assert isinstance(out, dict)
        return out


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def percent(value: float) -> str:
    """`0.0073` as `0.73 %`: three significant digits, the way every text here writes a share."""
    return f"{100.0 * value:.3g} %"
