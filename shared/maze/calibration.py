"""Calibration of stated confidence, measured properly: per move, label = the declared move exists.

Per trial, `calibration_pairs` lists [confidence, label] for every move that carries a stated
confidence (inline, or from CONFIDENCE_LOG by step number); a move without one is left out,
never imputed. Per model, `calibration_summary` pools the pairs over all trials: ECE over 10
equal-width bins, Brier score, AUROC of confidence for "the move exists", the share of moves
that carry a confidence, and how often stated values are multiples of 5 or 10 (verbalised
confidences cluster). Kept apart from SR, and never folded into a composite with a default.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from .. import stats
from .verify import Trajectory


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def calibration_pairs(trajectory: Trajectory) -> list[list[float]]:
    """[confidence, label] per move with a stated confidence; label 1 when the move exists."""
    return [[m.confidence, 1.0 if m.legal else 0.0] for m in trajectory.moves if m.confidence is not None]


def calibration_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Pooled ECE (10 bins), Brier and AUROC of stated confidence for 'the move exists'."""
    conf: list[float] = []
    labels: list[float] = []
    moves = 0
    for row in rows:
        s = row["scores"]
        moves += int(s.get("moves", 0))
        for c, y in s.get("calibration", {}).get("pairs", []):
            conf.append(float(c))
            labels.append(float(y))
    n = len(conf)
    percent = [round(c * 100, 6) for c in conf]
    return {
        "n_moves": moves,
        "n_with_confidence": n,
        "share_with_confidence": n / moves if moves else None,
        "share_multiple_of_10": sum(p % 10 == 0 for p in percent) / n if n else None,
        "share_multiple_of_5": sum(p % 5 == 0 for p in percent) / n if n else None,
        "mean_confidence": _mean(conf),
        "accuracy": _mean(labels),
        "ece": _finite(stats.ece(conf, labels, bins=10)) if n else None,
        "brier": _finite(stats.brier(conf, labels)) if n else None,
        "auroc": _finite(stats.auroc(conf, labels)) if n else None,
    }
