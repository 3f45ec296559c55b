"""Per model, the rows a newer scorer changed against the hosted rows: the part every benchmark report shares.

Each benchmark explains one changed row in its own terms (`explain(hosted, rescored)` returns a
dict with `verdict` as (hosted, rescored), or None when nothing changed); pairing the rows and
counting them is the same for all, so it lives here once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

Row = Mapping[str, Any]


def changes_by_model(
    rows_by_model: Mapping[str, Sequence[Row]],
    hosted_by_model: Mapping[str, Sequence[Row | None]],
    explain: Callable[[Row, Row], dict[str, Any] | None],
) -> dict[str, dict[str, Any]]:
    """Per model (in the order given), the rows another protocol scored, those `explain` found changed, and how.

    Only rows that a different protocol scored count (a rescore without `--scorer` re-scores with
    the frozen file itself, and `rescore` reports any disagreement there).
    """
    out: dict[str, dict[str, Any]] = {}
    for model, rows in rows_by_model.items():
        pairs = [(h, r) for h, r in zip(hosted_by_model.get(model, []), rows, strict=False) if h is not None]
        compared = [(h, r) for h, r in pairs if h.get("protocol") != r.get("protocol")]
        if not compared:
            continue
        found = [change for h, r in compared if (change := explain(h, r)) is not None]
        out[model] = {
            "from": compared[0][0].get("protocol"),
            "to": compared[0][1].get("protocol"),
            "rows": len(compared),
            "rows_changed": len(found),
            "verdict_changes": [c for c in found if c["verdict"][0] != c["verdict"][1]],
            "changed": found,
        }
    return out
