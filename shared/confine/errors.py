"""The one exception every confinement layer raises when it cannot be applied."""

from __future__ import annotations

from ..errors import HallubenchError


class ConfinementError(HallubenchError, OSError):
    """A layer could not be applied; `layer` names it (`landlock`, `seccomp`, `namespaces`, ...)."""

    def __init__(self, layer: str, detail: str) -> None:
        super().__init__(f"{layer}: {detail}")
        self.layer = layer
        self.detail = detail
