"""`hallubench plan PATH... [--detect D]`: how many cases and repeats a benchmark needs, from pilot runs.

The pilot's rows are read and verified exactly as `rescore` reads them (`rescore.collect`), scored by the
benchmark's declared headline (`Benchmark.headline`, the metric the leaderboard ranks by), and turned into
per-case repeat scores; `hallubench.tooling.statistics.plan` does the arithmetic. Rows that did not verify are
left out and counted, so a plan never rests on a row whose prompt differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..exit_codes import EXIT_OK, EXIT_USAGE


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ..rescore.collect import add_source_options

    parser = subparsers.add_parser(
        "plan",
        help="from pilot runs: the difference the design can detect, and the cases x repeats a difference needs",
        description=(
            "Read pilot run files of any benchmark (as `rescore` does: every prompt verified, every reply "
            "re-scored), score each model by the benchmark's headline metric and plan: for every pair of models "
            "(or, with one model, against a like model), the minimum detectable paired difference at the pilot's "
            "cases and repeats, and with --detect the cases needed at 1, 2, 3, 5 and 10 repeats. Repeats of a "
            "case are clustered (variance between and within cases). Exit codes: 0 planned; 2 bad usage, "
            "nothing verified, or a benchmark without a headline; the `rescore` codes 5 and 7 when no run file "
            "could be read or the jail refused."
        ),
    )
    add_source_options(parser)
    parser.add_argument(
        "--detect", type=float, metavar="D", help="the difference to detect (a rate or score in (0, 1]), e.g. 0.05"
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="two-sided level of the paired test (0.05)")
    parser.add_argument("--power", type=float, default=0.8, help="the power to reach (0.8)")
    parser.add_argument(
        "--comparisons",
        type=int,
        default=1,
        metavar="K",
        help="plan for K comparisons at once (level alpha / K, Holm's first step); default 1",
    )
    parser.add_argument(
        "--correlation",
        type=float,
        default=0.0,
        metavar="R",
        help="with one model: the assumed correlation of the other model's case effects with this one's (0)",
    )
    parser.add_argument(
        "--pair", nargs=2, metavar=("A", "B"), help="plan only this pair of models (default: every pair)"
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the plans as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress while reading the runs")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..rescore.collect import Collected, collect
    from ..statistics import plan

    problem = _check_numbers(args)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    collected = collect(args, keep_messages=False, show_progress=not args.quiet)
    if not isinstance(collected, Collected):
        return collected
    protocol = (collected.newer or collected.task).protocol_id
    if collected.headline_function is None:
        print(f"error: {protocol} declares no headline metric, so there is nothing to plan", file=sys.stderr)
        return EXIT_USAGE
    rows = {model: found for model, found in collected.rows_by_model.items() if found}
    if args.pair:
        missing = [name for name in args.pair if name not in rows]
        if missing:
            known = ", ".join(sorted(rows)) or "none"
            print(f"error: no verified rows of {', '.join(missing)} (models: {known})", file=sys.stderr)
            return EXIT_USAGE
        rows = {name: rows[name] for name in args.pair}
    if not rows:
        print("error: no verified row to plan from", file=sys.stderr)
        return EXIT_USAGE
    headlines = {model: collected.headline_function(found) for model, found in sorted(rows.items())}
    outcomes = {model: headline.cluster_scores() for model, headline in headlines.items()}
    outcomes = {model: scores for model, scores in outcomes.items() if scores}
    if not outcomes:
        print("error: no verified row has a headline score to plan from", file=sys.stderr)
        return EXIT_USAGE
    try:
        plans = plan(
            outcomes,
            detect=args.detect,
            alpha=args.alpha,
            target=args.power,
            comparisons=args.comparisons,
            correlation=args.correlation,
        )
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    first = next(iter(headlines.values()))
    # rows of the models planned that did not verify (or are not counted): models left out by --pair are not rows
    summaries = collected.report.models
    left_out = sum(len(summaries[model].rows) - len(found) for model, found in rows.items() if model in summaries)
    header = _header(protocol, first.metric, first.higher_is_better, rows, left_out, args)
    print("\n".join([*header, *(line for found in plans for line in _plan_lines(found.to_dict()))]))
    if args.json:
        data = {
            "protocol": protocol,
            "metric": first.metric,
            "higher_is_better": first.higher_is_better,
            "rows": {model: len(found) for model, found in rows.items()},
            "rows_left_out": left_out,
            "plans": [found.to_dict() for found in plans],
        }
        args.json.write_text(json.dumps(data, indent=2, allow_nan=False) + "\n", encoding="utf-8")
        print(f"\nwrote JSON: {args.json.resolve()}")
    return EXIT_OK


def _check_numbers(args: argparse.Namespace) -> str | None:
    if args.detect is not None and not 0.0 < args.detect <= 1.0:
        return f"--detect must lie in (0, 1], got {args.detect:g}"
    if not 0.0 < args.alpha < 1.0:
        return f"--alpha must lie strictly between 0 and 1, got {args.alpha:g}"
    if not args.alpha < args.power < 1.0:
        return f"--power must lie between --alpha and 1, got {args.power:g}"
    if args.comparisons < 1:
        return f"--comparisons must be at least 1, got {args.comparisons}"
    if not -1.0 <= args.correlation <= 1.0:
        return f"--correlation must lie in [-1, 1], got {args.correlation:g}"
    return None


def _header(
    protocol: str,
    metric: str,
    higher_is_better: bool,
    rows: dict[str, list[dict[str, Any]]],
    left_out: int,
    args: argparse.Namespace,
) -> list[str]:
    direction = "higher is better" if higher_is_better else "lower is better"
    counted = sum(len(found) for found in rows.values())
    lines = [
        f"hallubench plan: {protocol} ({metric}, {direction}), from {counted} verified rows of {len(rows)} model(s)"
        + (f"; {left_out} rows left out (not verified, or not counted)" if left_out else ""),
        f"  two-sided paired t test at {args.alpha:g}"
        + (f" / {args.comparisons} comparisons" if args.comparisons > 1 else "")
        + f", {100 * args.power:g}% power; repeats of a case clustered (variance between and within cases)",
    ]
    return lines


def _plan_lines(found: dict[str, Any]) -> list[str]:
    first, second = found["first"], found["second"]
    who = f"{first} vs {second}" if second is not None else f"{first} vs a like model"
    observed = found.get("observed_diff")
    icc, effect = found.get("icc"), found.get("design_effect")
    clustering = f"ICC {icc:.2f}, design effect {effect:.2f}" if icc is not None and effect is not None else "no ICC"
    lines = [
        "",
        f"{who}: "
        + (f"observed difference {observed:+.3f} over " if observed is not None else "")
        + f"{found['cases']} shared cases x {found['repeats']:.3g} repeats ({clustering})",
    ]
    if found.get("assumption"):
        lines.append(f"  assumed: {found['assumption']}")
    mdd = found.get("mdd")
    lines.append(
        f"  minimum detectable difference with this design: {mdd:.3f}" if mdd is not None else "  no plan possible"
    )
    detect = found.get("detect")
    if detect is not None and mdd is not None:
        now = found.get("power_at_detect")
        if now is not None:
            lines.append(f"  to detect {detect:g}: power with this design {100 * now:.0f}%")
        for option in found.get("options") or []:
            cases = option.get("cases")
            needed = f"{cases} cases" if cases is not None else "out of reach"
            lines.append(f"    {option['repeats']} repeat(s) per case: {needed}")
        more = found.get("repeats_at_current_cases")
        if more is not None:
            lines.append(f"    or, at {found['cases']} cases, {more} repeat(s) per case")
    lines += [f"  note: {note}" for note in found.get("notes") or []]
    return lines
