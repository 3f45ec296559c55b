"""What the board can show, on the page: the saturation verdict above the leaderboard, then under it the rank
intervals as a plot, the power curve of a chosen pair of neighbours and the drift table when a slug ran twice.

Read from the saved result only (the board's `saturation`, `entries` with `rank_low`/`rank_high`, `power`,
and the result's `drift`), like every other section, so `hallubench report RESULT.json` draws the same page.
Without JavaScript the first pair's curve shows; the pair picker only switches which one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..board_text import at_the_ends
from .markup import esc, number, table

PLOT_WIDTH = 420
ROW_HEIGHT = 18
CURVE_WIDTH, CURVE_HEIGHT = 420, 220
_PAD = 36


def saturation_html(board: Mapping[str, Any]) -> str:
    """The verdict in one sentence, at the top of the leaderboard (a warning colour when saturated)."""
    verdict = board.get("saturation")
    if not isinstance(verdict, Mapping):
        return ""
    kind = str(verdict.get("verdict") or "")
    css = "sat-bad" if kind == "saturated" else "sat-warn" if kind == "too few cases" else "sat-ok"
    ends = at_the_ends(verdict)
    return (
        f'<p id="saturation" class="saturation {css}" data-verdict="{esc(kind)}"><b>Headroom:</b> '
        f"{esc(verdict.get('text'))} <small>{esc(ends[:1].upper() + ends[1:])}.</small></p>"
    )


def rank_plot_html(board: Mapping[str, Any]) -> str:
    """Each entry's rank interval as a horizontal segment over the places 1..n, its rank as a dot."""
    entries = [e for e in board.get("entries") or [] if isinstance(e, Mapping) and e.get("value") is not None]
    spans = [(i, e) for i, e in enumerate(entries, start=1) if e.get("rank_low") is not None]
    if len(spans) < 2:
        return ""
    places = len(entries)
    label_width = 190
    width = label_width + PLOT_WIDTH

    def x(place: float) -> float:
        return label_width + 10 + (PLOT_WIDTH - 20) * (place - 1) / max(places - 1, 1)

    height = ROW_HEIGHT * len(spans) + 24
    parts = [
        f'<svg class="ranks" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="rank intervals">'
    ]
    for place in range(1, places + 1):
        parts.append(f'<text x="{x(place):.1f}" y="{height - 6}" class="tick">{place}</text>')
    for row, (rank, entry) in enumerate(spans):
        y = 12 + row * ROW_HEIGHT
        low, high = float(entry["rank_low"]), float(entry["rank_high"])
        title = f"{entry.get('name')}: rank {rank}, {board_confidence(board)} rank interval {int(low)}-{int(high)}"
        parts += [
            f"<g><title>{esc(title)}</title>",
            f'<text x="{label_width - 6}" y="{y + 4}" class="label">{esc(entry.get("name"))}</text>',
            f'<line x1="{x(low):.1f}" y1="{y}" x2="{x(high):.1f}" y2="{y}" class="span"/>',
            f'<circle cx="{x(rank):.1f}" cy="{y}" r="4" class="dot"/></g>',
        ]
    parts.append("</svg>")
    return (
        "<h4>Rank intervals</h4>"
        f'<p class="note">Each line spans the places an entry could hold ({board_confidence(board)} bootstrap '
        "over cases); the dot is its rank here. Overlapping lines: the order between them is not settled.</p>"
        + "".join(parts)
    )


def board_confidence(board: Mapping[str, Any]) -> str:
    return f"{100 * float(board.get('confidence') or 0.95):g}%"


def power_html(board: Mapping[str, Any]) -> str:
    """The power curve of each pair of neighbours (one shown at a time), at the current cases and at 4x."""
    power = board.get("power")
    if not isinstance(power, Mapping):
        return ""
    pairs = [p for p in power.get("pairs") or [] if isinstance(p, Mapping)]
    if not pairs:
        return ""
    options = "".join(
        f'<option value="{i}">{esc(p.get("first"))} vs {esc(p.get("second"))}</option>' for i, p in enumerate(pairs)
    )
    figures = "".join(_curve_figure(i, p, power) for i, p in enumerate(pairs))
    return (
        "<h4>Power for neighbours in the ranking</h4>"
        f'<p class="note">The chance that a rerun of this design tells the chosen pair apart, for each true '
        f"difference: {esc(power.get('method'))}. The dashed line is the power with four times the cases.</p>"
        f'<label>Pair <select id="hb-power-pair">{options}</select></label>{figures}'
    )


def _curve_figure(index: int, pair: Mapping[str, Any], power: Mapping[str, Any]) -> str:
    hidden = "" if index == 0 else " hidden"
    name = f"{pair.get('first')} vs {pair.get('second')}"
    mdd = pair.get("mdd")
    target = float(power.get("power") or 0.8)
    caption = (
        f"{esc(name)}: {esc(pair.get('cases'))} shared cases x {number(pair.get('repeats'), 1)} repeats; "
        + (
            f"the smallest difference found with {100 * target:g}% power is {number(mdd)}"
            if mdd is not None
            else "no curve: " + esc("; ".join(str(n) for n in pair.get("notes") or []) or "nothing to plan from")
        )
        + f"; observed difference {number(pair.get('observed_diff'))}."
    )
    curve = [p for p in pair.get("curve") or [] if p[1] is not None]
    scaled = [p for p in pair.get("scaled_curve") or [] if p[1] is not None]
    svg = _curve_svg(curve, scaled, target, mdd) if curve else ""
    return f'<figure class="power" data-pair="{index}"{hidden}>{svg}<figcaption>{caption}</figcaption></figure>'


def _curve_svg(curve: Sequence[Sequence[float]], scaled: Sequence[Sequence[float]], target: float, mdd: Any) -> str:
    top = max(float(p[0]) for p in curve) or 1.0
    inner_w, inner_h = CURVE_WIDTH - 2 * _PAD, CURVE_HEIGHT - 2 * _PAD

    def x(diff: float) -> float:
        return _PAD + inner_w * diff / top

    def y(chance: float) -> float:
        return _PAD + inner_h * (1.0 - chance)

    def path(points: Sequence[Sequence[float]]) -> str:
        return " ".join(f"{x(float(d)):.1f},{y(float(p)):.1f}" for d, p in points)

    parts = [
        f'<svg width="{CURVE_WIDTH}" height="{CURVE_HEIGHT}" viewBox="0 0 {CURVE_WIDTH} {CURVE_HEIGHT}" role="img" '
        'aria-label="power curve">',
        f'<line x1="{_PAD}" y1="{y(0)}" x2="{CURVE_WIDTH - _PAD}" y2="{y(0)}" class="axis"/>',
        f'<line x1="{_PAD}" y1="{y(0)}" x2="{_PAD}" y2="{y(1)}" class="axis"/>',
        f'<line x1="{_PAD}" y1="{y(target):.1f}" x2="{CURVE_WIDTH - _PAD}" y2="{y(target):.1f}" class="target"/>',
        f'<text x="{_PAD - 4}" y="{y(target) + 4:.1f}" class="tick end">{100 * target:g}%</text>',
        f'<text x="{_PAD - 4}" y="{y(1) + 4:.1f}" class="tick end">100%</text>',
        f'<text x="{_PAD}" y="{CURVE_HEIGHT - 10}" class="tick">0</text>',
        f'<text x="{CURVE_WIDTH - _PAD}" y="{CURVE_HEIGHT - 10}" class="tick end">difference {number(top)}</text>',
        f'<polyline points="{path(curve)}" class="curve"/>',
    ]
    if scaled:
        parts.append(f'<polyline points="{path(scaled)}" class="curve scaled"/>')
    if mdd is not None:
        parts.append(f'<circle cx="{x(float(mdd)):.1f}" cy="{y(target):.1f}" r="4" class="dot"/>')
    parts.append("</svg>")
    return "".join(parts)


def drift_html(drift: Any) -> str:
    """The drift table: per slug run on different days, each metric's change with its interval and the call."""
    if not isinstance(drift, Mapping):
        return ""
    runs = [d for d in drift.get("runs") or [] if isinstance(d, Mapping)]
    notes = [str(n) for n in drift.get("notes") or []]
    if not runs and not notes:
        return ""
    rows = []
    for found in runs:
        for metric in found.get("metrics") or []:
            flagged = bool(metric.get("flagged"))
            rows.append(
                [
                    f"<b>{esc(found.get('model'))}</b>",
                    f"{esc(found.get('earlier_run'))} → {esc(found.get('later_run'))}",
                    esc(metric.get("metric")),
                    number(metric.get("earlier")),
                    number(metric.get("later")),
                    f"{number(metric.get('change'))} [{number(metric.get('low'))}, {number(metric.get('high'))}]",
                    number(metric.get("p_adjusted")),
                    esc(metric.get("cases")),
                    '<span class="flag">same slug, different behaviour</span>' if flagged else "no significant change",
                ]
            )
    out = [
        '<h4 id="drift">Drift: the same slug at different times</h4>',
        '<p class="note">Rows of one model slug from runs started on different days, the earliest against the '
        "latest, paired over the cases both ran (adjusted p over the metrics, Holm).</p>",
    ]
    if rows:
        head = ["model", "runs", "metric", "earlier", "later", "change [95%]", "p (adj.)", "cases", "call"]
        out.append(table(head, rows, css="drift", numeric=frozenset({3, 4, 6, 7})))
    out += [f'<p class="note">Not compared: {esc(note)}</p>' for note in notes]
    return "\n".join(out)
