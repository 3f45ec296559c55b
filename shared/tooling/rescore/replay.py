"""A Conversation that replays a logged chat and checks every message the protocol sends.

The protocol's own `play` runs again, unchanged; each `system`/`ask` call must find the very
same text at the same place in the logged conversation, and `ask` returns the logged reply.
So the prompt for call k is verified as the concatenation of requests 1..k, and the reply is
rescored exactly as the hosted scorer saw it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...conversation import ModelCallError


@dataclass(frozen=True)
class LoggedMessage:
    """One message of a logged conversation, with its decoded text."""

    role: str  # "system" | "user" | "assistant" | other roles kbench may write
    text: str


@dataclass(frozen=True)
class PromptMismatch:
    """Where the re-rendered conversation first departs from the logged one."""

    message_index: int
    call_index: int
    expected_role: str
    logged_role: str | None
    offset: int
    rendered_context: str
    logged_context: str
    reason: str
    rendered_text: str = ""  # the whole message the protocol sent, for reports that show both texts
    logged_text: str = ""  # the whole logged message ("" when the log ends before it)

    def describe(self) -> str:
        where = f"message {self.message_index + 1} (model call {self.call_index})"
        if self.logged_role is None:
            return f"{where}: {self.reason}"
        return (
            f"{where}: {self.reason} at character {self.offset}: "
            f"rendered {self.rendered_context!r} vs logged {self.logged_context!r}"
        )


def _first_difference(a: str, b: str) -> int:
    for index, (left, right) in enumerate(zip(a, b, strict=False)):
        if left != right:
            return index
    return min(len(a), len(b))


def _context(text: str, offset: int, width: int = 30) -> str:
    start = max(0, offset - width)
    return ("…" if start else "") + text[start : offset + width] + ("…" if offset + width < len(text) else "")


class ReplayConversation:
    """Feeds logged replies back to `play`, recording the first mismatch."""

    def __init__(self, messages: Sequence[LoggedMessage], error: type[Exception] = ModelCallError) -> None:
        self._messages = list(messages)
        self._error = error
        self._position = 0
        self.calls = 0
        self.mismatch: PromptMismatch | None = None
        self.exhausted = False

    def _expect(self, role: str, text: str) -> None:
        if self.mismatch is not None:
            raise self._error("replay stopped at an earlier mismatch")
        index = self._position
        if index >= len(self._messages):
            self.exhausted = True
            self.mismatch = PromptMismatch(
                index,
                self.calls,
                role,
                None,
                0,
                _context(text, 0),
                "",
                "the run file ends before this message",
                text,
            )
            raise self._error("the logged conversation ends here (run errored or was cut short)")
        logged = self._messages[index]
        if logged.role != role or logged.text != text:
            offset = _first_difference(text, logged.text) if logged.role == role else 0
            reason = "text differs" if logged.role == role else f"logged role is {logged.role}, protocol sent {role}"
            self.mismatch = PromptMismatch(
                index,
                self.calls,
                role,
                logged.role,
                offset,
                _context(text, offset),
                _context(logged.text, offset),
                reason,
                text,
                logged.text,
            )
            raise self._error(f"prompt mismatch: {self.mismatch.describe()}")
        self._position += 1

    def system(self, text: str) -> None:
        self._expect("system", text)

    def ask(self, text: str) -> str:
        self.calls += 1
        self._expect("user", text)
        if self._position >= len(self._messages) or self._messages[self._position].role != "assistant":
            self.exhausted = True
            raise self._error(f"no logged reply to model call {self.calls} (the hosted call failed)")
        reply = self._messages[self._position].text
        self._position += 1
        return reply

    @property
    def leftover(self) -> int:
        """Logged messages the protocol never consumed (a longer hosted conversation)."""
        return len(self._messages) - self._position
