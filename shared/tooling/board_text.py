"""What a leaderboard can show, in lines of text: the saturation verdict, each rank with its interval, how many
pairs are separable after the adjustment (named), and the drift of a slug between runs.

Shared by `rescore`'s text and Markdown for every benchmark whose report carries a leaderboard
(`hallubench.tooling.leaderboard`), so the same sentences appear whatever the benchmark.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def rank_text(entry: Mapping[str, Any], rank: int) -> str:
    """`2 [1-3]`: the place and its interval (a single place when the interval is one place)."""
    low, high = entry.get("rank_low"), entry.get("rank_high")
    if low is None or high is None:
        return str(rank)
    return f"{rank} [{low}]" if low == high else f"{rank} [{low}-{high}]"


def at_the_ends(saturation: Mapping[str, Any]) -> str:
    """`at the floor (0): 1 of 5; at the ceiling (1): 0 of 5`: the saturation verdict's shares as counts."""
    models = int(saturation.get("models") or 0)
    floor = round(float(saturation.get("share_at_floor") or 0.0) * models)
    ceiling = round(float(saturation.get("share_at_ceiling") or 0.0) * models)
    return f"at the floor (0): {floor} of {models}; at the ceiling (1): {ceiling} of {models}"


def board_lines(board: Mapping[str, Any]) -> list[str]:
    """The leaderboard's verdicts, one per line (no table: each benchmark prints its own)."""
    direction = "higher is better" if board.get("higher_is_better") else "lower is better"
    lines = [f"What this board can show ({board.get('metric')}, {direction}):"]
    saturation = board.get("saturation")
    if isinstance(saturation, Mapping):
        lines.append(f"  {saturation.get('text')}")
        lines.append(f"  {at_the_ends(saturation)}")
    entries = [e for e in board.get("entries") or [] if isinstance(e, Mapping) and e.get("value") is not None]
    if entries:
        confidence = 100 * float(board.get("confidence") or 0.95)
        places = ", ".join(f"{rank_text(e, i)} {e.get('name')}" for i, e in enumerate(entries, start=1))
        lines.append(f"  ranks with {confidence:g}% rank intervals: {places}")
    pairs = [p for p in board.get("pairs") or [] if isinstance(p, Mapping)]
    if pairs:
        separable = sum(1 for p in pairs if p.get("separable"))
        adjustment = board.get("adjustment") or "holm"
        groups = "; ".join(
            f"{g.get('label')}: {', '.join(str(m) for m in g.get('members') or [])}"
            for g in board.get("groups") or []
            if isinstance(g, Mapping)
        )
        lines.append(f"  separable pairs: {separable} of {len(pairs)} ({adjustment}-adjusted); groups: {groups}")
    lines.append(f"  method: {board.get('method')}")
    return lines


def drift_lines(drifts: Sequence[Mapping[str, Any]], notes: Sequence[str]) -> list[str]:
    """One line per model whose runs on different days were compared, then why others were not."""
    if not drifts and not notes:
        return []
    lines = ["Drift (same slug, runs started on different days; paired over shared cases):"]
    lines += [f"  {'FLAGGED ' if d.get('flagged') else ''}{d.get('text')}" for d in drifts]
    lines += [f"  not compared: {note}" for note in notes]
    return lines
