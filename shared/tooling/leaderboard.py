"""Leaderboards that say which entries can actually be told apart.

A ranking alone invites reading every gap as real. Here each entry (a model, a simulated
baseline, a human group) is scored on units it may share with the others (cases, problems);
its statistic is a ratio of sums over its units (a plain mean when every denominator is 1).
Units that repeat one case (the k samples of a prompt) are clustered: an entry may map each unit
to its cluster, and every interval and test then resamples or counts clusters, not units, since
repeats of one case share its difficulty.

Every two entries are compared on the clusters both have: the difference with its paired
bootstrap interval (the evidence shown), and a cluster-robust paired test whose p-values are
adjusted together across all pairs (Holm by default, `hallubench.tooling.statistics`): a pair is
*separable* when its adjusted p-value is at most 1 - confidence, so a group letter means the same
at 3 entries and at 36. Entries sharing a letter were not shown to differ (a compact letter
display). Beside each rank stands its bootstrap rank interval, and above the board the
saturation verdict: whether every entry sits within a margin of the floor or the ceiling, with
the cases a rate of that margin needs. A board made from headlines (`board_of`) also carries the
power curves of neighbouring entries (`power_curves`).

Tooling, never embedded: numpy, `hallubench.stats` and `hallubench.tooling.statistics`, no I/O.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import stats
from .headline import Headline
from .power_curves import neighbour_curves
from .statistics import CaseTable, rank_intervals, saturation, separability

_CHUNK_ELEMENTS = 2_000_000  # resampled indices held at once (about 16 MB)
_CACHED_ELEMENTS = 1_000_000  # resample weights kept for the next pair with as many units (8 MB each)


@dataclass(frozen=True)
class Entry:
    """One line of a leaderboard: its units as (numerator, denominator) and the counts printed beside it."""

    name: str
    kind: str  # "model", "baseline" or "human"
    units: Mapping[str, tuple[float, float]]
    denominators: Mapping[str, int] = field(default_factory=dict)
    clusters: Mapping[str, str] = field(default_factory=dict)  # unit -> the case it repeats (default: itself)

    def clustered(self) -> dict[str, tuple[float, float]]:
        """The units summed per cluster: what every interval and test here resamples."""
        return units_from((self.clusters.get(unit, unit), num, den) for unit, (num, den) in self.units.items())


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
    adjustment: str = "holm",
    margin: float = 0.01,
) -> dict[str, Any]:
    """The ranked entries with intervals and rank intervals, every pairwise difference with its adjusted test,
    the groups and the saturation verdict, as a JSON-able dict."""
    clustered = [Entry(e.name, e.kind, e.clustered(), e.denominators) for e in entries]
    lines = [_line(entry, confidence, resamples, seed) for entry in clustered]
    lines.sort(key=lambda line: _rank_key(line, higher_is_better))
    by_name = {entry.name: entry for entry in clustered}
    table = case_table(clustered)
    scored = [line for line in lines if line["value"] is not None]
    tests = separability(table, higher_is_better=higher_is_better, confidence=confidence, adjustment=adjustment)
    called = {frozenset((t.first, t.second)): t for t in tests.pairs}
    pairs = []
    for i, first in enumerate(lines):
        for second in lines[i + 1 :]:
            pair = _pair(
                by_name[first["name"]], by_name[second["name"]], confidence=confidence, resamples=resamples, seed=seed
            )
            test = called.get(frozenset((first["name"], second["name"])))
            pair["p_value"] = test.p_value if test is not None else None
            pair["p_adjusted"] = test.p_adjusted if test is not None else None
            pair["separable"] = bool(test is not None and test.separable)
            pairs.append(pair)
    groups = [{"label": _label(i), "members": list(members)} for i, members in enumerate(tests.groups)]
    places = {r.model: r for r in rank_intervals(table, higher_is_better=higher_is_better, confidence=confidence,
                                                  resamples=resamples, seed=seed).models} if scored else {}  # fmt: skip
    for line in lines:
        line["groups"] = [group["label"] for group in groups if line["name"] in group["members"]]
        place = places.get(line["name"])
        line["rank_low"] = place.low if place is not None else None
        line["rank_high"] = place.high if place is not None else None
    verdict = saturation(table, margin=margin, confidence=confidence, comparisons=tests).to_dict() if scored else None
    return {
        "metric": metric,
        "higher_is_better": higher_is_better,
        "unit": unit_name,
        "confidence": confidence,
        "resamples": resamples,
        "seed": seed,
        "adjustment": adjustment,
        "method": (
            f"differences: paired percentile bootstrap over shared {unit_name}s ({resamples} resamples, seed "
            f"{seed}), repeats of one {unit_name} resampled together; separable: {tests.method}; rank intervals: "
            f"bootstrap over {unit_name}s, {100 * confidence:g}% per entry"
        ),
        "entries": lines,
        "pairs": pairs,
        "groups": groups,
        "saturation": verdict,
    }


def board_of(
    headlines: Mapping[str, Headline],
    *,
    kinds: Callable[[str], str] | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """The leaderboard of entries given by their headlines (`kinds`: an entry's kind from its name; "model")."""
    entries = [
        Entry(name, kinds(name) if kinds else "model", h.units, dict(h.counts), dict(h.clusters))
        for name, h in headlines.items()
    ]
    first = next(iter(headlines.values()), None)
    board = leaderboard(
        first.metric if first else "",
        entries,
        higher_is_better=first.higher_is_better if first else True,
        unit_name=first.unit_name if first else "case",
        resamples=resamples,
        seed=seed,
    )
    ranked = [str(line["name"]) for line in board["entries"] if line["value"] is not None]
    board["power"] = neighbour_curves(headlines, ranked)
    return board


def case_table(entries: Sequence[Entry]) -> CaseTable:
    """The entries' clustered units as the statistics' case table: per entry and case, the denominator (count)
    and the numerator (sum). Squares are set to the sums, exact for binary outcomes; only power planning reads
    them, and it builds its own table from the rows' scores."""
    models = tuple(entry.name for entry in entries)
    cases = tuple(sorted({unit for entry in entries for unit in entry.units}))
    column = {case: j for j, case in enumerate(cases)}
    counts, sums = np.zeros((len(models), len(cases))), np.zeros((len(models), len(cases)))
    for i, entry in enumerate(entries):
        for unit, (numerator, denominator) in entry.units.items():
            counts[i, column[unit]] += denominator
            sums[i, column[unit]] += min(max(numerator, 0.0), denominator)
    return CaseTable(models, cases, counts, sums, sums.copy())


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
    values: list[npt.NDArray[np.float64]] = []
    for weights in _resample_weights(a_num.size, resamples, seed):
        a_sums, a_dens = weights @ a_num, weights @ a_den
        defined = a_dens > 0
        ratio = np.divide(a_sums, a_dens, out=np.zeros_like(a_sums), where=defined)
        if b_num is not None and b_den is not None:
            b_sums, b_dens = weights @ b_num, weights @ b_den
            defined &= b_dens > 0
            ratio = ratio - np.divide(b_sums, b_dens, out=np.zeros_like(b_sums), where=b_dens > 0)
        values.append(ratio[defined])
    samples = np.concatenate(values)
    if not samples.size:
        return (float("nan"), float("nan"))
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(samples, [tail, 1.0 - tail])
    return (float(low), float(high))


def _resample_weights(n: int, resamples: int, seed: int) -> tuple[npt.NDArray[np.float64], ...]:
    """How often each of `n` units is drawn in each resample, in chunks: the same draws for every pair with `n`
    shared units, so a board of 36 entries (630 pairs over one set of cases) draws them once (`_cached_weights`)."""
    if n * resamples <= _CACHED_ELEMENTS:
        return _cached_weights(n, resamples, seed)
    return tuple(_draw_weights(n, resamples, seed))


@functools.lru_cache(maxsize=4)
def _cached_weights(n: int, resamples: int, seed: int) -> tuple[npt.NDArray[np.float64], ...]:
    return tuple(_draw_weights(n, resamples, seed))


def _draw_weights(n: int, resamples: int, seed: int) -> Iterator[npt.NDArray[np.float64]]:
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, resamples, chunk):
        rows = min(chunk, resamples - start)
        index = rng.integers(0, n, size=(rows, n)) + (np.arange(rows) * n)[:, None]
        yield np.bincount(index.ravel(), minlength=rows * n).reshape(rows, n).astype(np.float64)


def _label(index: int) -> str:
    letters = string.ascii_lowercase
    return letters[index] if index < len(letters) else f"g{index + 1}"
