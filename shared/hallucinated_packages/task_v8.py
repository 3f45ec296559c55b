"""Entry module of hallucinated-packages v8: v7's prompts and cases, scored by the general symbol gate.

Follows the contract in `hallubench.contract`. Rendering, playing and aggregating are v7's
(`protocol`, `scoring`), so every v8 prompt is byte-identical to v7's and
`rescore --task hallucinated-packages/v7 --scorer hallucinated-packages/v8` applies to every
hosted v7 run. What v8 changes is what the embedded gate decides (stubs in 3.12+ syntax,
names a package binds dynamically but declares, CommonJS/UMD exports with `export =` typings,
members of objects built by `express()` or `new Foo()`, one verdict per imported name). Why a
row's verdict differs from v7's is told by `rescore` (`hallubench.tooling.hallucinated_packages.changes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..contract import RunOptions
from ..conversation import Conversation
from .protocol import comparable_row, play_case, render_prompt, run_preflight, settings_from_options
from .scoring import aggregate_rows


def render(case: dict[str, Any]) -> str:
    return render_prompt(case)


def play(case: dict[str, Any], conv: Conversation, options: RunOptions) -> dict[str, Any]:
    """`options`: the declared run options `pypi_url` and `npm_url` (recorded in the row by the task file)."""
    return play_case(case, conv, settings_from_options(options))


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return aggregate_rows(rows)


def comparable(row: dict[str, Any]) -> Any:
    """What `hallubench rescore` compares: the row minus registry timestamps, URLs and HTTP evidence."""
    return comparable_row(row)


def preflight(cases: Sequence[dict[str, Any]], options: RunOptions) -> dict[str, Any]:
    """Decoy gate (20 lookups) and canary against the registries the run options name; raises to stop the run."""
    report = run_preflight(gate=True, settings=settings_from_options(options))
    report["cases"] = len(cases)
    return report
