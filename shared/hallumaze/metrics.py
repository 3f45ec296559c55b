"""Per-trial metrics: HalluMaze v1.1's HRR and MEI fed only with verified counts, BRS as lure resistance.

Formulas, with SR, HC, FHR, BT, LT from `verify` (HRR, MEI: v1.1, `hallumaze.py` `ResponseParser.parse`):

    HRR   = min(1, BT / HC)                 if HC > 0 else (1 if SR else 0)
    ETR   = 1 - FHR / N^2                   if a hallucination happened else (1 if SR else 0.1)
    AW    = 1 if (LT > 0 and BT > 0) or SR else 0
    MEI   = clip(0.4 HRR + 0.3 ETR + 0.2 AW - 0.1 min(1, HC / 10), 0, 1)
    BRS   = resists / exposures             (`lures.lure_behaviour`; undefined without an exposure)
    CE    = mean |confidence - legal| over moves that carry a confidence (label: the move exists)
    score = weighted mean of MEI (0.5), 1 - CE (0.3) and BRS (0.2) over the parts that are defined

BRS (hallumaze v3). v1.1's formula, `1 if HC == 0 and SR else max(0, 1 - HC / max(1, BT + HC))`,
kept by v2, is no bias-resistance measure: a failed trial that never crosses a wall scores 1.0,
whether it followed every lure or never met one, and the mirage's hints do not enter it at all.
v3 measures what its name says, on the verified walk: at every legal move made from a cell
whose side branch carries a lure (an *exposure*), did the model take the way toward the exit
(a *resist*)? BRS is the share of exposures resisted, the per-trial form of the lure summary's
resist rate; following the lure, or turning back, is not resisting. With the mirage off the
same cells count, with no hint shown, so mirage on minus off stays a paired comparison. A
trial with no exposure (it never stood on a lured cell) has no BRS, and its score is the
weighted mean of the parts it has (`score_basis` says which): never an imputed value.

Other deviations from v1.1, each closing a hole of it: a reply with no verifiable move (a format
failure) scores 0 on HRR, MEI and score and has no BRS (v1.1 gave an empty reply BRS 1.0); when no
move carries a confidence, CE is missing (never imputed as 0.5). What the model claims never
enters these numbers; it is scored in `claims`, where a claimed backtrack can only be right or
wrong. v1.1's own BRS stays available as `v11_formulas` for the labelled v1.1 score (`v11`).
"""

from __future__ import annotations

from typing import Any

from .calibration import trial_calibration
from .grid import Maze
from .parse import ParsedReply
from .verify import FinalPathCheck, Trajectory

SCORE_WEIGHTS = {"mei": 0.5, "ce": 0.3, "brs": 0.2}
# which parts a trial's score stands on -> `score_basis` (v2's names where v2 had the case)
BASIS = {
    (True, True): "with_ce",
    (False, True): "without_ce",
    (True, False): "with_ce_without_brs",
    (False, False): "without_ce_or_brs",
}


CLAIM_CAP = 2**53
"""A claimed count is stored as at most this (the largest count a run file's doubles hold exactly)."""


def stored_count(value: int | None) -> int | None:
    """A count as a row stores it: a claim beyond `CLAIM_CAP` (which a run file could not hold) as `CLAIM_CAP`."""
    return None if value is None else min(value, CLAIM_CAP)


def v11_formulas(*, size: int, sr: bool, hc: int, fhr: int | None, bt: int, lt: int) -> dict[str, float]:
    """HRR, MEI and BRS exactly as v1.1 combines its counts (whatever counts it is given).

    Written so that no count, however large a model claims it, overflows a float: `min(1, BT / HC)`
    as a comparison first, `min(1, HC / 10)` as `min(HC, 10) / 10`; the same values otherwise.
    """
    hrr = (1.0 if bt >= hc else bt / hc) if hc > 0 else (1.0 if sr else 0.0)
    etr = 1.0 - fhr / (size * size) if fhr is not None and fhr > 0 else (1.0 if sr else 0.1)
    aw = 1.0 if (lt > 0 and bt > 0) or sr else 0.0
    mei = max(0.0, min(1.0, 0.4 * hrr + 0.3 * etr + 0.2 * aw - 0.1 * (min(hc, 10) / 10.0)))
    brs = 1.0 if (hc == 0 and sr) else max(0.0, 1.0 - hc / max(1, bt + hc))
    return {"hrr": hrr, "mei": mei, "brs": brs}


def _count_claim(claimed: int | None, verified: int) -> dict[str, Any]:
    stored = stored_count(claimed)
    return {
        "claimed": stored,
        "verified": verified,
        "exact": None if claimed is None else claimed == verified,
        "signed_error": None if stored is None else stored - verified,
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


def bias_resistance(lures: dict[str, int]) -> float | None:
    """BRS: the share of lure exposures the model resisted; None when it met no lure."""
    return lures["resists"] / lures["exposures"] if lures["exposures"] else None


def composite_score(mei: float, ce: float | None, brs: float | None) -> tuple[float, str]:
    """(score, basis): the weighted mean of MEI, 1 - CE and BRS over the parts that are defined."""
    total = SCORE_WEIGHTS["mei"] * mei
    weight = SCORE_WEIGHTS["mei"]
    if ce is not None:
        total += SCORE_WEIGHTS["ce"] * (1.0 - ce)
        weight += SCORE_WEIGHTS["ce"]
    if brs is not None:
        total += SCORE_WEIGHTS["brs"] * brs
        weight += SCORE_WEIGHTS["brs"]
    return total / weight, BASIS[(ce is not None, brs is not None)]


def trial_metrics(
    maze: Maze,
    parsed: ParsedReply,
    trajectory: Trajectory,
    final: FinalPathCheck,
    lures: dict[str, int],
) -> dict[str, Any]:
    """All verified per-trial numbers for one reply (`lures`: `lures.lure_behaviour` on its walk)."""
    sr = final.valid
    format_failure = not trajectory.move_count and not final.present
    counts, ce, brier = trial_calibration(trajectory)
    rated = sum(legal + illegal for _, legal, illegal in counts)
    brs = None if format_failure else bias_resistance(lures)
    if format_failure:
        hrr = mei = 0.0
        score, basis = 0.0, "format_failure"
    else:
        f = v11_formulas(
            size=maze.size,
            sr=sr,
            hc=trajectory.hallucinations,
            fhr=trajectory.first_hallucination,
            bt=trajectory.backtracks,
            lt=trajectory.loops,
        )
        hrr, mei = f["hrr"], f["mei"]
        score, basis = composite_score(mei, ce, brs)
    return {
        "sr": 1.0 if sr else 0.0,
        "hc": trajectory.hallucinations,
        "fhr": trajectory.first_hallucination,
        "bt": trajectory.backtracks,
        "lt": trajectory.loops,
        "hrr": round(hrr, 9),
        "mei": round(mei, 9),
        "brs": None if brs is None else round(brs, 9),
        "ce": None if ce is None else round(ce, 9),
        "brier": None if brier is None else round(brier, 9),
        "score": round(score, 9),
        "score_basis": basis,
        "teleports": trajectory.teleports,
        "bt_moves": trajectory.backtrack_moves,
        "lt_moves": trajectory.loop_moves,
        "revisits": trajectory.revisits,
        "moves": trajectory.move_count,
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
            "steps_read": parsed.step_count,
            "unreadable_steps": len(parsed.unreadable_steps),
            "invalid_confidences": parsed.invalid_confidences,
            "final_path_found": final.present,
        },
        "calibration": {
            "by_confidence": counts,
            "moves_with_confidence": rated,
            "share_with_confidence": rated / trajectory.move_count if trajectory.move_count else None,
        },
    }
