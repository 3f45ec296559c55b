"""Leaderboards that say which entries can actually be told apart.

A ranking alone invites reading every gap as real. Here each entry (a model, a simulated
baseline, a human group) is scored on units it may share with the others (cases, problems);
its statistic is a ratio of sums over its units (a plain mean when every denominator is 1).
Every two entries are compared on the units both have, with a paired bootstrap of the
difference (the units resampled together, so what is shared cancels): the pair is *separable*
when the interval excludes 0. Groups are the maximal runs of consecutive ranks in which no two
entries are separable; an entry belongs to every group that covers it, so entries sharing a
letter cannot be told apart (a compact letter display). The pairs are the evidence; groups only
summarise them. Intervals are not corrected for the number of pairs, and the report says so.

Tooling, never embedded: numpy and `hallubench.stats` only, no I/O.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import stats

_CHUNK_ELEMENTS = 2_000_000  # resampled indices held at once (about 16 MB)


@dataclass(frozen=True)
class Entry:
    """One line of a leaderboard: its units as (numerator, denominator) and the counts printed beside it."""

    name: str
    kind: str  # "model", "baseline" or "human"
    units: Mapping[str, tuple[float, float]]
    denominators: Mapping[str, int] = field(default_factory=dict)


def units_from(items: Iterable[tuple[str, float, float]]) -> dict[str, tuple[float, float]]:
    """Sum (numerator, denominator) per unit id, so a unit seen twice (two runs of one case) counts once."""
    units: dict[str, tuple[float, float]] = {}
    for unit, numerator, denominator in items:
        old = units.get(unit, (0.0, 0.0))
        units[unit] = (old[0] + float(numerator), old[1] + float(denominator))
    return units


def leaderboard(
    metric: str,
    entries: Sequence[Entry],
    *,
    higher_is_better: bool,
    unit_name: str = "case",
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """The ranked entries with intervals, every pairwise difference and the groups, as a JSON-able dict."""
    lines = [_line(entry, confidence, resamples, seed) for entry in entries]
    lines.sort(key=lambda line: _rank_key(line, higher_is_better))
    by_name = {entry.name: entry for entry in entries}
    pairs = []
    for i, first in enumerate(lines):
        for second in lines[i + 1 :]:
            pairs.append(
                _pair(
                    by_name[first["name"]],
                    by_name[second["name"]],
                    confidence=confidence,
                    resamples=resamples,
                    seed=seed,
                )
            )
    separable = {(p["a"], p["b"]) for p in pairs if p["separable"]}
    groups = _groups([line["name"] for line in lines if line["value"] is not None], separable)
    for line in lines:
        line["groups"] = [group["label"] for group in groups if line["name"] in group["members"]]
    return {
        "metric": metric,
        "higher_is_better": higher_is_better,
        "unit": unit_name,
        "confidence": confidence,
        "resamples": resamples,
        "seed": seed,
        "method": (
            f"paired percentile bootstrap over shared {unit_name}s ({resamples} resamples, seed {seed}); "
            f"{100 * confidence:g}% intervals, not corrected for the number of pairs; a pair is separable "
            "when the interval of its difference excludes 0"
        ),
        "entries": lines,
        "pairs": pairs,
        "groups": groups,
    }


def _rank_key(line: Mapping[str, Any], higher_is_better: bool) -> tuple[bool, float, str]:
    value = line["value"]
    if value is None:
        return (True, 0.0, str(line["name"]))
    return (False, -value if higher_is_better else value, str(line["name"]))


def _arrays(units: Mapping[str, tuple[float, float]], ids: Sequence[str]) -> tuple[npt.NDArray[np.float64], ...]:
    numerators = np.array([units[i][0] for i in ids], dtype=np.float64)
    denominators = np.array([units[i][1] for i in ids], dtype=np.float64)
    return numerators, denominators


def _line(entry: Entry, confidence: float, resamples: int, seed: int) -> dict[str, Any]:
    ids = list(entry.units)
    numerators, denominators = _arrays(entry.units, ids)
    total = float(denominators.sum())
    value = float(numerators.sum()) / total if total else None
    low = high = None
    if len(ids) >= 2 and total:
        if bool(np.all(denominators == 1.0)):
            _, low, high = stats.bootstrap_mean_ci(numerators, resamples=resamples, confidence=confidence, seed=seed)
        else:
            low, high = _ratio_interval(numerators, denominators, None, None, confidence, resamples, seed)
    return {
        "name": entry.name,
        "kind": entry.kind,
        "value": value,
        "low": low,
        "high": high,
        "units": len(ids),
        "denominators": dict(entry.denominators),
    }


def _pair(a: Entry, b: Entry, *, confidence: float, resamples: int, seed: int) -> dict[str, Any]:
    shared = sorted(set(a.units) & set(b.units))
    out: dict[str, Any] = {"a": a.name, "b": b.name, "n": len(shared), "diff": None, "low": None, "high": None}
    out["separable"] = False
    if not shared:
        out["why"] = "no shared units"
        return out
    a_num, a_den = _arrays(a.units, shared)
    b_num, b_den = _arrays(b.units, shared)
    if not a_den.sum() or not b_den.sum():
        out["why"] = "undefined on the shared units (zero denominator)"
        return out
    out["diff"] = float(a_num.sum() / a_den.sum() - b_num.sum() / b_den.sum())
    if len(shared) < 2:
        out["why"] = "fewer than 2 shared units: no interval"
        return out
    if bool(np.all(a_den == 1.0)) and bool(np.all(b_den == 1.0)):
        result = stats.paired_bootstrap_diff(a_num, b_num, resamples=resamples, confidence=confidence, seed=seed)
        low, high = float(result["low"]), float(result["high"])
    else:
        low, high = _ratio_interval(a_num, a_den, b_num, b_den, confidence, resamples, seed)
    out["low"], out["high"] = low, high
    out["separable"] = bool(low > 0.0 or high < 0.0)  # False when the bounds are nan
    return out


def _ratio_interval(
    a_num: npt.NDArray[np.float64],
    a_den: npt.NDArray[np.float64],
    b_num: npt.NDArray[np.float64] | None,
    b_den: npt.NDArray[np.float64] | None,
    confidence: float,
    resamples: int,
    seed: int,
) -> tuple[float, float]:
    """Percentile interval of sum(a_num)/sum(a_den) [minus the same of b], units resampled together.

    Resamples with a zero denominator are undefined and left out.
    """
    rng = np.random.default_rng(seed)
    n = a_num.size
    chunk = max(1, _CHUNK_ELEMENTS // n)
    values: list[npt.NDArray[np.float64]] = []
    for start in range(0, resamples, chunk):
        index = rng.integers(0, n, size=(min(chunk, resamples - start), n))
        a_sums, a_dens = a_num[index].sum(axis=1), a_den[index].sum(axis=1)
        defined = a_dens > 0
        ratio = np.divide(a_sums, a_dens, out=np.zeros_like(a_sums), where=defined)
        if b_num is not None and b_den is not None:
            b_sums, b_dens = b_num[index].sum(axis=1), b_den[index].sum(axis=1)
            defined &= b_dens > 0
            ratio = ratio - np.divide(b_sums, b_dens, out=np.zeros_like(b_sums), where=b_dens > 0)
        values.append(ratio[defined])
    samples = np.concatenate(values)
    if not samples.size:
        return (float("nan"), float("nan"))
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(samples, [tail, 1.0 - tail])
    return (float(low), float(high))


def _groups(ranked: Sequence[str], separable: set[tuple[str, str]]) -> list[dict[str, Any]]:
    """Maximal runs of consecutive ranks with no separable pair inside, labelled a, b, c, ..."""

    def apart(x: str, y: str) -> bool:
        return (x, y) in separable or (y, x) in separable

    runs: list[tuple[int, int]] = []
    for start in range(len(ranked)):
        stop = start
        while stop + 1 < len(ranked) and not any(apart(ranked[m], ranked[stop + 1]) for m in range(start, stop + 1)):
            stop += 1
        if not runs or stop > runs[-1][1]:
            runs.append((start, stop))
    return [{"label": _label(i), "members": list(ranked[a : b + 1])} for i, (a, b) in enumerate(runs)]


def _label(index: int) -> str:
    letters = string.ascii_lowercase
    return letters[index] if index < len(letters) else f"g{index + 1}"
