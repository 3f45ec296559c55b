"""Where a label of the answer format (BACKTRACK_COUNT, CONFIDENCE_LOG, FINAL_PATH, ...) stands in a reply.

Labels are matched case-insensitively, the way `re.IGNORECASE` matches (simple case folding,
so "Final_Path" and "FİNAL_PATH" are labels, "ﬁnal_path" is not), at their place in the text
itself. hallumaze v2 located CONFIDENCE_LOG and FINAL_PATH by index into `text.upper()`, which
is a different text wherever upper-casing changes a length ("ß" -> "SS", "ﬁ" -> "FI"): it then
read the entries from the wrong place.

A case-insensitive scan tries every position of the text, which is slow on a long reply. Every
label here holds exactly one "_", which has no other case, and the letters after it have no
special case folds either; so a case-sensitive search for "_" and the letters after it, at C
speed, finds every place a label can start, and only those are tried. The matches are the same
as a full scan finds: a label's match cannot overlap another's, since each starts with the
label's letters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator


class Label:
    """A case-insensitive `pattern` that starts with `label` (which holds one "_")."""

    def __init__(self, label: str, pattern: str) -> None:
        head, underscore, tail = label.partition("_")
        if not underscore or "_" in tail or not pattern.lower().startswith(label.lower()):
            raise ValueError(f"{label!r}: a label holds one '_' and starts its pattern")
        if not tail.isascii() or not tail.isalpha() or set(tail.lower()) & set("iks"):
            raise ValueError(f"{label!r}: the letters after '_' must be ASCII without special case folds (i, k, s)")
        self.pattern = re.compile(pattern, re.I)
        self._offset = len(head)  # where the "_" stands in every match
        self._candidates = re.compile("_" + "".join(f"[{ch.upper()}{ch.lower()}]" for ch in tail))

    def finditer(self, text: str, start: int = 0) -> Iterator[re.Match[str]]:
        """Every match at or after `start`, in order (what `pattern.finditer` finds)."""
        for candidate in self._candidates.finditer(text, start + self._offset):
            match = self.pattern.match(text, candidate.start() - self._offset)
            if match is not None:
                yield match

    def first(self, text: str, start: int = 0, stop: int | None = None) -> re.Match[str] | None:
        """The first match that starts in [start, stop) (what `pattern.search` finds)."""
        for match in self.finditer(text, start):
            if stop is not None and match.start() >= stop:
                return None
            return match
        return None

    def last(self, text: str) -> re.Match[str] | None:
        """The last match (what the last item of `pattern.finditer` is)."""
        starts = [candidate.start() for candidate in self._candidates.finditer(text, self._offset)]
        for at in reversed(starts):
            match = self.pattern.match(text, at - self._offset)
            if match is not None:
                return match
        return None
