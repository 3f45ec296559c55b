"""hallucinated-packages on the report page (its `page_view` hook): the other rates, flags, registry changes.

The generic leaderboard (the hallucinated package rate per reference) gets a column per other rate,
each with its denominator, unverified share and interval; under it come the models' flags and the
names whose existence changed since the hosted run; a row's drill-down lists every name and symbol
it checked with the registry evidence behind its verdict (`page_view.js`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from ..report_html.markup import esc, interval, number
from ..report_html.rowset import PageRow
from ..report_html.view import PageView


def _rate(rate: Any) -> str:
    if not isinstance(rate, Mapping):
        return ""
    ci = rate.get("ci95") or [None, None]
    return (
        f'{number(rate.get("rate"))} <small class="d">({esc(rate.get("numerator"))}/{esc(rate.get("denominator"))}'
        f"{', unverified ' + esc(rate.get('unverified')) if rate.get('unverified') else ''}) "
        f"{esc(interval(ci[0], ci[1]))}</small>"
    )


def page_view(result: Mapping[str, Any], rows: Sequence[PageRow]) -> PageView:
    benchmark = result.get("benchmark")
    benchmark = benchmark if isinstance(benchmark, Mapping) else {}
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
    script = resources.files(__package__).joinpath("page_view.js").read_text(encoding="utf-8")
    return PageView(columns=columns, after_board="\n".join(html), script=script)
