"""The one interface through which a protocol talks to a model.

A protocol's `play` function receives a `Conversation` and never sees kaggle-benchmarks:
in a task file the glue adapts `kbench.llm.prompt` / `kbench.system.send` to it; in
`hallubench rescore` a replay adapter feeds back the logged replies and checks every
message the protocol sends against the run file, byte for byte. Only plain text goes
through, because run files record nothing else (no schema, no tools, no API parameters).
Embedded into task files: standard library only.
"""

from __future__ import annotations

from typing import Protocol

from .errors import HallubenchError


class Conversation(Protocol):
    """One chat with the model under test."""

    def system(self, text: str) -> None:
        """Append a system message (sent with the next `ask`)."""

    def ask(self, text: str) -> str:
        """Send a user message and return the model's reply text."""


class ModelCallError(HallubenchError):
    """The model could not be asked (network, quota, replay ran out): a harness error, never a model failure."""
