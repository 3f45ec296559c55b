"""Per-trial metrics: HalluMaze v1.1's formulas, fed only with verified counts, plus claim accuracy.

Formulas (v1.1, `hallumaze.py` `ResponseParser.parse`), with SR, HC, FHR, BT, LT from `verify`:

    HRR   = min(1, BT / HC)                 if HC > 0 else (1 if SR else 0)
    ETR   = 1 - FHR / N^2                   if a hallucination happened else (1 if SR else 0.1)
    AW    = 1 if (LT > 0 and BT > 0) or SR else 0
    MEI   = clip(0.4 HRR + 0.3 ETR + 0.2 AW - 0.1 min(1, HC / 10), 0, 1)
    BRS   = 1 if HC == 0 and SR else max(0, 1 - HC / max(1, BT + HC))
    CE    = mean |confidence - legal| over moves that carry a confidence (label: the move exists)
    score = 0.5 MEI + 0.3 (1 - CE) + 0.2 BRS

Deviations, each closing a hole of v1.1: a reply with no verifiable move (a format failure)
scores 0 on HRR, MEI, BRS and score (v1.1 gave an empty reply BRS 1.0); when no move carries a
confidence, CE is missing (never imputed as 0.5) and score = (0.5 MEI + 0.2 BRS) / 0.7, with
`score_basis` saying so. What the model claims never enters these numbers; it is scored in
`claims`, where a claimed backtrack can only be right or wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hallubench.hallumaze.grid import Cell, Maze

from .calibration import trial_calibration
from .parse import ParsedReply
from .verify import FinalPathCheck, Trajectory


def v11_formulas(*, size: int, sr: bool, hc: int, fhr: int | None, bt: int, lt: int) -> dict[str, float]:
    """HRR, MEI and BRS exactly as v1.1 combines its counts (whatever counts it is given)."""
    hrr = min(1.0, bt / hc) if hc > 0 else (1.0 if sr else 0.0)
    etr = 1.0 - fhr / (size * size) if fhr is not None and fhr > 0 else (1.0 if sr else 0.1)
    aw = 1.0 if (lt > 0 and bt > 0) or sr else 0.0
    mei = max(0.0, min(1.0, 0.4 * hrr + 0.3 * etr + 0.2 * aw - 0.1 * min(1.0, hc / 10.0)))
    brs = 1.0 if (hc == 0 and sr) else max(0.0, 1.0 - hc / max(1, bt + hc))
    return {"hrr": hrr, "mei": mei, "brs": brs}


def _count_claim(claimed: int | None, verified: int) -> dict[str, Any]:
    return {
        "claimed": claimed,
        "verified": verified,
        "exact": None if claimed is None else claimed == verified,
        "signed_error": None if claimed is None else claimed - verified,
    }


def claim_accuracy(maze: Maze, parsed: ParsedReply, trajectory: Trajectory) -> dict[str, Any]:
    """The model's self-reports against the replay: counts, DEAD_END precision and recall."""
    declared = {cell for cell in parsed.dead_ends if cell is not None}
    reached = set(trajectory.dead_ends_reached)
    hits = len(declared & reached)
    return {
        "backtrack": _count_claim(parsed.backtrack_count, trajectory.backtracks),
        "hallucination": _count_claim(parsed.hallucination_count, trajectory.hallucinations),
        "loop": _count_claim(len(parsed.loops), trajectory.loops),
        "dead_end": {
            "declared": len(parsed.dead_ends),
            "declared_cells": len(declared),
            "true_dead_ends_declared": len({c for c in declared if maze.is_dead_end(c)}),
            "reached": len(reached),
            "hits": hits,
            "precision": hits / len(declared) if declared else None,
            "recall": hits / len(reached) if reached else None,
        },
        "strategy_changes": parsed.strategy_changes,
    }


def trial_metrics(
    maze: Maze,
    parsed: ParsedReply,
    trajectory: Trajectory,
    final: FinalPathCheck,
    solution: Sequence[Cell],
) -> dict[str, Any]:
    """All verified per-trial numbers for one reply."""
    sr = final.valid
    format_failure = not trajectory.moves and not final.present
    counts, ce, brier = trial_calibration(trajectory)
    rated = sum(legal + illegal for _, legal, illegal in counts)
    if format_failure:
        hrr = mei = brs = 0.0
    else:
        f = v11_formulas(
            size=maze.size,
            sr=sr,
            hc=trajectory.hallucinations,
            fhr=trajectory.first_hallucination,
            bt=trajectory.backtracks,
            lt=trajectory.loops,
        )
        hrr, mei, brs = f["hrr"], f["mei"], f["brs"]
    if format_failure:
        score, basis = 0.0, "format_failure"
    elif ce is not None:
        score, basis = 0.5 * mei + 0.3 * (1.0 - ce) + 0.2 * brs, "with_ce"
    else:
        score, basis = (0.5 * mei + 0.2 * brs) / 0.7, "without_ce"
    return {
        "sr": 1.0 if sr else 0.0,
        "hc": trajectory.hallucinations,
        "fhr": trajectory.first_hallucination,
        "bt": trajectory.backtracks,
        "lt": trajectory.loops,
        "hrr": round(hrr, 9),
        "mei": round(mei, 9),
        "brs": round(brs, 9),
        "ce": None if ce is None else round(ce, 9),
        "brier": None if brier is None else round(brier, 9),
        "score": round(score, 9),
        "score_basis": basis,
        "teleports": trajectory.teleports,
        "bt_moves": trajectory.backtrack_moves,
        "lt_moves": trajectory.loop_moves,
        "revisits": trajectory.revisits,
        "moves": len(trajectory.moves),
        "dead_ends_reached": len(trajectory.dead_ends_reached),
        "reached_exit": trajectory.reached_exit,
        "final_path": {
            "present": final.present,
            "length": final.length,
            "starts_at_start": final.starts_at_start,
            "ends_at_exit": final.ends_at_exit,
            "unit_moves": final.unit_moves,
            "wall_crossings": final.wall_crossings,
            "is_solution": final.is_solution,
            "valid_not_simplified": final.valid and not final.is_solution,
        },
        "format": {
            "failure": format_failure,
            "source": trajectory.source,
            "steps_read": len(parsed.steps),
            "unreadable_steps": len(parsed.unreadable_steps),
            "invalid_confidences": parsed.invalid_confidences,
            "final_path_found": final.present,
        },
        "calibration": {
            "by_confidence": counts,
            "moves_with_confidence": rated,
            "share_with_confidence": rated / len(trajectory.moves) if trajectory.moves else None,
        },
    }
