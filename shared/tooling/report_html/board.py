"""The leaderboard section: ranked entries with interval bars, denominators and the separable groups.

It reads the benchmark report's `leaderboard` (see `hallubench.leaderboard`): the models and the
simulated baselines side by side, each value with its bootstrap interval drawn as a bar on one
shared axis, the counts behind it, the letters of the groups it belongs to, and then every pair
that cannot be told apart, with its paired difference interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .markup import esc, interval, number

BAR_WIDTH = 160
MIN_SHARED = 2  # shared units a paired interval needs (`hallubench.tooling.leaderboard`)
BAR_HEIGHT = 16


def axis_of(entries: Sequence[Mapping[str, Any]]) -> tuple[float, float]:
    """The bars' shared axis: 0 to 1 for rates, else from 0 (or the lowest value) to the highest."""
    values = [float(v) for e in entries for v in (e.get("value"), e.get("low"), e.get("high")) if v is not None]
    if not values or (min(values) >= 0.0 and max(values) <= 1.0):
        return 0.0, 1.0
    low, high = min([*values, 0.0]), max(values)
    return low, high if high > low else low + 1.0


def interval_bar(entry: Mapping[str, Any], axis: tuple[float, float]) -> str:
    """An inline SVG: the axis, the interval as a band and the value as a dot."""
    low_axis, high_axis = axis

    def x(value: float) -> float:
        return 4 + (BAR_WIDTH - 8) * (value - low_axis) / (high_axis - low_axis)

    value = entry.get("value")
    if value is None:
        return '<span class="na">undefined</span>'
    parts = [
        f'<svg class="bar" width="{BAR_WIDTH}" height="{BAR_HEIGHT}" viewBox="0 0 {BAR_WIDTH} {BAR_HEIGHT}" '
        f'role="img" aria-label="{esc(number(value))} {esc(interval(entry.get("low"), entry.get("high")))}">',
        f'<line x1="4" y1="8" x2="{BAR_WIDTH - 4}" y2="8" class="axis"/>',
    ]
    if entry.get("low") is not None and entry.get("high") is not None:
        left, right = x(float(entry["low"])), x(float(entry["high"]))
        parts.append(f'<rect x="{left:.1f}" y="3" width="{max(right - left, 1.5):.1f}" height="10" class="band"/>')
    parts.append(f'<circle cx="{x(float(value)):.1f}" cy="8" r="4" class="dot"/></svg>')
    return "".join(parts)


def _pair_text(pair: Mapping[str, Any], unit: str) -> str:
    why = pair.get("why")
    diff = pair.get("diff")
    shown = "n/a" if diff is None else f"{'+' if diff >= 0 else ''}{number(diff)}"
    span = interval(pair.get("low"), pair.get("high"))
    # the interval is the evidence shown; separability is the adjusted test, so its p-value stands beside it
    adjusted = pair.get("p_adjusted")
    tested = f", adjusted p {number(adjusted)}" if isinstance(adjusted, (int, float)) else ""
    return (
        f"<li><b>{esc(pair.get('a'))}</b> vs <b>{esc(pair.get('b'))}</b>: {esc(shown)} {esc(span)} "
        f"over {esc(pair.get('n'))} shared {esc(unit)}(s){esc(tested)}"
        + (f" <small>({esc(why)})</small>" if why else "")
        + "</li>"
    )


def leaderboard_html(board: Mapping[str, Any], extra_columns: Mapping[str, Mapping[str, str]] | None = None) -> str:
    """The table, the groups and the pairs; `extra_columns` maps a column name to each entry's cell (HTML).

    The value's interval and bar sit under it, the counts one per line, so the table fits the page's width.
    """
    entries = list(board.get("entries") or [])
    axis = axis_of(entries)
    direction = "higher is better" if board.get("higher_is_better") else "lower is better"
    extras = dict(extra_columns or {})
    confidence = float(board.get("confidence") or 0.95)
    head = ["#", "group", "entry", "kind", f"{board.get('metric')} ({100 * confidence:g}% interval)", "n", "counts"]
    head += list(extras)
    rows = []
    for rank, entry in enumerate(entries, start=1):
        name = str(entry.get("name"))
        cells = [
            str(rank) if entry.get("value") is not None else "–",
            group_letters(entry.get("groups") or []),
            f"<b>{esc(name)}</b>",
            esc(entry.get("kind")),
            f'<span class="v">{number(entry.get("value"))}</span> '
            f'<small class="d">{esc(interval(entry.get("low"), entry.get("high")))}</small>{interval_bar(entry, axis)}',
            esc(entry.get("units")),
            "<br>".join(f"{esc(k)} {esc(v)}" for k, v in (entry.get("denominators") or {}).items()),
            *(column.get(name, "") for column in extras.values()),
        ]
        body = "".join(f"<td>{cell}</td>" for cell in cells)
        rows.append(f'<tr class="kind-{esc(entry.get("kind"))}" data-entry="{esc(name)}">{body}</tr>')
    header = "".join(f'<th scope="col">{esc(h)}</th>' for h in head)
    out = [
        f'<p class="note">{esc(board.get("metric"))}, {direction}. Bars share one axis '
        f"({number(axis[0], 2)} to {number(axis[1], 2)}): the dot is the value, the band its interval.</p>",
        f'<div class="wide"><table class="leaderboard"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>",
        separability_html(board),
    ]
    return "\n".join(out)


def group_letters(groups: Sequence[Any]) -> str:
    """The group letters of one entry, each in its badge; `-` for none."""
    return " ".join(f'<span class="group g-{esc(g)}">{esc(g)}</span>' for g in groups) or "-"


def separability_html(board: Mapping[str, Any]) -> str:
    """The groups no paired interval can split, then the pairs: those that cannot be told apart, then the rest.

    When no pair shares enough units for an interval, one line says so instead of a list of `n/a`.
    """
    entries = list(board.get("entries") or [])
    unit = str(board.get("unit") or "case")
    groups: list[Mapping[str, Any]] = list(board.get("groups") or [])
    pairs: list[Mapping[str, Any]] = list(board.get("pairs") or [])
    together = [p for p in pairs if not p.get("separable")]
    apart = [p for p in pairs if p.get("separable")]
    method = str(board.get("method") or "")
    out = ['<h4>Separable groups</h4><ul class="groups">']
    for group in groups:
        members = ", ".join(esc(m) for m in group.get("members") or [])
        out.append(f'<li data-group="{esc(group.get("label"))}"><span class="group">{esc(group.get("label"))}</span> '
                   f"{members}</li>")  # fmt: skip
    out.append("</ul>")
    out.append(
        f'<p class="note">Entries sharing a letter cannot be told apart; entries with no letter in common can. '
        f"{esc(method[:1].upper() + method[1:])}.</p>"
    )
    if len(entries) < 2:
        out.append('<p class="note">One entry only: nothing to compare it with.</p>')
    elif pairs and all(p.get("low") is None or p.get("high") is None for p in pairs):
        most = max(int(p.get("n") or 0) for p in pairs)
        out.append(
            f'<p class="note gap">No pair of entries shares enough {esc(unit)}s for a paired interval: at least '
            f"{MIN_SHARED} needed, and the most any pair shares is {most}. Nothing can be told apart yet.</p>"
        )
    elif together:
        out.append(f'<h4>Pairs that cannot be told apart ({len(together)})</h4><ul class="pairs together">')
        out.extend(_pair_text(p, unit) for p in together)
        out.append("</ul>")
    else:
        out.append("<p>Every pair of entries is separable.</p>")
    if apart:
        out.append(f'<details><summary>Separable pairs ({len(apart)})</summary><ul class="pairs apart">')
        out.extend(_pair_text(p, unit) for p in apart)
        out.append("</ul></details>")
    return "\n".join(out)
