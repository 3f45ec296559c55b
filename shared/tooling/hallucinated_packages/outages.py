"""Which registries gave no answer while a hallucinated-packages row was scored.

A lookup that got no response (connection refused, name not resolved, timeout) leaves evidence with
no HTTP status; a row scored that way says nothing about the model, only about the network. `rescore`
asks this hook so that an outage on the re-scoring machine reads "registries unreachable", never as
the hosted scores disagreeing. Rows of every version record their lookups' evidence as
`{"url", "status", "note"}` objects somewhere under `verdicts`; the walk does not depend on where.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

NO_ANSWER_NOTES = ("no response:", "timeout after")
MAX_DEPTH = 12


def registry_outages(row: dict[str, Any]) -> list[str]:
    """One `"<scheme>://<host>: <what happened>"` per registry that gave no answer, in the order met."""
    found: dict[str, str] = {}
    for item in _evidence(row.get("verdicts"), 0):
        note = item.get("note")
        url = item.get("url")
        if item.get("status") is not None or not isinstance(note, str) or not isinstance(url, str):
            continue
        if note.startswith(NO_ANSWER_NOTES):
            parts = urlsplit(url)
            found.setdefault(f"{parts.scheme}://{parts.netloc}", note)
    return [f"{host}: {note}" for host, note in found.items()]


def _evidence(node: Any, depth: int) -> list[dict[str, Any]]:
    if depth > MAX_DEPTH:
        return []
    if isinstance(node, dict):
        if "url" in node and "status" in node and "note" in node:
            return [node]
        return [item for value in node.values() for item in _evidence(value, depth + 1)]
    if isinstance(node, list):
        return [item for value in node for item in _evidence(value, depth + 1)]
    return []
