"""The one exception every confinement layer raises when it cannot be applied."""

from __future__ import annotations


class ConfinementError(OSError):
    """A layer could not be applied; `layer` names it (`landlock`, `seccomp`, `namespaces`, ...)."""

    def __init__(self, layer: str, detail: str) -> None:
        super().__init__(f"{layer}: {detail}")
        self.layer = layer
        self.detail = detail
