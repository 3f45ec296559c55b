"""Why a hallumaze v2 row re-scored by v3 differs from the hosted one: the fields that changed, and the reason.

`hallubench rescore --task hallumaze/v2 --scorer hallumaze/v3` re-scores every hosted v2 row
with v3's scorer; the report then lists every row whose verdict changed, and counts the rows
whose scores changed, each with the reason the v3 changes give for it (the reasons are those of
`tests/hallumaze/data/v3_changes.json`, which the differential tests hold the scorer to). A
difference no listed change explains is reported as such, never hidden. The declaration names
`explain` for the pair (2, 3) (`ScorerChange(2, 3, ...)`); a later pair gets a module of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...hallumaze.result_types import ERROR
from ..rescore.scorer_changes import changed_fields

REASONS = {
    "brs": "BRS is lure resistance in v3 (resists / exposures on the verified walk); v2 kept v1.1's formula, "
    "which gives 1.0 to a failed trial that never crosses a wall",
    "final_path": "FINAL_PATH is read where its label stands (v2 located it in the upper-cased text, which "
    "characters such as 'ß' lengthen, and took 'ﬁnal_path' for it)",
    "confidence_log": "CONFIDENCE_LOG is read where its label stands (v2 located it in the upper-cased text, "
    "which characters such as 'ß' lengthen)",
    "unscorable": "v2's scorer raised on this reply (e.g. a number longer than int() reads); v3 scores it",
}
# The fields each change moves, beside the score, its basis and the detail line that follow from them.
_FIELDS = {
    "brs": ("scores.brs",),
    "final_path": (
        "scores.sr",
        "scores.hrr",
        "scores.mei",
        "scores.final_path.",
        "scores.format.final_path_found",
        "verdict",
    ),
    "confidence_log": ("scores.ce", "scores.brier", "scores.calibration."),
}
_FOLLOWING = ("scores.score", "scores.score_basis", "detail")


def explain(hosted: Mapping[str, Any], rescored: Mapping[str, Any]) -> dict[str, Any] | None:
    """What differs between a hosted row and the newer scorer's row of the same case, and why; None if nothing.

    Numbers compare as a run file stores them (3 and 3.0 are equal); the rows' identity fields
    (which protocol and task file made them) always differ and are not reported.
    """
    old, new, changed = changed_fields(hosted, rescored)
    if not changed:
        return None
    reasons: list[str] = []
    if old.get("verdict") == ERROR and new.get("verdict") != ERROR:
        reasons.append("unscorable")
        changed_left: list[str] = []
    else:
        explained = set(_FOLLOWING)
        for reason, prefixes in _FIELDS.items():
            hits = [key for key in changed if key.startswith(prefixes)]
            if hits:
                reasons.append(reason)
                explained.update(hits)
        changed_left = [key for key in changed if key not in explained]
    return {
        "case_id": rescored.get("case_id"),
        "verdict": [hosted.get("verdict"), rescored.get("verdict")],
        "score": [_score(hosted), _score(rescored)],
        "changed": changed,
        "reasons": [REASONS[reason] for reason in reasons]
        + ([f"not explained by a listed v3 change: {', '.join(changed_left)}"] if changed_left else []),
        "reason_ids": reasons + (["unexplained"] if changed_left else []),
    }


def _score(row: Mapping[str, Any]) -> float | None:
    scores = row.get("scores")
    return float(scores["score"]) if isinstance(scores, Mapping) and scores.get("score") is not None else None
