"""The rows of a rescore result in page order (model by model), each with the index the page gives it.

The models' rows come first (the verification section counts and links those); the rows of the
entries that are not models (a benchmark's simulated baselines, its human groups) follow, so they
open in the same drill-down, marked as not verified because there is no hosted run to verify.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PageRow:
    index: int
    model: str
    data: Mapping[str, Any]  # one entry of `models.<model>.rows` in the JSON result
    kind: str = "model"  # "model", or "baseline" / "human" for a benchmark's other entries

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
        """`prompt` (did not verify), `score` (disagrees), `unchecked` (nothing to compare), `ok`, or `simulated`."""
        if self.kind != "model":
            return "simulated"
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


def entry_rows(data: Mapping[str, Any], start: int) -> list[PageRow]:
    """The benchmark's rows of entries that are not models (`benchmark.entry_rows`), indexed from `start`."""
    benchmark = data.get("benchmark")
    by_entry = benchmark.get("entry_rows") if isinstance(benchmark, Mapping) else None
    if not isinstance(by_entry, Mapping):
        return []
    rows: list[PageRow] = []
    for name in sorted(by_entry):
        kind = "human" if str(name).startswith("human:") else "baseline"
        what = "a human baseline, scored from its file" if kind == "human" else "a simulated baseline"
        for row in by_entry[name] or []:
            if isinstance(row, Mapping):
                source = f"{what}, scored by {row.get('protocol') or 'the task file'}'s scorer: no hosted run to verify"
                data_row = {"case_id": row.get("case_id"), "row": row, "state": kind, "source": source}
                rows.append(PageRow(start + len(rows), str(name), data_row, kind))
    return rows
