"""Another run of the same hosted run, as a downloaded folder holds several: tests of copies and conflicts."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any


def _nodes(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _nodes(item)
    elif isinstance(value, list):
        for item in value:
            yield from _nodes(item)


def another_run(data: dict[str, Any], number: int, model: str | None = None) -> dict[str, Any]:
    """The same run as another one: other start times and conversation ids (and, if given, another model)."""
    data = copy.deepcopy(data)
    for node in _nodes(data):
        if isinstance(node.get("startTime"), str):
            node["startTime"] = node["startTime"].replace("Z", f"{number:03d}Z")
        for conversation in node.get("conversations", []):
            conversation["id"] = f"{conversation['id']}-{number}"
        if model is not None and isinstance(node.get("modelVersion"), dict):
            node["modelVersion"]["slug"] = model
    return data
