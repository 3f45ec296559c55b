"""The per-benchmark section: the leaderboard plus what each benchmark reports besides it.

hallumaze adds SR, MEI, CE, HC and the v1.1 score to the leaderboard and shows the mirage and
Ariadne paired comparisons; hallucinated-packages adds the other rates with their denominators and
lists registry changes since the hosted run; misled-tests shows each model's condition table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .board import leaderboard_html
from .markup import esc, interval, number, table


def _rate(rate: Any) -> str:
    if not isinstance(rate, Mapping):
        return ""
    ci = rate.get("ci95") or [None, None]
    return (
        f"{number(rate.get('rate'))} <small>({esc(rate.get('numerator'))}/{esc(rate.get('denominator'))}"
        f"{', unverified ' + esc(rate.get('unverified')) if rate.get('unverified') else ''}) "
        f"{esc(interval(ci[0], ci[1]))}</small>"
    )


def _maze(benchmark: Mapping[str, Any]) -> tuple[dict[str, dict[str, str]], str]:
    lines = {str(r.get("model")): r for r in (benchmark.get("table") or {}).get("rows") or []}
    columns: dict[str, dict[str, str]] = {
        "SR": {m: f"{number(r.get('sr'))} <small>{esc(interval(r.get('sr_low'), r.get('sr_high')))}</small>"
               for m, r in lines.items()},
        "MEI": {m: number(r.get("mei")) for m, r in lines.items()},
        "CE": {m: number(r.get("ce")) for m, r in lines.items()},
        "HC": {m: number(r.get("hc"), 2) for m, r in lines.items()},
        "BT claims exact": {m: number(r.get("bt_claim_exact"), 2) for m, r in lines.items()},
        "v1.1 score": {m: number(r.get("v11_score")) for m, r in lines.items()},
    }  # fmt: skip
    html = ['<p class="note">HC: moves through a wall per trial. v1.1 score: HalluMaze v1.1 scoring as coded, '
            "which believed the model's claimed counts; for comparison only (see the liar baseline).</p>"]  # fmt: skip
    for title, key, metrics in (
        ("Mirage on minus off (paired on the same seeds)", "mirage_on_minus_off", ("score", "sr", "mei")),
        ("Ariadne's Thread: hint (B) minus placebo (C)", "ariadne_b_minus_c", ("sr", "score")),
    ):
        by_model = benchmark.get(key) or {}
        if not by_model:
            continue
        rows = []
        for model, result in sorted(by_model.items()):
            cells = [esc(model)]
            for metric in metrics:
                d = result.get(metric) or {}
                diff = d.get("mean_diff")
                star = " *" if d.get("excludes_zero") else ""
                cells.append(f"{number(diff)} {esc(interval(d.get('low'), d.get('high')))} n={esc(d.get('n'))}{star}")
            rows.append(cells)
        html.append(f"<h4>{esc(title)}</h4>" + table(["model", *(m.upper() for m in metrics)], rows))
    return columns, "\n".join(html)


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


_EXTRAS = {"hallumaze": _maze, "hallucinated-packages": _packages, "misled-tests": _misled}


def benchmark_name(protocol: str) -> str:
    """`misled-tests-thinking/v1` -> `misled-tests`: the benchmark whose views apply."""
    name = protocol.split("/")[0]
    return "misled-tests" if name.startswith("misled-tests") else name


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
    columns, extra = _EXTRAS.get(benchmark_name(protocol), lambda b: ({}, ""))(benchmark)
    board = benchmark.get("leaderboard")
    if isinstance(board, Mapping):
        out.append(leaderboard_html(board, columns))
    else:
        out.append('<p class="note">This result has no leaderboard (it was written by an older hallubench).</p>')
    out.append(extra)
    out.append("</section>")
    return "\n".join(out)
