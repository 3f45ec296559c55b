"""The leaderboard section: the benchmark's own board when its view has one, else the generic leaderboard.

The generic leaderboard (`board.leaderboard_html`: entries ranked by the headline, interval bars,
counts, group letters) takes the view's extra columns; what the view puts after the board follows
it. Above the board stands the saturation verdict, under it the rank intervals, the power curves and the
drift table (`showable`), whichever board is shown. Which benchmark's view applies is the page's business
(`view.view_hook`); nothing here knows one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .board import leaderboard_html
from .markup import esc
from .showable import drift_html, power_html, rank_plot_html, saturation_html
from .view import PageView


def benchmark_section(data: Mapping[str, Any], view: PageView) -> str:
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
    board = benchmark.get("leaderboard")
    shown = board if isinstance(board, Mapping) else {}
    out.append(saturation_html(shown))  # the verdict above whichever board the benchmark shows
    if view.board is not None:
        out.append(view.board)
    elif isinstance(board, Mapping):
        out.append(leaderboard_html(board, view.columns))
    else:
        out.append('<p class="note">This result has no leaderboard (it was written by an older hallubench).</p>')
    out += [rank_plot_html(shown), power_html(shown), drift_html(data.get("drift"))]
    if view.board is None:
        out.append(view.after_board)
    out.append("</section>")
    return "\n".join(part for part in out if part)
