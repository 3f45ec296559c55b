"""Report-level hallumaze results for `hallubench rescore` and `hallubench maze baselines`.

API (every function takes plain row dicts as produced by `task_v2.play` through `play_row`):

* `model_table(rows_by_model)` -> dict with `columns` and `rows` ranked by the verified
  HalluMaze score, each with 95% bootstrap intervals for SR, MEI and score (errored trials count
  0 and stay in n); render it with `table_text`, `table_markdown` or `table_csv` (JSON: the dict);
* `with_baselines(rows_by_model)` adds the simulated random walk, DFS agent and BFS oracle on
  the same cases; `human_baseline_rows(path)` reads a human-baseline JSON file;
* `mirage_comparison(rows)` and `ariadne_comparison(rows)`: paired differences on the same
  seeds (mirage on minus off; group B minus C) with paired bootstrap intervals;
* `compare_models(rows_by_model)`: paired differences between models over shared cases;
* `best_and_worst(rows)`, `trial_svg(row)`, `write_pictures(rows_by_model, folder)`.

Resampling lives here, never in `aggregate`, so rescoring stays cheap.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import stats
from ..rows import play_row
from . import task_v2
from .aggregate import aggregate_rows, mirage_pairs, scored
from .baselines import baseline_rows
from .compact import read_cells, read_ints
from .draw import draw_svg
from .trial import load_trial

Row = Mapping[str, Any]
COLUMNS = (
    "rank", "model", "n_trials", "n_error", "format_failures", "score", "score_low", "score_high",
    "sr", "sr_low", "sr_high", "mei", "mei_low", "mei_high", "ce", "brs", "hc", "teleports", "ece",
    "brier", "auroc", "share_with_confidence", "bt_claim_exact", "lure_follow_on", "lure_follow_off",
    "v11_score",
)  # fmt: skip


def _values(rows: Sequence[Row], key: str) -> list[float]:
    """Per-trial values over all trials; an errored trial counts 0."""
    return [float(r["scores"][key]) if isinstance(r.get("scores"), Mapping) else 0.0 for r in rows]


def _interval(values: Sequence[float], resamples: int, seed: int) -> tuple[float | None, float | None]:
    if len(values) < 2:
        return None, None
    _, low, high = stats.bootstrap_mean_ci(list(values), resamples=resamples, seed=seed)
    return low, high


def model_row(model: str, rows: Sequence[Row], *, resamples: int = 2000, seed: int = 0) -> dict[str, Any]:
    """One line of the table: aggregate metrics plus bootstrap intervals."""
    m = aggregate_rows(rows)["metrics"]
    line: dict[str, Any] = {
        "model": model,
        "n_trials": m["n_trials"],
        "n_error": m["n_error"],
        "format_failures": m["format_failures"],
    }
    for key in ("score", "sr", "mei"):
        line[key] = m[key]
        line[f"{key}_low"], line[f"{key}_high"] = _interval(_values(rows, key), resamples, seed)
    calibration = m["calibration"]
    line.update(
        {
            "ce": m["ce"],
            "brs": m["brs"],
            "hc": m["hc"],
            "teleports": m["teleports"],
            "ece": calibration["ece"],
            "brier": calibration["brier"],
            "auroc": calibration["auroc"],
            "share_with_confidence": calibration["share_with_confidence"],
            "bt_claim_exact": m["claims"]["backtrack"]["exact_rate"],
            "lure_follow_on": m["lures"]["mirage_on"]["follow_rate"],
            "lure_follow_off": m["lures"]["mirage_off"]["follow_rate"],
            "v11_score": m["v11"]["score"],
        }
    )
    return line


def model_table(rows_by_model: Mapping[str, Sequence[Row]], *, resamples: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Per-model table ranked by the verified HalluMaze score (ties: higher SR, then name)."""
    lines = [model_row(name, rows, resamples=resamples, seed=seed) for name, rows in rows_by_model.items()]
    lines.sort(key=lambda x: (-(x["score"] or 0.0), -(x["sr"] or 0.0), x["model"]))
    for rank, line in enumerate(lines, start=1):
        line["rank"] = rank
    return {
        "columns": list(COLUMNS),
        "rows": [{c: line.get(c) for c in COLUMNS} for line in lines],
        "note": "verified metrics; errored trials count 0 and stay in n; v11_score is HalluMaze v1.1 "
        "scoring as coded (self-reports merged with max), for comparison only",
    }


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


_SHOWN = ("rank", "model", "n_trials", "n_error", "score", "sr", "mei", "ce", "brs", "hc", "ece", "v11_score")


def table_text(table: Mapping[str, Any]) -> str:
    """A fixed-width terminal table (intervals in brackets)."""
    head = ["#", "model", "n", "err", "score [95% CI]", "SR [95% CI]", "MEI", "CE", "BRS", "HC", "ECE", "v1.1"]
    body = []
    for r in table["rows"]:
        body.append(
            [
                str(r["rank"]),
                r["model"],
                str(r["n_trials"]),
                str(r["n_error"]),
                f"{_fmt(r['score'])} [{_fmt(r['score_low'])}, {_fmt(r['score_high'])}]",
                f"{_fmt(r['sr'])} [{_fmt(r['sr_low'])}, {_fmt(r['sr_high'])}]",
                *(_fmt(r[k]) for k in ("mei", "ce", "brs", "hc", "ece", "v11_score")),
            ]
        )
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in [head, *body]]
    return "\n".join([*lines, "", str(table.get("note", ""))])


def table_markdown(table: Mapping[str, Any]) -> str:
    """The table as GitHub Markdown."""
    lines = ["| " + " | ".join(_SHOWN) + " |", "|" + "---|" * len(_SHOWN)]
    lines += ["| " + " | ".join(_fmt(r[c]) for c in _SHOWN) + " |" for r in table["rows"]]
    return "\n".join(lines) + "\n"


def table_csv(table: Mapping[str, Any]) -> str:
    """Every column, one row per model."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(table["columns"]), lineterminator="\n")
    writer.writeheader()
    for r in table["rows"]:
        writer.writerow({k: "" if v is None else v for k, v in r.items()})
    return buffer.getvalue()


def _cases_of(rows_by_model: Mapping[str, Sequence[Row]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for rows in rows_by_model.values():
        for row in rows:
            condition = row.get("condition")
            case_id = row.get("case_id")
            if isinstance(condition, Mapping) and isinstance(case_id, str) and case_id not in seen:
                seen[case_id] = {"id": case_id, **condition}
    return [seen[k] for k in sorted(seen)]


def with_baselines(rows_by_model: Mapping[str, Sequence[Row]]) -> dict[str, Sequence[Row]]:
    """The models' rows plus simulated baselines on exactly the cases those rows cover."""
    merged: dict[str, Sequence[Row]] = dict(rows_by_model)
    merged.update(baseline_rows(_cases_of(rows_by_model)))
    return merged


class _OneReply:
    def __init__(self, reply: str) -> None:
        self.reply = reply

    def system(self, text: str) -> None:
        """Not used by single-shot trials."""

    def ask(self, text: str) -> str:
        return self.reply


def human_baseline_rows(path: Path) -> tuple[str, list[dict[str, Any]]]:
    """Score a human-baseline file: `{"name": ..., "trials": [{"size", "seed", "mirage", "reply"}, ...]}`.

    Each trial is a single-shot case answered in the same format; it is scored by `task_v2.play`.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("trials"), list):
        raise ValueError(f"{path}: expected an object with a 'trials' list")
    name = str(data.get("name") or path.stem)
    rows = []
    for index, trial in enumerate(data["trials"]):
        if not isinstance(trial, dict) or not isinstance(trial.get("reply"), str):
            raise ValueError(f"{path}: trial {index} needs a 'reply' string")
        case = {k: v for k, v in trial.items() if k != "reply"}
        case.setdefault("mode", "single")
        rows.append(play_row(task_v2.play, case, _OneReply(trial["reply"]), protocol_id="hallumaze/v2",
                             payload_sha256="human"))  # fmt: skip
    return f"human:{name}", rows


def _paired(pairs: Sequence[tuple[float, float]], resamples: int, seed: int) -> dict[str, Any]:
    if len(pairs) < 2:
        return {"n": len(pairs), "mean_diff": None, "low": None, "high": None, "excludes_zero": False}
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    return dict(stats.paired_bootstrap_diff(a, b, resamples=resamples, seed=seed))


def mirage_comparison(rows: Sequence[Row], *, resamples: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Mirage on minus off, paired on (size, seed, confidence, group, repeat, mode), for score and SR."""
    return {key: _paired(mirage_pairs(rows, key), resamples, seed) for key in ("score", "sr", "mei")}


def ariadne_comparison(rows: Sequence[Row], *, resamples: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Interactive group B minus C (hint minus placebo), paired on the same seeds, for SR and score."""
    by_group: dict[str, dict[tuple[Any, ...], Row]] = {"B": {}, "C": {}}
    for row in rows:
        c = row.get("condition")
        if isinstance(c, Mapping) and c.get("mode") == "interactive" and c.get("group") in by_group:
            by_group[c["group"]][(c["size"], c["seed"], c["mirage"], c["confidence"], c["repeat"])] = row
    keys = sorted(set(by_group["B"]) & set(by_group["C"]))
    out = {}
    for key in ("sr", "score"):
        pairs = [(_values([by_group["B"][k]], key)[0], _values([by_group["C"][k]], key)[0]) for k in keys]
        out[key] = _paired(pairs, resamples, seed)
    out["summary"] = aggregate_rows(rows)["metrics"]["ariadne"]
    return out


def compare_models(
    rows_by_model: Mapping[str, Sequence[Row]], key: str = "score", *, resamples: int = 2000, seed: int = 0
) -> list[dict[str, Any]]:
    """Paired differences between every two models over the cases both ran."""
    values = {m: {r.get("case_id"): _values([r], key)[0] for r in rows} for m, rows in rows_by_model.items()}
    names = sorted(values)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            shared = sorted(set(values[a]) & set(values[b]), key=str)
            result = _paired([(values[a][k], values[b][k]) for k in shared], resamples, seed)
            out.append({"a": a, "b": b, "metric": key, **result})
    return out


def best_and_worst(rows: Sequence[Row]) -> tuple[Row | None, Row | None]:
    """The scored trials with the highest and lowest verified score (ties broken by case id)."""
    done = sorted(scored(rows), key=lambda r: (float(r["scores"]["score"]), str(r.get("case_id"))))
    return (done[-1], done[0]) if done else (None, None)


def trial_svg(row: Row) -> str:
    """A picture of one trial: its maze, solution, lures and the model's path with wall crossings."""
    trial = load_trial({"id": str(row.get("case_id") or "trial"), **row["condition"]})
    trajectory = row["scores"]["trajectory"]
    return draw_svg(
        trial.maze,
        trial.solution,
        [(lure.cell, lure.direction) for lure in trial.shown_lures],
        read_cells(trajectory["cells"]),
        read_ints(trajectory["hallucination_moves"]),
        title=f"{row.get('case_id')}: score {row['scores']['score']:.3f}",
    )


def write_pictures(rows_by_model: Mapping[str, Sequence[Row]], folder: Path) -> dict[str, dict[str, str]]:
    """Write `<model>-best.svg` and `<model>-worst.svg` per model; returns the paths for report links."""
    folder.mkdir(parents=True, exist_ok=True)
    links: dict[str, dict[str, str]] = {}
    for model, rows in rows_by_model.items():
        best, worst = best_and_worst(rows)
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in model)
        links[model] = {}
        for label, row in (("best", best), ("worst", worst)):
            if row is None:
                continue
            path = folder / f"{safe}-{label}.svg"
            path.write_text(trial_svg(row), encoding="utf-8")
            links[model][label] = str(path)
    return links
