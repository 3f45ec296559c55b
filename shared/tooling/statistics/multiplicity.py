"""Family-wise error control over many comparisons, and the letters that summarise what is separable.

Holm's step-down procedure by default: it controls the chance of calling any truly equal pair separable at
alpha, whatever the number of pairs and however the tests depend on each other, and it rejects everything
Bonferroni does and more. Hand-written because scipy offers only false-discovery-rate control
(`scipy.stats.false_discovery_control`), which bounds the share of false calls rather than the chance of any,
and a group letter has to mean the same at 3 models and at 36.

The letters are a compact letter display: the groups are the largest sets of models in which no two are
separable (maximal cliques of the "not separable" graph, found by Piepho's insert-and-absorb). So two models
share a letter exactly when they are not separable, and share none exactly when they are, at any number of
models; unlike runs of consecutive ranks, this stays true when a pair of neighbours is separable while a
wider pair is not.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .outcomes import Array

ADJUSTMENTS = ("holm", "bonferroni", "none")
DESCRIPTIONS = {
    "holm": "Holm's step-down adjustment (family-wise error)",
    "bonferroni": "Bonferroni adjustment (family-wise error)",
    "none": "no adjustment for the number of comparisons",
}
MAX_GROUPS = 10_000  # a guard: real separability patterns have a handful of groups


def check_adjustment(method: str) -> None:
    """Refuse an unknown adjustment name."""
    if method not in ADJUSTMENTS:
        raise ValueError(f"adjustment must be one of {ADJUSTMENTS}, got {method!r}")


def adjust(p_values: npt.ArrayLike, method: str = "holm") -> Array:
    """Adjusted p-values along the last axis (leading axes are separate families); nan stays nan.

    A nan p-value (a comparison without an interval) is not a test: it takes no part in the family.
    """
    check_adjustment(method)
    p = np.asarray(p_values, dtype=np.float64)
    if method == "none" or p.size == 0:
        return p.copy()
    tested = ~np.isnan(p)
    m = tested.sum(axis=-1, keepdims=True).astype(np.float64)
    if method == "bonferroni":
        return np.where(tested, np.minimum(1.0, p * m), np.nan)
    order = np.argsort(np.where(tested, p, np.inf), axis=-1, kind="stable")
    ordered = np.take_along_axis(p, order, axis=-1)
    steps = m - np.arange(p.shape[-1], dtype=np.float64)
    scaled = np.where(np.isnan(ordered), 0.0, np.minimum(1.0, ordered * steps))
    monotone = np.maximum.accumulate(scaled, axis=-1)
    out = np.empty_like(p)
    np.put_along_axis(out, order, monotone, axis=-1)
    return np.where(tested, out, np.nan)


def groups(ranked: Sequence[str], separable: set[frozenset[str]]) -> list[list[str]]:
    """The maximal sets of `ranked` models with no separable pair inside, ordered by their best rank.

    Insert and absorb: start from one group of everyone; for each separable pair split every group holding
    both into a copy without one and a copy without the other; drop groups inside others.
    """
    position = {name: k for k, name in enumerate(ranked)}
    found: list[frozenset[str]] = [frozenset(ranked)] if ranked else []
    for pair in sorted(separable, key=lambda p: sorted(position.get(x, -1) for x in p)):
        a, b = sorted(pair, key=lambda x: position.get(x, -1))
        if a not in position or b not in position:
            continue
        split: list[frozenset[str]] = []
        for group in found:
            if a in group and b in group:
                split += [group - {a}, group - {b}]
            else:
                split.append(group)
        found = _maximal(split)
        if len(found) > MAX_GROUPS:
            raise ValueError(f"more than {MAX_GROUPS} groups: the separable pairs follow no ranking")
    ordered = sorted(found, key=lambda g: sorted(position[x] for x in g))
    return [sorted(g, key=lambda x: position[x]) for g in ordered]


def _maximal(sets: list[frozenset[str]]) -> list[frozenset[str]]:
    unique = sorted(set(sets), key=len, reverse=True)
    kept: list[frozenset[str]] = []
    for candidate in unique:
        if candidate and not any(candidate <= other for other in kept):
            kept.append(candidate)
    return kept


def label(index: int) -> str:
    """a..z, then A..Z, then g53, g54, ..."""
    letters = string.ascii_lowercase + string.ascii_uppercase
    return letters[index] if index < len(letters) else f"g{index + 1}"
