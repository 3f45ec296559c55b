"""Why a row scored by a newer hallucinated-packages scorer differs from the hosted one: each reference verdict.

`hallubench rescore --task hallucinated-packages/v7 --scorer hallucinated-packages/v8` scores every
hosted v7 row with v8's gate; the report then lists every row whose verdict changed, with the
reference verdicts behind it (`symbol numpy.fake_vectorize_all: unverified -> missing-symbol
(...)`), and counts the rows whose reference verdicts changed without changing the row's.
Verdicts are matched by level and name; a name one version checks and the other does not (v8
gives one verdict per imported JavaScript name, v7 one per import statement) is listed as
"not checked" on that side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..rescore.scorer_changes import Explain, changes_by_model

Row = Mapping[str, Any]


def reference_verdicts(row: Row) -> dict[tuple[str, str], tuple[str, str]]:
    """(level, name) -> (verdict, reason) for every verdict a row logged."""
    out: dict[tuple[str, str], tuple[str, str]] = {}
    verdicts = row.get("verdicts")
    for item in verdicts if isinstance(verdicts, list) else []:
        if isinstance(item, Mapping):
            key = (str(item.get("level")), str(item.get("name")))
            out.setdefault(key, (str(item.get("verdict")), str(item.get("reason", ""))))
    return out


def explain(hosted: Row, rescored: Row) -> dict[str, Any] | None:
    """The row's verdict before and after, and each reference verdict that changed; None if none did."""
    old, new = reference_verdicts(hosted), reference_verdicts(rescored)
    reasons: list[str] = []
    for key in sorted(old.keys() | new.keys()):
        was, now = old.get(key), new.get(key)
        if was is not None and now is not None and was[0] == now[0]:
            continue
        level, name = key
        why = (now or was or ("", ""))[1]
        reasons.append(
            f"{level} {name}: {was[0] if was else 'not checked'} -> {now[0] if now else 'not checked'}"
            + (f" ({why[:240]})" if why else "")
        )
    verdict = (str(hosted.get("verdict")), str(rescored.get("verdict")))
    if not reasons and verdict[0] == verdict[1]:
        return None
    if not reasons:
        reasons.append(f"the row's detail: {rescored.get('detail')}")
    return {"case_id": rescored.get("case_id"), "verdict": verdict, "reasons": reasons}


def scorer_changes(
    rows_by_model: Mapping[str, Sequence[Row]],
    hosted_by_model: Mapping[str, Sequence[Row | None]],
    why: Explain = explain,
) -> dict[str, Any]:
    """Per model (sorted), the rows another protocol's scorer changed against the hosted rows, and `why`."""
    return dict(changes_by_model(dict(sorted(rows_by_model.items())), hosted_by_model, why))


def change_lines(changes: Mapping[str, Any]) -> list[str]:
    """Every row whose verdict changed, with its reasons; then how many more rows changed only inside."""
    lines: list[str] = []
    for model, entry in changes.items():
        verdicts = entry["verdict_changes"]
        lines.append(
            f"{model}: {entry['rows_changed']} of {entry['rows']} rows changed from {entry['from']} to "
            f"{entry['to']}, {len(verdicts)} verdict(s)"
        )
        for change in verdicts:
            old, new = change["verdict"]
            lines.append(f"  case {change['case_id']}: {old} -> {new}")
            lines.extend(f"    {reason}" for reason in change["reasons"])
        inside = entry["rows_changed"] - len(verdicts)
        if inside:
            lines.append(f"  {inside} more row(s): reference verdicts changed, the row's verdict did not")
    return lines
