"""The rows of a rescore result in page order (model by model), each with the index the page gives it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PageRow:
    index: int
    model: str
    data: Mapping[str, Any]  # one entry of `models.<model>.rows` in the JSON result

    @property
    def case_id(self) -> str:
        return str(self.data.get("case_id") or "?")

    @property
    def source(self) -> str:
        return str(self.data.get("source") or "")

    @property
    def problem(self) -> str:
        return str(self.data.get("problem") or "")

    @property
    def row(self) -> Mapping[str, Any]:
        value = self.data.get("row")
        return value if isinstance(value, Mapping) else {}

    @property
    def status(self) -> str:
        """`prompt` (did not verify), `score` (disagrees), `unchecked` (nothing to compare) or `ok`."""
        if not self.data.get("prompt_verified"):
            return "prompt"
        agrees = self.data.get("score_agrees")
        return "score" if agrees is False else "unchecked" if agrees is None else "ok"


def page_rows(data: Mapping[str, Any]) -> list[PageRow]:
    models = data.get("models") or {}
    rows: list[PageRow] = []
    for model in sorted(models):
        for entry in models[model].get("rows") or []:
            if isinstance(entry, Mapping):
                rows.append(PageRow(len(rows), model, entry))
    return rows
