"""The rows section: one table line per row, readable without JavaScript, and the drill-down data.

The table is plain HTML (model, case, verdict, verification, the scorer's one-line detail). The
drill-down content (every message, the row as re-scored, the benchmark's evidence) is embedded
once as JSON in a `<script type="application/json">` block that the page's script parses only
when a row is first opened: a page of 10,000 rows then costs the browser one table to lay out,
not 10,000 hidden panels. Texts that recur (the same prompt for every model) are stored once.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .markup import abbreviate, esc
from .rowset import PageRow
from .view import PageView

DETAIL_CHARS = 160


def _mark(value: Any) -> str:
    return {True: '<span class="ok">yes</span>', False: '<span class="bad">no</span>'}.get(value, "–")


_SIMULATED = '<span class="na" title="not a hosted run: nothing to verify">–</span>'
_COLUMNS = (("#", "3.5em"), ("model", "15%"), ("case", "17%"), ("verdict", "6em"), ("prompt verified", "6.5em"),
            ("score agrees", "6em"), ("detail", "auto"))  # fmt: skip


def rows_table(
    rows: Sequence[PageRow], titles: Mapping[str, str] | None = None, words: re.Pattern[str] | None = None
) -> str:
    """The rows, fixed column widths (a long name wraps, a drill-down never widens the page); `titles` and
    `words` mark the benchmark's abbreviations in each detail line."""
    lines = []
    for row in rows:
        verdict = str(row.row.get("verdict") or "?")
        detail = str(row.row.get("detail") or row.problem or "")
        if len(detail) > DETAIL_CHARS:
            detail = detail[: DETAIL_CHARS - 1] + "…"
        checks = (
            f"{_SIMULATED}</td><td>{_SIMULATED}"
            if row.kind != "model"
            else f"{_mark(row.data.get('prompt_verified'))}</td><td>{_mark(row.data.get('score_agrees'))}"
        )
        lines.append(
            f'<tr id="row-{row.index}" data-i="{row.index}" data-model="{esc(row.model)}" '
            f'data-verdict="{esc(verdict)}" data-status="{row.status}" data-kind="{esc(row.kind)}">'
            f'<td class="num">{row.index}</td><td>{esc(row.model)}</td>'
            f'<td><button type="button" class="hb-open" aria-expanded="false">{esc(row.case_id)}</button></td>'
            f'<td><span class="verdict v-{esc(verdict)}">{esc(verdict)}</span></td>'
            f"<td>{checks}</td><td>{abbreviate(detail, titles or {}, words)}</td></tr>"
        )
    cols = "".join(f'<col style="width: {width}">' for _, width in _COLUMNS)
    head = "".join(f'<th scope="col">{h}</th>' for h, _ in _COLUMNS)
    return (
        f'<div class="rows-wrap" style="contain-intrinsic-size: auto {26 * len(lines) + 30}px">'
        f'<table id="hb-rows" class="rows"><colgroup>{cols}</colgroup><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(lines)}</tbody></table></div>"
    )


def filters(rows: Sequence[PageRow]) -> str:
    """Filter controls; hidden until the script runs (they do nothing without it)."""
    models = sorted({row.model for row in rows})
    simulated = any(row.kind != "model" for row in rows)
    verdicts = sorted({str(row.row.get("verdict") or "?") for row in rows})

    def options(values: list[str]) -> str:
        return '<option value="">all</option>' + "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)

    return (
        '<form id="hb-filters" class="filters" hidden>'
        f'<label>model <select name="model">{options(models)}</select></label>'
        f'<label>verdict <select name="verdict">{options(verdicts)}</select></label>'
        '<label>verification <select name="status"><option value="">all</option>'
        '<option value="problem">problems only</option><option value="prompt">prompt differs</option>'
        '<option value="score">score disagrees</option><option value="ok">verified and agreeing</option>'
        + ('<option value="simulated">baselines (not verified)</option>' if simulated else "")
        + "</select></label>"
        '<label>case <input name="q" type="search" placeholder="case id contains…"></label>'
        '<output id="hb-count" aria-live="polite"></output></form>'
    )


def drilldown_payload(rows: Sequence[PageRow], benchmark: str, view: PageView) -> dict[str, Any]:
    """Everything the drill-down shows, with each distinct text stored once in `texts`; the view's glossary
    explains the benchmark's metric names (the script marks them with `<abbr>` as the table does), its
    `data` and each row's `row_data` are what the benchmark's script draws from."""
    texts: list[str] = []
    text_index: dict[str, int] = {}

    def ref(text: str) -> int:
        found = text_index.get(text)
        if found is None:
            found = text_index[text] = len(texts)
            texts.append(text)
        return found

    entries = []
    for row in rows:
        data = row.data
        entry: dict[str, Any] = {
            "model": row.model,
            "case_id": row.case_id,
            "source": row.source,
            "state": data.get("state"),
            "prompt_verified": data.get("prompt_verified"),
            "score_agrees": data.get("score_agrees"),
            "problem": data.get("problem"),
            "differences": data.get("differences") or [],
            "row": data.get("row"),
            "kind": row.kind,
        }
        messages = data.get("messages")
        if isinstance(messages, list):
            entry["messages"] = [[str(m[0]), ref(str(m[1]))] for m in messages if isinstance(m, list) and len(m) == 2]
        mismatch = data.get("mismatch")
        if isinstance(mismatch, Mapping):
            entry["mismatch"] = dict(mismatch)
        for key in ("newer_row", "newer_problem"):
            if key in data:
                entry[key] = data[key]
        if row.index in view.row_data:
            entry["view"] = dict(view.row_data[row.index])
        entries.append(entry)
    return {
        "benchmark": benchmark,
        "texts": texts,
        "rows": entries,
        "view": dict(view.data),
        "glossary": dict(view.glossary),
    }


def json_for_script(value: Any) -> str:
    """JSON that can sit inside a <script> element: NaN and infinities as null, every `<` escaped."""
    return json.dumps(strict(value), ensure_ascii=False, allow_nan=False, separators=(",", ":")).replace("<", "\\u003c")


def strict(value: Any) -> Any:
    """`value` with NaN and infinities replaced by None (JSON has no such numbers)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict(v) for v in value]
    return value
