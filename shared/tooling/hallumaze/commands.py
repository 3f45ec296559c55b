"""`hallubench maze`: render a maze prompt, score a reply with verified metrics, draw, run baselines.

    hallubench maze render --size 7 --seed 0 [--no-mirage] [--no-confidence] [--interactive --group B]
    hallubench maze score --size 7 --seed 0 REPLY [--json]
    hallubench maze score --maze MAZE.txt REPLY [--json]      # a maze in the v1.1 text encoding
    hallubench maze draw --size 7 --seed 0 [REPLY] [-o maze.svg]
    hallubench maze baselines [--sizes 5 7] [--seeds 20] [--json]

Exit codes: 0 done, 2 bad input (missing file, unreadable maze, bad size or seed).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from ...hallumaze.result_types import Scores
from ..exit_codes import EXIT_USAGE


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], name: str, aliases: Sequence[str]
) -> None:
    """Add `hallubench <name>` (the benchmark's name; `aliases` are the older command names that still work)."""
    parser = subparsers.add_parser(
        name, aliases=list(aliases), help="hallumaze: render prompts, score replies, draw mazes, baselines"
    )
    sub = parser.add_subparsers(dest="maze_command", metavar="ACTION")
    parser.set_defaults(handler=lambda args: _usage(parser))

    render = sub.add_parser("render", help="print the prompt of one maze")
    _maze_args(render, required=True)
    render.add_argument("--interactive", action="store_true", help="the first message of an interactive trial")
    render.add_argument("--group", choices=("A", "B", "C"), default="A", help="Ariadne group (interactive)")
    render.add_argument("--max-tokens", type=int, default=None, help="token budget stated in the prompt")
    render.set_defaults(handler=_render)

    score = sub.add_parser("score", help="score a reply against a maze with verified metrics")
    _maze_args(score, required=False)
    score.add_argument("--maze", type=Path, help="a maze (or whole v1.1 prompt) in the v1.1 text encoding")
    score.add_argument("reply", help="the reply text file ('-' for stdin)")
    score.add_argument("--json", action="store_true", help="print the full result as one JSON object")
    score.set_defaults(handler=_score)

    draw = sub.add_parser("draw", help="write an SVG of a maze with its solution, lures and a reply's path")
    _maze_args(draw, required=False)
    draw.add_argument("--maze", type=Path, help="a maze in the v1.1 text encoding instead of --size/--seed")
    draw.add_argument("reply", nargs="?", help="a reply whose path to draw ('-' for stdin)")
    draw.add_argument("-o", "--out", type=Path, help="output file (.svg; .png needs cairosvg); default stdout")
    draw.set_defaults(handler=_draw)

    base = sub.add_parser("baselines", help="simulate random-walk, DFS and BFS agents through the same scorer")
    base.add_argument(
        "--sizes", type=int, nargs="+", default=[5, 7, 9, 11], metavar="N", help="maze sizes (default 5 7 9 11)"
    )
    base.add_argument("--seeds", type=int, default=20, metavar="K", help="seeds 0..K-1 per size (default 20)")
    base.add_argument("--no-mirage", action="store_true", help="mazes without lure hints")
    base.add_argument("--json", action="store_true", help="print the table as JSON instead of text")
    base.set_defaults(handler=_baselines)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return EXIT_USAGE


def _maze_args(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument("--size", type=int, required=required, help="maze size N (N x N), N >= 2")
    parser.add_argument("--seed", type=int, required=required, help="maze seed (0 is a seed)")
    parser.add_argument("--no-mirage", action="store_true", help="omit the lure hints")
    parser.add_argument("--no-confidence", action="store_true", help="do not ask for confidences")


def _fail(message: str) -> int:
    print(f"hallubench maze: {message}", file=sys.stderr)
    return EXIT_USAGE


def _read_text(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    return Path(name).read_text(encoding="utf-8")


def _case(args: argparse.Namespace, **extra: Any) -> dict[str, Any]:
    case = {
        "size": args.size,
        "seed": args.seed,
        "mirage": not args.no_mirage,
        "confidence": not args.no_confidence,
    }
    case.update(extra)
    return case


def _render(args: argparse.Namespace) -> int:
    from .installed import newest

    render = newest().entry.render
    extra: dict[str, Any] = {"group": args.group, "mode": "interactive" if args.interactive else "single"}
    if args.max_tokens is not None:
        extra["max_tokens"] = args.max_tokens
    try:
        text = render(_case(args, **extra))
    except ValueError as exc:
        return _fail(str(exc))
    sys.stdout.write(text + "\n")
    return 0


def _target(args: argparse.Namespace) -> tuple[Any, Any, Any, Any] | str:
    """(maze, solution, lure slots, lures) from --maze or --size/--seed, or an error message."""
    from ...hallumaze.original_scoring import read_maze_text
    from ...hallumaze.solve import solve
    from ...hallumaze.trial import load_trial

    if args.maze is not None:
        try:
            maze, lures = read_maze_text(args.maze.read_text(encoding="utf-8"))
        except OSError as exc:
            return f"cannot read maze file: {exc}"
        except ValueError as exc:
            return f"{args.maze}: not a maze in the v1.1 text encoding: {exc}"
        return maze, tuple(solve(maze)), tuple((lure.cell, lure.direction) for lure in lures), lures
    if args.size is None or args.seed is None:
        return "give --size and --seed, or --maze FILE"
    try:
        trial = load_trial(_case(args))
    except ValueError as exc:
        return str(exc)
    return trial.maze, trial.solution, trial.slots, trial.shown_lures


def _score(args: argparse.Namespace) -> int:
    from ...hallumaze.score import score_reply

    target = _target(args)
    if isinstance(target, str):
        return _fail(target)
    maze, solution, slots, _ = target
    try:
        reply = _read_text(args.reply)
    except OSError as exc:
        return _fail(f"cannot read reply: {exc}")
    result = cast(Scores, score_reply(maze, solution, slots, reply))  # a plain dict of this shape
    if args.json:
        print(json.dumps(result, ensure_ascii=False, sort_keys=True))
        return 0
    print(_summary(result))
    return 0


def _summary(r: Scores) -> str:
    claims = r["claims"]
    fhr = r["fhr"] if r["fhr"] is not None else "-"
    ce = f"{r['ce']:.3f}" if r["ce"] is not None else "n/a (no confidence stated)"
    brs = f"{r['brs']:.3f}" if r["brs"] is not None else "n/a (no lure met)"
    lines = [
        f"SR {r['sr']:.0f}  HC {r['hc']}  FHR {fhr}  BT {r['bt']}  LT {r['lt']}  teleports {r['teleports']}",
        f"HRR {r['hrr']:.3f}  MEI {r['mei']:.3f}  BRS {brs}  CE {ce}  score {r['score']:.3f}",
        f"claims: BACKTRACK_COUNT {claims['backtrack']['claimed']} (verified {claims['backtrack']['verified']}), "
        f"HALLUCINATION_COUNT {claims['hallucination']['claimed']} (verified {claims['hallucination']['verified']}), "
        f"LOOP lines {claims['loop']['claimed']} (verified {claims['loop']['verified']})",
        f"lures: {r['lures']['exposures']} exposures, {r['lures']['follows']} followed, "
        f"{r['lures']['resists']} resisted",
    ]
    if r["format"]["failure"]:
        lines.append("format failure: no readable STEP line and no FINAL_PATH")
    if "v11" in r:
        v = r["v11"]
        lines.append(f"v1.1 as coded (comparison only): SR {v['sr']:.0f}  MEI {v['mei']:.3f}  score {v['score']:.3f}")
    return "\n".join(lines)


def _draw(args: argparse.Namespace) -> int:
    from ...hallumaze.compact import read_cells, read_ints
    from ...hallumaze.score import score_reply
    from .draw import draw_svg, svg_to_png

    target = _target(args)
    if isinstance(target, str):
        return _fail(target)
    maze, solution, slots, lures = target
    path = None
    crossings: list[int] = []
    teleports: list[int] = []
    subtitle = None
    title = f"maze {maze.size}x{maze.size}" + (f", seed {args.seed}" if args.seed is not None else "")
    if args.reply:
        try:
            result = score_reply(maze, solution, slots, _read_text(args.reply), with_v11=False)
        except OSError as exc:
            return _fail(f"cannot read reply: {exc}")
        path = read_cells(result["trajectory"]["cells"])
        crossings = read_ints(result["trajectory"]["hallucination_moves"])
        teleports = read_ints(result["trajectory"]["teleport_moves"])
        subtitle = f"score {result['score']:.3f}, SR {result['sr']:g}, {result['hc']} move(s) through walls"
    lure_marks = [(lure.cell, lure.direction) for lure in lures]
    svg = draw_svg(maze, solution, lure_marks, path, crossings, title=title, subtitle=subtitle, teleports=teleports)
    if args.out is None:
        sys.stdout.write(svg)
        return 0
    if args.out.suffix.lower() == ".png":
        png = svg_to_png(svg)
        if png is None:
            return _fail(
                "PNG output needs cairosvg and the cairo library: pip install 'hallubench[png]' "
                "(Debian: apt-get install libcairo2), or write .svg instead"
            )
        args.out.write_bytes(png)
    else:
        args.out.write_text(svg, encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


def _baselines(args: argparse.Namespace) -> int:
    from ...hallumaze.cases import make_case
    from .baselines import baseline_rows
    from .report import model_table, table_text

    try:
        cases = [make_case(n, s, mirage=not args.no_mirage) for n in args.sizes for s in range(args.seeds)]
        rows = baseline_rows(cases)
    except ValueError as exc:
        return _fail(str(exc))
    table = model_table(rows)
    if args.json:
        print(json.dumps(table, ensure_ascii=False, sort_keys=True))
    else:
        print(table_text(table))
    return 0
