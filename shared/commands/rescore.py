"""`hallubench rescore PATH... [--task FILE]`: verify hosted prompts byte for byte and re-score replies."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

EXIT_OK = 0
EXIT_PROMPT_MISMATCH = 3
EXIT_SCORE_DISAGREES = 4
EXIT_UNREADABLE = 5
EXIT_USAGE = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "rescore",
        help="verify every prompt of hosted runs byte for byte and re-score every reply",
        description=(
            "Read run files (loose *.run.json files, or the tree `kaggle benchmarks tasks download` writes), "
            "re-render each prompt from the frozen task file, compare, re-score each reply and recompute the "
            "metrics. Exit codes: 0 all verified and agreeing; 3 a prompt differs; 4 a score differs; "
            "5 a run file could not be read; 2 bad usage."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="run files or directories")
    parser.add_argument("--task", type=Path, help="the task file the runs came from (default: found by task name)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the full report as JSON")
    parser.add_argument("--markdown", type=Path, metavar="OUT", help="write the report as Markdown")
    parser.add_argument("--csv", type=Path, metavar="OUT", help="write the benchmark's per-model table as CSV")
    parser.add_argument("--rows-csv", type=Path, metavar="OUT", help="write one line per row (verification) as CSV")
    parser.add_argument("--pictures", type=Path, metavar="DIR", help="write pictures (e.g. best and worst maze trial)")
    parser.add_argument(
        "--human", type=Path, action="append", default=[], metavar="FILE", help="human baseline results (hallumaze)"
    )
    parser.add_argument("--quiet", action="store_true", help="print only problems")
    parser.set_defaults(handler=run)


def _find_task(names: set[str]) -> Path | None:
    from ..build import load_specs
    from ..repo import RepositoryNotFound, repo_root

    try:
        root = repo_root()
    except RepositoryNotFound:
        return None
    for spec in load_specs(root):
        if {spec.task_name, f"{spec.stem}_row"} & names:
            return root / spec.task_path
    return None


def run(args: argparse.Namespace) -> int:
    from ..kaggle_runs import load_runs
    from ..rescore.engine import rescore_runs
    from ..rescore.render import to_csv, to_json, to_markdown, to_text
    from ..rescore.reporters import benchmark_report, pictures_option
    from ..taskfile.reader import TaskFileError, read_task_file

    loaded, errors = load_runs([Path(p) for p in args.paths])
    file_errors = [str(error) for error in errors]
    if not loaded:
        for error in file_errors:
            print(f"error: {error}", file=sys.stderr)
        print("error: no run file could be read", file=sys.stderr)
        return EXIT_UNREADABLE if file_errors else EXIT_USAGE
    task_path = args.task or _find_task({item.run.task.name for item in loaded})
    if task_path is None:
        names = ", ".join(sorted({item.run.task.name for item in loaded}))
        print(f"error: no task file known for task(s) {names}; pass --task FILE", file=sys.stderr)
        return EXIT_USAGE
    try:
        task = read_task_file(task_path)
    except TaskFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    report = rescore_runs(task, [(item.run, str(item.path)) for item in loaded], file_errors)
    rows_by_model = {
        model: [row.local_row for row in summary.rows if row.prompt_verified]
        for model, summary in report.models.items()
    }
    extra = None
    if any(rows_by_model.values()):
        extra = benchmark_report(
            task.protocol_id, rows_by_model, pictures_dir=pictures_option(args.pictures), humans=tuple(args.human)
        )
    text = to_text(report, show_metrics=extra is None)
    if not args.quiet:
        print(text, end="")
        if extra is not None:
            print("\n" + str(extra.get("text", "")), end="")
    if args.json:
        data = to_json(report)
        if extra is not None:
            data["benchmark"] = extra.get("json")
        args.json.write_text(json.dumps(data, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
    if args.markdown:
        markdown = to_markdown(report)
        if extra is not None:
            markdown += "\n" + str(extra.get("markdown", ""))
        args.markdown.write_text(markdown, encoding="utf-8")
    if args.csv:
        args.csv.write_text(str(extra.get("csv", "")) if extra is not None else to_csv(report), encoding="utf-8")
    if args.rows_csv:
        args.rows_csv.write_text(to_csv(report), encoding="utf-8")
    if report.prompt_failures:
        if args.quiet:
            print(text, end="", file=sys.stderr)
        return EXIT_PROMPT_MISMATCH
    if report.score_failures or report.headline_failures:
        return EXIT_SCORE_DISAGREES
    if report.file_errors:
        return EXIT_UNREADABLE
    if not report.rows:
        print("error: none of the run files belongs to this task", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK
