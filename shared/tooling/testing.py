"""Helpers for testing a protocol without a model: a conversation that plays back a script, strictly.

`ScriptedConversation` is what a benchmark's tests (and the generic contract suite) hand to
`play`: it answers each `ask` with the next scripted reply, raises a scripted exception where the
script says so (a failed model call), records every message sent, and raises `ScriptExhausted`
when the protocol asks more than the script holds. Running out is a test failure to be seen,
never an empty reply: an empty string would be scored as if the model had said nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import HallubenchError


class ScriptExhausted(HallubenchError, AssertionError):
    """The protocol asked more questions than the script has replies."""


@dataclass
class ScriptedConversation:
    """Plays back `replies` in order; a reply that is an exception is raised instead of returned."""

    replies: list[str | BaseException] = field(default_factory=list)
    repeat_last: bool = False  # keep answering with the last reply (an agent that always says the same thing)
    sent: list[tuple[str, str]] = field(default_factory=list)  # (role, text) of every message, in order

    @classmethod
    def of(cls, *replies: str | BaseException) -> ScriptedConversation:
        return cls(list(replies))

    @classmethod
    def always(cls, reply: str | BaseException) -> ScriptedConversation:
        """Answers every question with `reply` (or fails every call with it)."""
        return cls([reply], repeat_last=True)

    def system(self, text: str) -> None:
        self.sent.append(("system", text))

    def ask(self, text: str) -> str:
        self.sent.append(("user", text))
        asked = sum(1 for role, _ in self.sent if role == "user")
        if asked > len(self.replies) and not (self.repeat_last and self.replies):
            raise ScriptExhausted(f"question {asked} has no scripted reply (the script holds {len(self.replies)})")
        reply = self.replies[min(asked, len(self.replies)) - 1]
        if isinstance(reply, BaseException):
            raise reply
        return reply

    @property
    def asked(self) -> list[str]:
        """The user messages sent, in order."""
        return [text for role, text in self.sent if role == "user"]

    @property
    def messages(self) -> list[str]:
        """Every message sent (system and user), in order."""
        return [text for _, text in self.sent]

    def extend(self, replies: Iterable[str | BaseException]) -> None:
        self.replies.extend(replies)
