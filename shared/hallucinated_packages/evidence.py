"""What a registry lookup saw, kept beside every verdict so a reader can re-check it.

A verdict without evidence cannot be audited later, when the live registry has drifted (names
get registered, releases get yanked). Each HTTP attempt leaves one `Evidence`: the URL, the
status (None when no response came back) and the time, plus a short note on how it was judged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any


def utc_now() -> str:
    """Current time as RFC 3339 UTC with second precision (`2026-11-30T12:00:00Z`)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def uploaded_after(first_upload: object, moment: object) -> bool:
    """Whether a name's first upload is later than `moment` (both RFC 3339 UTC text): registered since then."""
    if not (isinstance(first_upload, str) and isinstance(moment, str)):
        return False
    return bool(first_upload) and bool(moment) and first_upload > moment


@dataclass(frozen=True)
class Evidence:
    """One HTTP attempt (or one offline judgement) behind a verdict."""

    url: str
    status: int | None
    checked_at: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
