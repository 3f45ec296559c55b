"""One line that says how model-written code was contained, for text reports and the command line."""

from __future__ import annotations

from typing import Any


def describe_layers(layers: dict[str, Any]) -> str:
    """`bubblewrap 0.8.0; namespaces user, mount, ...; landlock ABI 7 (files, tcp, scope); ...; missing: none`."""
    parts = [str(layers.get("jail", "no jail"))]
    namespaces = layers.get("namespaces") or []
    parts.append("namespaces " + ", ".join(map(str, namespaces)) if namespaces else "no namespaces")
    if layers.get("read_only_view"):
        parts.append("read-only view")
    landlock = layers.get("landlock")
    if isinstance(landlock, dict):
        enforced = [name for name in ("files", "tcp", "scope") if landlock.get(name)]
        parts.append(f"landlock ABI {landlock.get('abi')} ({', '.join(enforced) or 'nothing'})")
    seccomp = layers.get("seccomp")
    if isinstance(seccomp, dict):
        parts.append(f"seccomp ({seccomp.get('refused_calls')} calls refused)")
    if layers.get("user_outside"):
        parts.append(f"as {layers['user_outside']}")
    parts.append(f"network {layers.get('network', '?')}")
    missing = layers.get("missing") or []
    parts.append("missing: " + (", ".join(map(str, missing)) if missing else "none"))
    return "; ".join(parts)
