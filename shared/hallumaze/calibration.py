"""Calibration of stated confidence, measured properly: per move, label = the declared move exists.

Per trial, `trial_calibration` counts, per stated confidence, the moves that exist and those
that do not, over every move that carries a confidence (inline, or from CONFIDENCE_LOG by step
number); a move without one is left out, never imputed. Rows keep these counts.
Per model, `calibration_summary` pools the counts over all trials: ECE over 10
equal-width bins, Brier score, AUROC of confidence for "the move exists", the share of moves
that carry a confidence, and how often stated values are multiples of 5 or 10 (verbalised
confidences cluster). Kept apart from SR, and never folded into a composite with a default.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, repeat
from operator import is_not
from typing import Any, cast

import numpy as np

from .. import stats
from .compact import confidence_counts
from .verify import Trajectory


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def trial_calibration(trajectory: Trajectory) -> tuple[list[list[float]], float | None, float | None]:
    """(counts per stated confidence as [confidence, legal, illegal], CE, Brier) of one trial."""
    stated = trajectory.confidences
    if False not in trajectory.legal:  # every move exists: what `confidence_counts` gives, without the pairs
        tally = Counter(cast("Iterable[float]", compress(stated, map(is_not, stated, repeat(None)))))
        counts: list[list[float]] = [[c, tally[c], 0] for c in sorted(tally)]
    else:
        pairs = cast("Iterable[tuple[float, bool]]", zip(stated, trajectory.legal, strict=True))  # Nones dropped
        counts = confidence_counts(compress(pairs, map(is_not, stated, repeat(None))))
    n = sum(legal + illegal for _, legal, illegal in counts)
    if not n:
        return counts, None, None
    ce = sum(abs(1.0 - c) * legal + c * illegal for c, legal, illegal in counts) / n
    brier = sum((1.0 - c) ** 2 * legal + c * c * illegal for c, legal, illegal in counts) / n
    return counts, ce, brier


def calibration_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Pooled ECE (10 bins), Brier and AUROC of stated confidence for 'the move exists'."""
    counts: dict[float, list[int]] = {}
    moves = 0
    for row in rows:
        s = row["scores"]
        moves += int(s.get("moves", 0))
        for confidence, legal, illegal in s.get("calibration", {}).get("by_confidence", []):
            slot = counts.setdefault(float(confidence), [0, 0])
            slot[0] += int(legal)
            slot[1] += int(illegal)
    values = sorted(counts)
    weights = [counts[v][0] + counts[v][1] for v in values]
    n = sum(weights)
    legal_moves = sum(counts[v][0] for v in values)
    percent = [round(v * 100, 6) for v in values]
    conf = np.repeat(np.array([v for v in values for _ in (1, 0)], dtype=np.float64),
                     [counts[v][i] for v in values for i in (0, 1)])  # fmt: skip
    labels = np.repeat(np.array([1.0, 0.0] * len(values)), [counts[v][i] for v in values for i in (0, 1)])
    return {
        "n_moves": moves,
        "n_with_confidence": n,
        "share_with_confidence": n / moves if moves else None,
        "share_multiple_of_10": sum(w for p, w in zip(percent, weights, strict=True) if p % 10 == 0) / n if n else None,
        "share_multiple_of_5": sum(w for p, w in zip(percent, weights, strict=True) if p % 5 == 0) / n if n else None,
        "mean_confidence": sum(v * w for v, w in zip(values, weights, strict=True)) / n if n else None,
        "accuracy": legal_moves / n if n else None,
        "ece": _finite(stats.ece(conf, labels, bins=10)) if n else None,
        "brier": _finite(stats.brier(conf, labels)) if n else None,
        "auroc": _finite(stats.auroc(conf, labels)) if n else None,
    }
