"""Compare a re-scored row with the row the hosted run stored.

Run files store a row dict as a protobuf Struct, so every number comes back as a float; the
comparison normalises ints to floats first. The free-text `detail` of an error row names
the package a module was loaded under, so it is not compared; its verdict and kind are.
"""

from __future__ import annotations

import json
import math
from typing import Any

IGNORED_WHEN_ERROR = frozenset({"detail"})


def normalise(value: Any) -> Any:
    """The value as it reads back from a protobuf Struct."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, dict):
        return {str(key): normalise(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [normalise(item) for item in value]
    return value


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, float) and isinstance(right, float):
        return left == right or (math.isnan(left) and math.isnan(right))
    if type(left) is not type(right):  # Python's == equates True with 1.0: a changed type is a difference
        return False
    return bool(left == right)


def _strictly_equal(left: Any, right: Any) -> bool:
    """Equal values of equal types (after `as_struct`): `true` is not `1.0`, whatever Python's == says."""
    return bool(left == right) and json.dumps(left, sort_keys=True) == json.dumps(right, sort_keys=True)


def as_struct(value: Any) -> Any:
    """`normalise` at C speed for JSON-able values: a JSON round trip that reads every number as a float."""
    try:
        return json.loads(json.dumps(value), parse_int=float)
    except (TypeError, ValueError):
        return normalise(value)


def differences(local: dict[str, Any], hosted: dict[str, Any], limit: int = 5) -> list[str]:
    """Paths where the two rows disagree, e.g. `scores.mei: local 0.5 vs hosted 0.4`."""
    ignore = IGNORED_WHEN_ERROR if local.get("verdict") == "error" and hosted.get("verdict") == "error" else frozenset()
    left, right = as_struct(local), as_struct(hosted)
    for key in ignore:
        left.pop(key, None)
        right.pop(key, None)
    if _strictly_equal(left, right):
        return []
    found: list[str] = []

    def walk(left: Any, right: Any, path: str) -> None:
        if len(found) >= limit:
            return
        if isinstance(left, dict) and isinstance(right, dict):
            for key in sorted(set(left) | set(right)):
                if not path and key in ignore:
                    continue
                sub = f"{path}.{key}" if path else key
                if key not in left:
                    found.append(f"{sub}: only in the hosted row")
                elif key not in right:
                    found.append(f"{sub}: only in the re-scored row")
                else:
                    walk(left[key], right[key], sub)
            return
        if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
            for index, (a, b) in enumerate(zip(left, right, strict=True)):
                walk(a, b, f"{path}[{index}]")
            return
        if not _same(left, right):
            found.append(f"{path}: re-scored {_short(left)} vs hosted {_short(right)}")

    walk(left, right, "")
    return found or ["rows differ (NaN or a type the comparison cannot name)"]


def _short(value: Any, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"
