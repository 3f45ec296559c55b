"""One model's metrics over all of its rows: cheap enough to run for every model on every rescore.

Denominators: rates that a trial earns (SR, HRR, MEI, score, and the labelled v1.1 score)
are averaged over **all** trials, an errored trial counting 0, so a harness that drops trials
cannot flatter a model; `n_error` says how many there were. BRS and CE exist only where a
trial met a lure or stated a confidence; they are averaged over those trials (`n_brs`, `n_ce`).
Counts (HC, BT, LT, teleports) and claim accuracy are averaged over scored trials, with their n.
Calibration is pooled over every move that carries a stated confidence (never imputed).
Intervals need resampling and live in `report`, not here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .calibration import calibration_summary

RATE_KEYS = ("sr", "hrr", "mei", "score")
DEFINED_WHERE_MET = ("brs", "ce")  # per-trial values a trial may lack (no lure met, no confidence stated)
COUNT_KEYS = ("hc", "bt", "lt", "teleports", "moves", "revisits")


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def scored(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Rows that carry scores (pass or fail); error and unscored rows carry none."""
    return [r for r in rows if isinstance(r.get("scores"), Mapping)]


def claims_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Exact-match rate and mean signed error per claimed count; pooled DEAD_END precision/recall."""
    out: dict[str, Any] = {}
    for key in ("backtrack", "hallucination", "loop"):
        claimed = [r["scores"]["claims"][key] for r in rows if r["scores"]["claims"][key]["claimed"] is not None]
        out[key] = {
            "n_claimed": len(claimed),
            "exact_rate": _mean([1.0 if c["exact"] else 0.0 for c in claimed]),
            "mean_signed_error": _mean([float(c["signed_error"]) for c in claimed]),
        }
    dead = [r["scores"]["claims"]["dead_end"] for r in rows]
    declared = sum(d["declared_cells"] for d in dead)
    reached = sum(d["reached"] for d in dead)
    hits = sum(d["hits"] for d in dead)
    out["dead_end"] = {
        "declared_cells": declared,
        "reached": reached,
        "precision": hits / declared if declared else None,
        "recall": hits / reached if reached else None,
    }
    return out


def _pair_key(condition: Mapping[str, Any]) -> tuple[Any, ...]:
    return (condition["size"], condition["seed"], condition["confidence"], condition["group"],
            condition["repeat"], condition["mode"])  # fmt: skip


def mirage_pairs(rows: Sequence[Mapping[str, Any]], key: str = "score") -> list[tuple[float, float]]:
    """(mirage on, mirage off) values of `key` for trials that differ only in the mirage switch."""
    on: dict[tuple[Any, ...], float] = {}
    off: dict[tuple[Any, ...], float] = {}
    for row in rows:
        condition = row.get("condition")
        if not isinstance(condition, Mapping):
            continue
        value = float(row["scores"][key]) if isinstance(row.get("scores"), Mapping) else 0.0
        (on if condition["mirage"] else off)[_pair_key(condition)] = value
    return [(on[k], off[k]) for k in sorted(on, key=repr) if k in off]


def lure_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Follow and resist rates per exposure, mirage on and off (same cells tracked when off)."""
    out: dict[str, Any] = {}
    for label, flag in (("mirage_on", True), ("mirage_off", False)):
        chosen = [r for r in rows if r.get("condition", {}).get("mirage") is flag]
        exposures = sum(r["scores"]["lures"]["exposures"] for r in chosen)
        follows = sum(r["scores"]["lures"]["follows"] for r in chosen)
        resists = sum(r["scores"]["lures"]["resists"] for r in chosen)
        out[label] = {
            "trials": len(chosen),
            "exposures": exposures,
            "follow_rate": follows / exposures if exposures else None,
            "resist_rate": resists / exposures if exposures else None,
        }
    return out


def ariadne_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Interactive trials by group: SR, loop events and hint response; B minus C as point estimates."""
    groups: dict[str, Any] = {}
    for group in ("A", "B", "C"):
        every = [r for r in rows if r.get("condition", {}).get("mode") == "interactive"
                 and r["condition"].get("group") == group]  # fmt: skip
        done = scored(every)
        events = [e for r in done for e in r["scores"]["interactive"]["loop_events"]]
        recovered = [e["steps_to_new_cell"] for e in events if e["steps_to_new_cell"] is not None]
        groups[group] = {
            "trials": len(every),
            "sr": sum(float(r["scores"]["sr"]) for r in done) / len(every) if every else None,
            "loop_events": len(events),
            "recovery_rate": len(recovered) / len(events) if events else None,
            "mean_steps_to_new_cell": _mean([float(x) for x in recovered]),
        }
    b, c = groups["B"], groups["C"]

    def diff(key: str) -> float | None:
        return b[key] - c[key] if b[key] is not None and c[key] is not None else None

    return {"groups": groups, "b_minus_c": {k: diff(k) for k in ("sr", "recovery_rate", "mean_steps_to_new_cell")}}


def aggregate_rows(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The entry module's `aggregate`: headline = mean score over all trials (errors count 0)."""
    done = scored(rows)
    n = len(rows)
    verdicts = {v: sum(1 for r in rows if r.get("verdict") == v) for v in ("pass", "fail", "error", "unscored")}
    metrics: dict[str, Any] = {"n_trials": n, "n_scored": len(done), "n_error": verdicts["error"],
                               "verdicts": verdicts}  # fmt: skip
    for key in RATE_KEYS:
        metrics[key] = sum(float(r["scores"][key]) for r in done) / n if n else None
    for key in COUNT_KEYS:
        metrics[key] = _mean([float(r["scores"][key]) for r in done])
    for key in DEFINED_WHERE_MET:
        present = [float(r["scores"][key]) for r in done if r["scores"].get(key) is not None]
        metrics[key] = _mean(present)
        metrics[f"n_{key}"] = len(present)
    metrics["format_failures"] = sum(1 for r in done if r["scores"]["format"]["failure"])
    metrics["calibration"] = calibration_summary(done)
    metrics["claims"] = claims_summary(done)
    metrics["lures"] = lure_summary(done)
    pairs = mirage_pairs(rows)
    metrics["mirage_effect"] = {
        "n_pairs": len(pairs),
        "score_on_minus_off": _mean([a - b for a, b in pairs]),
    }
    metrics["ariadne"] = ariadne_summary(rows)
    single = [r for r in rows if r.get("condition", {}).get("mode", "single") == "single"]
    v11 = [r["scores"]["v11"] for r in scored(single) if isinstance(r["scores"].get("v11"), Mapping)]
    metrics["v11"] = {
        "label": "HalluMaze v1.1 scoring as coded, for comparison only",
        "n": len(single),
        "score": sum(float(v["score"]) for v in v11) / len(single) if single else None,
        "mei": sum(float(v["mei"]) for v in v11) / len(single) if single else None,
    }
    headline = metrics["score"] if metrics["score"] is not None else 0.0
    return {"headline": headline, "headline_name": "hallumaze_score", "metrics": metrics}
