"""The hallumaze leaderboard on the page: the very table `rescore` prints, plus its bars, legend and comparisons.

The columns and every cell's text come from `hallubench.tooling.hallumaze.report.display_table`, the
function the text and Markdown reports use, applied to the same `table` of the JSON result, so
the page and the terminal cannot disagree on a column or a value. Each metric name is explained
by `hallubench.tooling.hallumaze.glossary` (in an `<abbr>` and in the legend under the table), and a
paired comparison without enough pairs says why in one line, in the text report's words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..report_html.board import axis_of, group_letters, interval_bar, separability_html
from ..report_html.markup import abbr, abbreviate, esc
from . import glossary
from .report import (
    COMPARISONS,
    comparison_gap,
    diff_text,
    display_table,
    groups_of,
    legend_labels,
    table_note,
)
from .report import metric_label as label_of


def glossary_protocol(data: Mapping[str, Any]) -> str:
    """The protocol whose scorer made the benchmark's rows (what BRS means depends on it)."""
    benchmark = data.get("benchmark") if isinstance(data.get("benchmark"), Mapping) else {}
    return str((benchmark or {}).get("scored_by") or (data.get("task") or {}).get("protocol") or "")


def page_board(benchmark: Mapping[str, Any], protocol: str) -> str | None:
    """The table, the legend, the groups and pairs, the paired comparisons; None for a result without a table."""
    table = benchmark.get("table")
    board = benchmark.get("leaderboard")
    if not isinstance(table, Mapping) or not isinstance(board, Mapping):
        return None
    titles = glossary.titles(protocol)
    groups = groups_of(board)
    columns, lines = display_table(table, groups)
    bars = [{"value": row.get("score"), "low": row.get("score_low"), "high": row.get("score_high")} for row, _ in lines]
    axis = axis_of(bars)
    head = "".join(
        f'<th scope="col"{" class=num" if column.numeric else ""}>'
        f"{abbr(column.term, titles) if column.term else esc(column.header)}</th>"
        for column in columns
    )
    body = []
    for (row, cells), bar in zip(lines, bars, strict=True):
        name = str(row.get("model"))
        shown = []
        for column, cell in zip(columns, cells, strict=True):
            if column.header == "group":
                html = group_letters(groups.get(name, []))
            elif column.header == "entry":
                html = f"<b>{esc(cell.value)}</b>"
            else:
                html = f'<span class="v">{esc(cell.value)}</span>'
                if cell.detail:
                    html += f' <small class="d">{esc(cell.detail)}</small>'
            if column.header == "score":
                html += interval_bar(bar, axis)
            shown.append(f"<td{' class=num' if column.numeric else ''}>{html}</td>")
        body.append(f'<tr class="kind-{esc(row.get("kind"))}" data-entry="{esc(name)}">{"".join(shown)}</tr>')
    legend = "".join(
        f"<dt>{abbr(term.label, titles)}</dt><dd>{abbreviate(term.title, titles, glossary.WORD)}</dd>"
        for term in (t for t in glossary.terms(protocol) if t.label in legend_labels(columns))
    )
    out = [
        f'<p class="note">Ranked by the verified hallumaze score, the table <code>hallubench rescore</code> prints. '
        f"{esc(table.get('note'))}. Bars share one axis ({axis[0]:.2f} to {axis[1]:.2f}): the dot is the score, the "
        "band its 95% interval.</p>",
        f'<div class="wide"><table class="leaderboard maze-table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>",
        '<details class="legend-box" open><summary>What the columns mean</summary>'
        f'<p class="note">{esc(table_note(grouped=True))}.</p><dl class="glossary">{legend}</dl></details>',
        separability_html(board),
        *(_comparison(benchmark, key, title, keys, titles) for key, title, keys in COMPARISONS),
    ]
    return "\n".join(out)


def _comparison(
    benchmark: Mapping[str, Any], key: str, title: str, keys: tuple[str, ...], titles: Mapping[str, str]
) -> str:
    """One paired comparison per model, or the one line saying why none could be computed."""
    by_model = benchmark.get(key)
    if not isinstance(by_model, Mapping) or not by_model:
        return ""
    heading = f'<h4 id="{esc(key)}">{esc(title)} <small>(* = interval excludes 0)</small></h4>'
    gap = comparison_gap(key, by_model, keys)
    if gap is not None:
        return f'{heading}<p class="note gap">{esc(gap)}</p>'
    head = "".join(f'<th scope="col">{abbr(label_of(k), titles)}</th>' for k in keys)
    rows = "".join(
        f"<tr><td>{esc(model)}</td>"
        + "".join(f"<td>{esc(diff_text((result or {}).get(k) or {}))}</td>" for k in keys)
        + "</tr>"
        for model, result in by_model.items()
    )
    return f'{heading}<div class="wide"><table class="paired"><thead><tr><th scope="col">model</th>{head}</tr>' \
        f"</thead><tbody>{rows}</tbody></table></div>"  # fmt: skip
