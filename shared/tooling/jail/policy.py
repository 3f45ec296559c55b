"""What a jail must enforce, which layers a user may accept missing, and the refusal when one is missing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...errors import HallubenchError

# The layers a machine can lack, in the order they are applied, with how to get each one.
LAYERS: dict[str, str] = {
    "bubblewrap": "install Debian's bubblewrap (apt-get install bubblewrap): the namespaces and the read-only view",
    "user_namespace": "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
    "user.max_user_namespaces > 0; a container may need --security-opt seccomp=unconfined)",
    "landlock": "a kernel with Landlock (Linux 5.13 or later, with landlock in the lsm= boot parameter)",
    "seccomp": "libseccomp (apt-get install libseccomp2)",
}
SIMULATE_ENV = "HALLUBENCH_JAIL_SIMULATE_MISSING"  # comma-separated layers to treat as missing (a diagnostic)


class JailRefused(HallubenchError, RuntimeError):
    """A layer the jail needs is missing and the user did not accept running without it."""

    def __init__(self, missing: list[tuple[str, str]]) -> None:
        self.missing = missing
        lines = [f"{layer}: {why}; to get it: {LAYERS.get(layer, '')}" for layer, why in missing]
        names = ",".join(layer for layer, _ in missing)
        super().__init__(
            "refusing to execute model-written code: the jail would lack "
            + "; ".join(lines)
            + f". To run anyway with a weaker jail, pass --jail-without {names} (every result records it)."
        )


class JailFailed(HallubenchError, RuntimeError):
    """The jail could not be started or its worker stopped answering: a harness error, never a model failure."""


@dataclass(frozen=True)
class JailPolicy:
    """What the jail allows beyond its defaults (no network, nothing writable but its scratch tmpfs).

    `network`: "none" (a namespace of its own with loopback only) or "host" (needed to reach a
    model endpoint), where Landlock still allows TCP connections only to `tcp_connect_ports`.
    `nested_namespaces`: the executor inside makes fresh namespaces per program version itself
    (misled-tests v3), so the outer filter must let it; the executor's own filter then refuses
    them to the code under test. `writable`, `readable`: host paths bound read-write or read-only.
    """

    network: str = "none"
    tcp_connect_ports: tuple[int, ...] = ()
    nested_namespaces: bool = False
    writable: tuple[str, ...] = ()
    readable: tuple[str, ...] = ()
    scratch_bytes: int = 1 << 30
    accept_missing: frozenset[str] = field(default_factory=frozenset)

    def to_json(self) -> dict[str, Any]:
        return {
            "network": self.network,
            "tcp_connect_ports": list(self.tcp_connect_ports),
            "nested_namespaces": self.nested_namespaces,
            "writable": list(self.writable),
            "readable": list(self.readable),
            "scratch_bytes": self.scratch_bytes,
            "accept_missing": sorted(self.accept_missing),
        }


def parse_accepted(values: list[str] | None) -> frozenset[str]:
    """The layers named by `--jail-without` (repeatable, comma-separated); ValueError for an unknown name."""
    names = {part.strip() for value in values or [] for part in value.split(",") if part.strip()}
    unknown = sorted(names - set(LAYERS))
    if unknown:
        raise ValueError(f"unknown jail layer(s) {', '.join(unknown)}; the layers are {', '.join(LAYERS)}")
    return frozenset(names)
