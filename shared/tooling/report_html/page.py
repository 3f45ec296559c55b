"""Assemble the page from a rescore result (the dict `hallubench rescore --json` writes) and write it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from ... import __version__
from ...errors import HallubenchError
from .benchmarks import benchmark_section
from .markup import esc
from .rows import drilldown_payload, filters, json_for_script, rows_table, strict
from .rowset import entry_rows, page_rows
from .verification import verification_section
from .view import PageView, view_hook


class ReportInputError(HallubenchError, ValueError):
    """The file is not a rescore result."""


def read_result(path: Path) -> dict[str, Any]:
    """A saved `--json` result, checked for the parts the page needs."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ReportInputError(f"cannot read {path}: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("task"), dict) or not isinstance(data.get("models"), dict):
        raise ReportInputError(f"{path} is not a `hallubench rescore --json` result (it needs `task` and `models`)")
    return data


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def render_page(result: Mapping[str, Any]) -> str:
    """The whole page as one string: no external resource of any kind.

    The benchmark the protocol belongs to adds its part through its declared `page_view` hook
    (`view.py`); a hook that is declared but does not import raises HookError.
    """
    data = strict(dict(result))
    task = data.get("task") or {}
    protocol = str(task.get("protocol") or "?")
    rows = page_rows(data)  # the models' rows: what the verification section counts
    every = rows + entry_rows(data, len(rows))  # and the baselines' and human groups', opened the same way
    benchmark, hook = view_hook(protocol)
    view = hook(data, every) if hook is not None else PageView()
    payload = drilldown_payload(every, benchmark, view)
    with_messages = any("messages" in row.data for row in rows)
    others = len(every) - len(rows)
    heading = f"Rows ({len(rows)}" + (f", and {others} of the baselines, not verified)" if others else ")")
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
            "script-src 'unsafe-inline'; img-src data:\">",
            f"<title>hallubench rescore: {esc(protocol)}</title>",
            f"<style>{_asset('page.css')}\n{view.style}</style></head>",
            f'<body data-benchmark="{esc(benchmark)}">',
            f"<header><h1>Rescore of <code>{esc(protocol)}</code></h1>",
            f"<p>Task file <code>{esc(task.get('path'))}</code>, payload sha256 "
            f"<code>{esc(task.get('payload_sha256'))}</code>. Written by hallubench {esc(__version__)}.</p>",
            '<nav><a href="#verification">Verification</a> · <a href="#leaderboard">Leaderboard</a> · '
            '<a href="#rows">Rows</a></nav></header><main>',
            verification_section(data, rows),
            benchmark_section(data, view),
            f'<section id="rows"><h2>{esc(heading)}</h2>',
            '<noscript><p class="note">Opening a row (its prompt, reply and evidence) needs JavaScript; the '
            "same data is in this file as JSON (the script element <code>hb-data</code>).</p></noscript>",
            ""
            if with_messages
            else '<p class="note">This result holds no conversations (written without them), so the '
            "drill-down shows the re-scored rows only.</p>",
            filters(every),
            rows_table(every, view.glossary, view.words),
            "</section></main>",
            f'<script type="application/json" id="hb-data">{json_for_script(payload)}</script>',
            f"<script>{view.script}</script>" if view.script else "",  # before the page's script opens a row
            f"<script>{_asset('page.js')}</script>",
            "</body></html>",
        ]
    )


def write_page(result: Mapping[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(result), encoding="utf-8")
