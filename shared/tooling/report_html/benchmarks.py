"""The per-benchmark section: the leaderboard plus what each benchmark reports besides it.

hallumaze shows the table `rescore` prints (`maze_board`: the same columns and values, each metric
name explained) with the mirage and Ariadne paired comparisons; hallucinated-packages adds the
other rates with their denominators and lists registry changes since the hosted run; misled-tests
shows each model's condition table.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .board import leaderboard_html
from .markup import esc, interval, number, table
from .maze_board import glossary_protocol, maze_board


def _rate(rate: Any) -> str:
    if not isinstance(rate, Mapping):
        return ""
    ci = rate.get("ci95") or [None, None]
    return (
        f'{number(rate.get("rate"))} <small class="d">({esc(rate.get("numerator"))}/{esc(rate.get("denominator"))}'
        f"{', unverified ' + esc(rate.get('unverified')) if rate.get('unverified') else ''}) "
        f"{esc(interval(ci[0], ci[1]))}</small>"
    )


def _packages(benchmark: Mapping[str, Any]) -> tuple[dict[str, dict[str, str]], str]:
    models = benchmark.get("models") or {}

    def overall(level: str, name: str) -> dict[str, str]:
        return {
            m: _rate(((r.get("metrics") or {}).get("overall") or {}).get(level, {}).get(name))
            for m, r in models.items()
        }

    columns = {
        "samples with a hallucinated package": overall("per_sample", "hallucinated_package_rate"),
        "hallucinated functions (per reference)": overall("per_reference", "hallucinated_function_rate"),
        "removed APIs (per reference)": overall("per_reference", "removed_api_rate"),
        "adversarial pass (group B)": overall("per_sample", "adversarial_pass_rate"),
    }
    html = []
    flags = [(m, f) for m, r in sorted(models.items()) for f in r.get("flags") or []]
    if flags:
        html.append('<ul class="flags">' + "".join(f"<li><b>{esc(m)}</b>: {esc(f)}</li>" for m, f in flags) + "</ul>")
    changes = benchmark.get("registry_changes") or []
    if changes:
        html.append(f"<h4>Registry changes since the hosted run ({len(changes)})</h4><ul>")
        html.extend(f"<li><code>{esc(change)}</code></li>" for change in changes)
        html.append("</ul>")
    return columns, "\n".join(html)


def _misled(benchmark: Mapping[str, Any]) -> tuple[dict[str, dict[str, str]], str]:
    html = []
    for model, aggregate in sorted((benchmark.get("models") or {}).items()):
        metrics = aggregate.get("metrics") or {}
        rows = [
            [
                esc(line.get("condition")),
                esc(line.get("problems")),
                esc(sum((line.get("unusable") or {}).values())),
                esc(line.get("n_tests")),
                f"{esc(line.get('misled'))} ({number(line.get('misled_rate'))})",
                f"{esc(line.get('effective'))} ({number(line.get('effective_rate'))})",
                esc(line.get("problems_with_misled")),
                esc(line.get("problems_with_effective")),
            ]
            for line in metrics.get("conditions") or []
        ]
        headers = ["condition", "problems", "unusable", "tests", "misled (rate)", "effective (rate)",
                   "problems ≥1 misled", "problems ≥1 effective"]  # fmt: skip
        html.append(f"<h4>{esc(model)}: conditions</h4>" + table(headers, rows, numeric=frozenset(range(1, 8))))
        comparisons = [
            [
                esc(c.get("measure")),
                f"{esc(c.get('a'))} − {esc(c.get('b'))}",
                f"{number((c.get('per_test') or {}).get('diff'))} "
                f"{esc(interval((c.get('per_test') or {}).get('low'), (c.get('per_test') or {}).get('high')))}",
                esc(c.get("verdict")),
            ]
            for c in metrics.get("comparisons") or []
        ]
        if comparisons:
            html.append(table(["measure", "comparison", "difference per test (98.75%)", "verdict"], comparisons))
    return {}, "\n".join(html)


_EXTRAS = {"hallucinated-packages": _packages, "misled-tests": _misled}


def benchmark_name(protocol: str) -> str:
    """`misled-tests-thinking/v1` -> `misled-tests`: the benchmark whose views apply."""
    name = protocol.split("/")[0]
    return "misled-tests" if name.startswith("misled-tests") else name


def page_glossary(benchmark: str, data: Mapping[str, Any]) -> tuple[dict[str, str], re.Pattern[str] | None]:
    """The benchmark's metric names with their explanations, and the pattern that finds them in a text."""
    if benchmark != "hallumaze":
        return {}, None
    from ..hallumaze import glossary

    return glossary.titles(glossary_protocol(data)), glossary.WORD


def benchmark_section(data: Mapping[str, Any]) -> str:
    protocol = str((data.get("task") or {}).get("protocol") or "")
    benchmark = data.get("benchmark")
    out = [f'<section id="leaderboard"><h2>Leaderboard: {esc(protocol)}</h2>']
    if not isinstance(benchmark, Mapping):
        verified = any(
            row.get("prompt_verified") for m in (data.get("models") or {}).values() for row in m.get("rows") or []
        )
        why = "this protocol has no report of its own" if verified else "no row verified, so nothing was scored"
        out.append(f'<p class="note">No leaderboard: {why}.</p></section>')
        return "\n".join(out)
    maze = maze_board(benchmark, glossary_protocol(data)) if benchmark_name(protocol) == "hallumaze" else None
    if maze is not None:
        out += [maze, "</section>"]
        return "\n".join(out)
    columns, extra = _EXTRAS.get(benchmark_name(protocol), lambda b: ({}, ""))(benchmark)
    board = benchmark.get("leaderboard")
    if isinstance(board, Mapping):
        out.append(leaderboard_html(board, columns))
    else:
        out.append('<p class="note">This result has no leaderboard (it was written by an older hallubench).</p>')
    out.append(extra)
    out.append("</section>")
    return "\n".join(out)
