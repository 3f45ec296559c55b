"""Report-level hallumaze results for `hallubench rescore` and `hallubench maze baselines`.

API (every function takes plain row dicts as produced by a version's `play` through `play_row`):

* `model_table(rows_by_model)` -> dict with `columns` and `rows` ranked by the verified
  HalluMaze score, each with 95% bootstrap intervals for SR, MEI, BRS and score (errored trials count
  0 and stay in n); render it with `table_text`, `table_markdown` or `table_csv` (JSON: the dict).
  `display_table` gives the columns (`TABLE_COLUMNS`) and each row's cells that the text, the
  Markdown and the HTML page all show, so no two of them can disagree; `glossary` says what each
  column name means, and the text ends with that legend;
* `with_baselines(rows_by_model)` adds the simulated random walk, DFS agent and BFS oracle on
  the same cases; `human_baseline_rows(path)` reads a human-baseline JSON file;
* `mirage_comparison(rows)` and `ariadne_comparison(rows)`: paired differences on the same
  seeds (mirage on minus off; group B minus C) with paired bootstrap intervals (`COMPARISONS`);
  with fewer than `MIN_PAIRS` pairs for every model, `comparison_gap` is the one line that says so;
* `compare_models(rows_by_model)`: paired differences between models over shared cases;
* `best_and_worst(rows)`, `trial_svg(row)`, `write_pictures(rows_by_model, folder)`;
* `rescore_report(rows_by_model, pictures_dir=..., humans=...)`: all of the above as the
  `{"text", "markdown", "json", "csv"}` report `hallubench rescore` prints and writes.

Resampling lives here, never in `aggregate`, so rescoring stays cheap.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ... import stats
from ...hallumaze.aggregate import aggregate_rows, ariadne_summary, mirage_pairs, scored
from ...hallumaze.compact import read_cells, read_ints
from ...hallumaze.result_types import ERROR
from ...hallumaze.result_types import Row as StoredRow
from ...hallumaze.trial import load_trial
from ...rows import play_row
from ..csv_cells import cell
from ..headline import Headline
from ..leaderboard import board_of, units_from
from ..rescore.scorer_changes import Explain, changes_by_model, field_changes
from ..taskfile.reader import FrozenProtocol, TaskFile
from . import glossary
from .baseline_cache import task_baselines
from .baselines import baseline_rows
from .draw import draw_svg
from .installed import newest

Row = Mapping[str, Any]  # a row as read back: `StoredRow` describes it; its keys are read by name at run time
COLUMNS = (
    "rank", "model", "kind", "n_trials", "n_scored", "n_error", "format_failures", "score", "score_low", "score_high",
    "sr", "sr_low", "sr_high", "mei", "mei_low", "mei_high", "ce", "n_ce", "brs", "brs_low", "brs_high", "n_brs", "hc",
    "teleports", "ece",
    "brier", "auroc", "share_with_confidence", "bt_claim_exact", "lure_follow_on", "lure_follow_off",
    "v11_score",
)  # fmt: skip


def _values(rows: Sequence[Row], key: str) -> list[float]:
    """Per-trial values over all trials; an errored trial counts 0."""
    return [float(r["scores"][key]) if isinstance(r.get("scores"), Mapping) else 0.0 for r in rows]


def _defined_values(rows: Sequence[Row], key: str) -> list[float]:
    """Per-trial values of the scored trials that have one (BRS: a lure was met; CE: a confidence stated)."""
    return [float(r["scores"][key]) for r in scored(rows) if r["scores"].get(key) is not None]


def _interval(values: Sequence[float], resamples: int, seed: int) -> tuple[float | None, float | None]:
    if len(values) < 2:
        return None, None
    _, low, high = stats.bootstrap_mean_ci(list(values), resamples=resamples, seed=seed)
    return low, high


def kind_of(name: str) -> str:
    """`baseline` and `human` rows are named `baseline:<agent>` and `human:<group>`; the rest are models."""
    prefix = name.split(":", 1)[0]
    return prefix if prefix in ("baseline", "human") else "model"


def model_row(model: str, rows: Sequence[Row], *, resamples: int = 2000, seed: int = 0) -> dict[str, Any]:
    """One line of the table: aggregate metrics plus bootstrap intervals."""
    m = aggregate_rows(rows)["metrics"]
    line: dict[str, Any] = {
        "model": model,
        "kind": kind_of(model),
        "n_trials": m["n_trials"],
        "n_scored": m["n_scored"],
        "n_error": m["n_error"],
        "format_failures": m["format_failures"],
        "n_ce": m["n_ce"],
        "n_brs": m["n_brs"],
    }
    for key in ("score", "sr", "mei"):
        line[key] = m[key]
        line[f"{key}_low"], line[f"{key}_high"] = _interval(_values(rows, key), resamples, seed)
    line["brs"] = m["brs"]
    line["brs_low"], line["brs_high"] = _interval(_defined_values(rows, "brs"), resamples, seed)
    calibration = m["calibration"]
    line.update(
        {
            "ce": m["ce"],
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
        return "n/a"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _interval_text(row: Mapping[str, Any], key: str) -> str:
    if row.get(f"{key}_low") is None or row.get(f"{key}_high") is None:
        return ""
    return f"[{_fmt(row[f'{key}_low'])}, {_fmt(row[f'{key}_high'])}]"


@dataclass(frozen=True)
class Cell:
    """One table cell as every report shows it: the value, and beside (text) or below it (page) its interval or n."""

    value: str
    detail: str = ""

    @property
    def text(self) -> str:
        return f"{self.value} {self.detail}".strip()


@dataclass(frozen=True)
class Column:
    """A column of the hallumaze table: its header, the glossary term explaining it, and its cell for a table row."""

    header: str
    term: str | None
    cell: Callable[[Mapping[str, Any]], Cell]
    numeric: bool = True


def _value(key: str) -> Callable[[Mapping[str, Any]], Cell]:
    return lambda row: Cell(_fmt(row.get(key)))


def _with_ci(key: str, n_key: str | None = None) -> Callable[[Mapping[str, Any]], Cell]:
    def cell(row: Mapping[str, Any]) -> Cell:
        count = f"(n={_fmt(row.get(n_key))})" if n_key else ""
        return Cell(_fmt(row.get(key)), " ".join(part for part in (_interval_text(row, key), count) if part))

    return cell


TABLE_COLUMNS = (
    Column("#", None, _value("rank")),
    Column("entry", None, _value("model"), numeric=False),
    Column("kind", None, _value("kind"), numeric=False),
    Column("n", "n", _value("n_trials")),
    Column("err", "err", _value("n_error")),
    Column("score", "score", _with_ci("score")),
    Column("SR", "SR", _with_ci("sr")),
    Column("MEI", "MEI", _with_ci("mei")),
    Column("CE", "CE", _with_ci("ce", "n_ce")),
    Column("BRS", "BRS", _with_ci("brs", "n_brs")),
    Column("HC", "HC", _value("hc")),
    Column("ECE", "ECE", _value("ece")),
    Column("v1.1", "v1.1", _value("v11_score")),
)
"""The columns `rescore` prints and the HTML page shows, in this order, with these cells (one definition for both)."""
GROUP_COLUMN = Column("group", None, _value("group"), numeric=False)


def table_note(*, grouped: bool) -> str:
    """What the brackets, `(n=...)`, `n/a` and (with the group column) the letters of the table's cells mean."""
    note = "[low, high]: 95% bootstrap interval; (n=...): the trials that have the value; n/a: no trial has one"
    group = "; group: entries sharing a letter cannot be told apart (paired tests over shared cases, Holm-adjusted)"
    return note + (group if grouped else "")


def groups_of(board: Mapping[str, Any] | None) -> dict[str, list[str]]:
    """Each leaderboard entry's group letters (`separability`): the `group` column of the table."""
    entries = (board or {}).get("entries") or []
    return {str(e.get("name")): [str(g) for g in e.get("groups") or []] for e in entries if isinstance(e, Mapping)}


def display_table(
    table: Mapping[str, Any], groups: Mapping[str, Sequence[str]] | None = None
) -> tuple[list[Column], list[tuple[Mapping[str, Any], list[Cell]]]]:
    """The columns and, per table row, its cells: what the text, the Markdown and the page all show.

    With `groups` (the leaderboard's letters per entry) a `group` column follows the rank.
    """
    columns = list(TABLE_COLUMNS)
    if groups is not None:
        columns.insert(1, GROUP_COLUMN)
    lines = []
    for row in table.get("rows") or []:
        shown = dict(row)
        if groups is not None:
            shown["group"] = " ".join(groups.get(str(row.get("model")), [])) or "-"
        lines.append((row, [column.cell(shown) for column in columns]))
    return columns, lines


def legend_labels(columns: Sequence[Column]) -> list[str]:
    """The glossary terms the table's columns use, then those their explanations lean on."""
    used = [column.term for column in columns if column.term]
    return [*used, *(label for label in ("HRR", "FHR", "BT", "LT") if label not in used)]


def table_text(
    table: Mapping[str, Any], groups: Mapping[str, Sequence[str]] | None = None, *, protocol: str | None = None
) -> str:
    """A fixed-width terminal table, then what its brackets mean and what each column name means."""
    columns, lines = display_table(table, groups)
    rows = [[column.header for column in columns], *([cell.text for cell in cells] for _, cells in lines)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(columns))]
    out = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    legend = glossary.legend_lines(legend_labels(columns), protocol)
    note = table_note(grouped=groups is not None)
    return "\n".join([*out, "", str(table.get("note", "")), note, "", "What the columns mean:", *legend])


def table_markdown(table: Mapping[str, Any], groups: Mapping[str, Sequence[str]] | None = None) -> str:
    """The same table as GitHub Markdown, with the same cells (its legend: `legend_markdown`)."""
    columns, lines = display_table(table, groups)
    out = ["| " + " | ".join(column.header for column in columns) + " |", "|" + "---|" * len(columns)]
    for _, cells in lines:
        out.append("| " + " | ".join(cell.text.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(out) + "\n"


def legend_markdown(*, grouped: bool, protocol: str | None = None) -> str:
    """What the table's brackets and column names mean, as a Markdown list (the text legend's words)."""
    columns = [*TABLE_COLUMNS, GROUP_COLUMN] if grouped else list(TABLE_COLUMNS)
    known = {term.label: term for term in glossary.terms(protocol)}
    legend = [f"- **{label}**: {known[label].title}" for label in legend_labels(columns) if label in known]
    return "\n".join([table_note(grouped=grouped) + ".", "", *legend]) + "\n"


def table_csv(table: Mapping[str, Any]) -> str:
    """Every column, one row per model (floats rounded to 6 decimals; the JSON keeps full precision)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(table["columns"]), lineterminator="\n")
    writer.writeheader()
    for r in table["rows"]:
        writer.writerow({k: cell(v) for k, v in r.items()})
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


def human_baseline_rows(path: Path, frozen: FrozenProtocol | None = None) -> tuple[str, list[StoredRow]]:
    """Score a human-baseline file: `{"name": ..., "trials": [{"size", "seed", "mirage", "reply"}, ...]}`.

    Each trial is a single-shot case answered in the same format; it is scored by the `frozen`
    task file's `play` when given (the scorer of the rows it is compared with), else by the newest declared
    version's, as installed (`installed.newest`).
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("trials"), list):
        raise ValueError(f"{path}: expected an object with a 'trials' list")
    name = str(data.get("name") or path.stem)
    rows: list[StoredRow] = []
    for index, trial in enumerate(data["trials"]):
        if not isinstance(trial, dict) or not isinstance(trial.get("reply"), str):
            raise ValueError(f"{path}: trial {index} needs a 'reply' string")
        case = {k: v for k, v in trial.items() if k != "reply"}
        case.setdefault("mode", "single")
        if frozen is None:
            installed = newest()
            row = play_row(installed.entry.play, case, _OneReply(trial["reply"]),
                           protocol_id=installed.protocol_id, payload_sha256="human")  # fmt: skip
        else:
            row = frozen.rows.play_row(frozen.entry.play, case, _OneReply(trial["reply"]),
                                       protocol_id=frozen.task.protocol_id, payload_sha256="human")  # fmt: skip
        rows.append(cast(StoredRow, row))  # `play_row` builds a plain dict of this shape
    return f"human:{name}", rows


COMPARISONS = (
    ("mirage_on_minus_off", "Mirage on minus off, paired on the same seeds", ("score", "sr", "mei")),
    ("ariadne_b_minus_c", "Ariadne's Thread: hint (B) minus placebo (C), paired on the same seeds", ("sr", "score")),
)
"""The paired comparisons every report shows: JSON key, title and the metrics compared (text and page alike)."""
MIN_PAIRS = 2
"""A paired bootstrap interval needs at least this many pairs; with fewer, the difference is not computed."""
PAIRINGS = {
    "mirage_on_minus_off": "two trials that differ only in the mirage switch (same size, seed, confidence, group, "
    "repeat and mode)",
    "ariadne_b_minus_c": "an interactive trial of group B and one of group C on the same maze (same size, seed, "
    "mirage, confidence and repeat)",
}
"""What makes a pair, per paired comparison of the report (its key in the JSON)."""


def _paired(pairs: Sequence[tuple[float, float]], resamples: int, seed: int) -> dict[str, Any]:
    if len(pairs) < MIN_PAIRS:
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
    out["summary"] = ariadne_summary(rows)
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


REPEAT_SUFFIX = re.compile(r"-r\d+$")  # `n05-s0000-plain-A-r1`: repeat 1 of that maze and condition


def headline(rows: Sequence[Row]) -> Headline:
    """One entry's verified hallumaze score: per trial (score, 1), an errored trial 0, repeats of one maze and
    condition clustered."""
    values = _values(rows, "score")
    errors = sum(1 for row in rows if row.get("verdict") == ERROR)
    cases = [str(row.get("case_id")) for row in rows]
    return Headline(
        "hallumaze score",
        True,
        "case",
        units_from((case, value, 1.0) for case, value in zip(cases, values, strict=True)),
        {case: REPEAT_SUFFIX.sub("", case) for case in cases},
        {"trials": len(rows), "scored": len(scored(rows)), "errors": errors},
        also={
            name: units_from((case, value, 1.0) for case, value in zip(cases, _values(rows, key), strict=True))
            for name, key in (("SR", "sr"), ("MEI", "mei"))
        },
    )


def separability(rows_by_entry: Mapping[str, Sequence[Row]], *, resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """The leaderboard by verified score with every pairwise paired difference and the groups it cannot split."""
    return board_of({name: headline(rows) for name, rows in rows_by_entry.items()}, kinds=kind_of,
                    resamples=resamples, seed=seed)  # fmt: skip


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
        title=f"trial {row.get('case_id')}",
        subtitle=(
            f"score {row['scores']['score']:.3f}, SR {row['scores']['sr']:g}, "
            f"{row['scores']['hc']} move(s) through walls, backtracks verified {row['scores']['bt']}"
            + (" (no verifiable move: format failure)" if (row["scores"].get("format") or {}).get("failure") else "")
        ),
        teleports=read_ints(trajectory.get("teleport_moves", "")),
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


def _human_rows(
    paths: Sequence[Path], taken: set[str], problems: list[str], task: TaskFile | None
) -> dict[str, list[StoredRow]]:
    out: dict[str, list[StoredRow]] = {}
    if not paths:
        return out
    frozen = FrozenProtocol(task) if task is not None else None
    try:
        for path in paths:
            _add_human_file(Path(path), frozen, taken, problems, out)
    finally:
        if frozen is not None:
            frozen.close()
    return out


def _add_human_file(
    path: Path,
    frozen: FrozenProtocol | None,
    taken: set[str],
    problems: list[str],
    out: dict[str, list[StoredRow]],
) -> None:
    try:
        name, rows = human_baseline_rows(path, frozen)
    except (OSError, ValueError) as exc:  # unreadable file, bad JSON, wrong shape
        problems.append(f"human baseline {path}: {exc}")
        return
    unique, copy = name, 2
    while unique in taken or unique in out:
        unique, copy = f"{name} ({copy})", copy + 1
    out[unique] = rows


def diff_text(result: Mapping[str, Any]) -> str:
    """One paired difference as every report writes it: `+0.120 [0.010, 0.230] (n=8 pairs) *`."""
    if result.get("mean_diff") is None:
        return f"too few pairs (n={result.get('n', 0)}; at least {MIN_PAIRS} needed)"
    sign = "+" if result["mean_diff"] >= 0 else ""
    return (
        f"{sign}{result['mean_diff']:.3f} [{_fmt(result.get('low'))}, {_fmt(result.get('high'))}] "
        f"(n={result.get('n')} pairs)" + (" *" if result.get("excludes_zero") else "")
    )


def comparison_gap(pairing: str, by_model: Mapping[str, Mapping[str, Any]], keys: Sequence[str]) -> str | None:
    """Why no model's paired difference could be computed, in one line; None when at least one could.

    `pairing` names the comparison (a key of `PAIRINGS`, as in the JSON); `by_model` is its part of the JSON.
    """
    results = [(result.get(key) or {}) for result in by_model.values() for key in keys if isinstance(result, Mapping)]
    if any(result.get("mean_diff") is not None for result in results):
        return None
    if not by_model:
        return "Not computed: no model to compare."
    most = max((int(result.get("n") or 0) for result in results), default=0)
    return (
        f"Not computed: no model has enough pairs. A pair is {PAIRINGS.get(pairing, 'two matched trials')}; a paired "
        f"interval needs at least {MIN_PAIRS} pairs, and the most any model has is {most}."
    )


def _comparison_lines(
    title: str, pairing: str, by_model: Mapping[str, Mapping[str, Any]], keys: Sequence[str]
) -> list[str]:
    gap = comparison_gap(pairing, by_model, keys)
    if gap is not None:
        return [title, f"  {gap}"]
    lines = [title]
    for model, result in by_model.items():
        lines.append(f"  {model}: " + "; ".join(f"{metric_label(k)} {diff_text(result[k])}" for k in keys))
    return lines


def _comparison_markdown(
    title: str, pairing: str, by_model: Mapping[str, Mapping[str, Any]], keys: Sequence[str]
) -> list[str]:
    gap = comparison_gap(pairing, by_model, keys)
    if gap is not None:
        return [f"### {title}", "", gap, ""]
    lines = [
        f"### {title}",
        "",
        "| model | " + " | ".join(metric_label(k) for k in keys) + " |",
        "|---|" + "---|" * len(keys),
    ]
    for model, result in by_model.items():
        lines.append(f"| {model} | " + " | ".join(diff_text(result[k]) for k in keys) + " |")
    return [*lines, ""]


def metric_label(key: str) -> str:
    """`sr` -> `SR`: the glossary's label for a metric key of the rows."""
    return "score" if key == "score" else key.upper()


def _baselines_for(wanted: list[dict[str, Any]], task: TaskFile | None) -> dict[str, Sequence[Row]]:
    """The baselines on `wanted`: from `task`'s cached rows when it holds every one of those cases, else played here."""
    if not wanted:
        return {}
    if task is not None:
        known = task.case_by_id()
        same = (case["id"] in known and all(known[case["id"]].get(k) == v for k, v in case.items()) for case in wanted)
        if all(same):
            return dict(task_baselines(task, [case["id"] for case in wanted]))
    return dict(baseline_rows(wanted))


def scorer_changes(
    rows_by_model: Mapping[str, Sequence[Row]],
    hosted_by_model: Mapping[str, Sequence[Row | None]],
    explain: Explain = field_changes,
) -> dict[str, Any]:
    """Per model, the rows a newer scorer changed against the hosted ones, and why (`explain`, the version pair's
    declared explanation), counted by reason."""
    out: dict[str, Any] = {}
    for model, entry in changes_by_model(rows_by_model, hosted_by_model, explain).items():
        by_reason: dict[str, int] = {}
        for change in entry["changed"]:
            for reason in change.get("reason_ids") or ["unexplained"]:
                by_reason[reason] = by_reason.get(reason, 0) + 1
        changed = entry.pop("changed")
        out[model] = {**entry, "rows_changed_by_reason": by_reason, "changed": changed}
    return out


def _reason_texts(changed: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each reason id with the words the explanation gave it (ids and reasons pair up in each change)."""
    texts: dict[str, str] = {}
    for change in changed:
        for reason, text in zip(change.get("reason_ids") or (), change.get("reasons") or (), strict=False):
            texts.setdefault(reason, text)
    return texts


def _changes_lines(changes: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    for model, entry in changes.items():
        lines.append(
            f"  {model}: {entry['rows_changed']} of {entry['rows']} rows changed from {entry['from']} to "
            f"{entry['to']}, {len(entry['verdict_changes'])} verdict(s)"
        )
        for change in entry["verdict_changes"]:
            old, new = change["verdict"]
            lines.append(f"    case {change['case_id']}: {old} -> {new}: {'; '.join(change['reasons'])}")
        texts = _reason_texts(entry["changed"])
        for reason, count in sorted(entry["rows_changed_by_reason"].items()):
            text = texts.get(reason) if reason != "unexplained" else None
            lines.append(f"    {count} row(s): {text or 'other differences (see the JSON report)'}")
    return lines


def rescore_report(
    rows_by_model: Mapping[str, Sequence[Row]],
    *,
    task: TaskFile | None = None,
    hosted_by_model: Mapping[str, Sequence[Row | None]] | None = None,
    pictures_dir: Path | None = None,
    humans: Sequence[Path] = (),
    cases: Sequence[Mapping[str, Any]] | None = None,
    explain: Explain = field_changes,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """The hallumaze part of `hallubench rescore`'s report: `{"text", "markdown", "json", "csv"}`.

    `rows_by_model` holds the re-scored rows per model, scored by `task` (the task file whose
    scorer made them) when given; `hosted_by_model` the rows the hosted run stored, in the same
    order: where another protocol's scorer made them (`rescore --scorer`), every row it changed is
    counted, and every changed verdict listed, with the reason `explain` gives (the version pair's
    declared explanation, `changes.py` for v2 -> v3). The table ranks the
    models with the simulated baselines (random walk, DFS agent, BFS oracle, played on the same
    cases, or on `cases` when given, by
    `task`'s scorer, read from the baseline cache; without `task`, by the newest version's, as installed) and
    the human groups of `humans` alongside; mirage on minus off and Ariadne group B minus C are
    paired per model. With `pictures_dir`, each model's best and worst trial is drawn there and
    linked. A human file that cannot be read is listed under `problems`, never fatal.
    """
    problems: list[str] = []
    models = {name: list(rows) for name, rows in rows_by_model.items()}
    wanted = [dict(c) for c in cases] if cases is not None else _cases_of(models)
    baselines = _baselines_for(wanted, task)
    human = _human_rows(humans, set(models) | set(baselines), problems, task)
    everyone: dict[str, Sequence[Row]] = {**models, **baselines, **human}
    table = model_table(everyone, resamples=resamples, seed=seed)
    compared: dict[str, Sequence[Row]] = {**models, **human}
    mirage = {m: mirage_comparison(rows, resamples=resamples, seed=seed) for m, rows in compared.items()}
    ariadne = {m: ariadne_comparison(rows, resamples=resamples, seed=seed) for m, rows in models.items()}
    pictures = write_pictures(models, Path(pictures_dir)) if pictures_dir is not None else {}
    changes = scorer_changes(models, hosted_by_model or {}, explain)
    board = separability(everyone, resamples=resamples, seed=seed)
    scored_by = task.protocol_id if task is not None else newest().protocol_id
    data = {
        "benchmark": "hallumaze",
        "scored_by": scored_by,
        "scorer_changes": changes,
        "table": table,
        "leaderboard": board,
        "mirage_on_minus_off": mirage,
        "ariadne_b_minus_c": ariadne,
        "pictures": pictures,
        "baselines": sorted(baselines),
        "humans": sorted(human),
        # the baselines' and human groups' rows, so the page opens their trials as it opens a model's
        "entry_rows": {name: list(rows) for name, rows in {**baselines, **human}.items()},
        "problems": problems,
        "resamples": resamples,
    }
    comparisons = {"mirage_on_minus_off": mirage, "ariadne_b_minus_c": ariadne}
    groups = groups_of(board)
    text = [
        "hallumaze: verified scores (95% bootstrap intervals; errored trials count 0 and stay in n)",
        table_text(table, groups, protocol=scored_by),
    ]
    markdown = [
        "## hallumaze",
        "",
        "Verified scores with 95% bootstrap intervals; errored trials count 0 and stay in n. Simulated "
        "baselines played the same cases.",
        "",
        table_markdown(table, groups),
        legend_markdown(grouped=True, protocol=scored_by),
    ]
    for key, title, keys in COMPARISONS:
        text += ["", *_comparison_lines(f"{title} (* = interval excludes 0):", key, comparisons[key], keys)]
        markdown += _comparison_markdown(f"{title} (* = interval excludes 0)", key, comparisons[key], keys)
    if changes:
        text += ["", "Rows the newer scorer changed, and why:", *_changes_lines(changes)]
        markdown += ["### Rows the newer scorer changed, and why", "", *(f"- {line.strip()}" for line in
                                                                          _changes_lines(changes)), ""]  # fmt: skip
    if pictures:
        text += ["", "Best and worst trial per model:"]
        markdown += ["### Best and worst trial per model", ""]
        for model, links in pictures.items():
            text += [f"  {model}: " + ", ".join(f"{label} {path}" for label, path in links.items())]
            markdown += [
                f"- {model}: " + ", ".join(f"[{label}]({Path(path).as_posix()})" for label, path in links.items())
            ]
        markdown.append("")
    if problems:
        text += ["", "Problems:", *(f"  {p}" for p in problems)]
        markdown += ["### Problems", "", *(f"- {p}" for p in problems), ""]
    return {"text": "\n".join(text) + "\n", "markdown": "\n".join(markdown), "json": data, "csv": table_csv(table)}
