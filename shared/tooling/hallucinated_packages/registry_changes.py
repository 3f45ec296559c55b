"""Package verdicts that changed between the hosted run's registry check and a rescore's.

A rescore asks the registries again. A name the model invented that was missing at run time
and exists now is the case this benchmark exists for: someone may have registered the
hallucinated name (slopsquatting). Such a change makes the row disagree with the hosted row,
and this module says why, one line per name, instead of leaving a bare score difference.
Pure data handling: standard library only. (The checker flags `registered_since` on a verdict when it is
given the run's start time; a rescore compares with the hosted row's own check time instead.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...hallucinated_packages.evidence import uploaded_after

REGISTERED_SINCE = "registered since the run: possibly slopsquatted"
FOUND_NOW = "exists now, first uploaded before the run: the hosted check may have missed it"
REMOVED_SINCE = "removed since the run (deleted or taken down)"


def _key(verdict: Mapping[str, Any]) -> tuple[Any, Any]:
    return verdict.get("ecosystem"), verdict.get("reference")


def _package_verdicts(row: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    verdicts = row.get("verdicts") or []
    return [v for v in verdicts if isinstance(v, Mapping) and v.get("level") == "package"]


def registry_changes(
    pairs: Iterable[tuple[Mapping[str, Any], Mapping[str, Any] | None]], *, model: str = ""
) -> list[dict[str, Any]]:
    """For (re-scored row, hosted row) pairs: each package name whose existence changed since, once per row."""
    changes: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()  # an install line and an import of one name are one change
    for local, hosted in pairs:
        if not hosted:
            continue
        before = {_key(v): v for v in _package_verdicts(hosted)}
        checked_at = hosted.get("checked_at")
        for now in _package_verdicts(local):
            then = before.get(_key(now))
            if then is None:
                continue
            was, is_ = then.get("verdict"), now.get("verdict")
            first_upload = now.get("first_upload")
            if was == "missing" and is_ == "exists":
                # no upload time to go by: treated as the worrying case
                registered = uploaded_after(first_upload, checked_at) or not first_upload
                change = REGISTERED_SINCE if registered else FOUND_NOW
            elif was == "exists" and is_ == "missing":
                change = REMOVED_SINCE
            else:
                continue
            key = (local.get("case_id"), now.get("ecosystem"), now.get("name") or now.get("reference"), change)
            if key in seen:
                continue
            seen.add(key)
            changes.append(
                {
                    "model": model,
                    "case_id": local.get("case_id"),
                    "ecosystem": now.get("ecosystem"),
                    "reference": now.get("reference"),
                    "name": now.get("name"),
                    "hosted_verdict": was,
                    "verdict_now": is_,
                    "hosted_checked_at": checked_at,
                    "first_upload": first_upload,
                    "change": change,
                }
            )
    return changes


def change_lines(changes: Iterable[Mapping[str, Any]]) -> list[str]:
    """Markdown lines, one per changed name."""
    lines = []
    for change in changes:
        uploaded = f", first upload {change['first_upload']}" if change.get("first_upload") else ""
        lines.append(
            f"- **{change['ecosystem']} `{change['name'] or change['reference']}`** ({change['model']}, "
            f"case {change['case_id']}): {change['change']} (hosted check {change['hosted_checked_at']}: "
            f"{change['hosted_verdict']}; now: {change['verdict_now']}{uploaded})"
        )
    return lines
