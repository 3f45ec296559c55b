"""Entry module of hallucinated-packages v9: v7's prompts and cases, a gate that follows types to uses.

Follows the contract in `hallubench.contract`. Rendering, playing and aggregating are v7's
(`protocol`, `scoring`), so every v9 prompt is byte-identical to v7's and
`rescore --task hallucinated-packages/v7 --scorer hallucinated-packages/v9` (or `--task .../v8`)
applies to every hosted v7 and v8 run. What v9 changes is what the embedded gate decides: the type of
the value a method or attribute is used on is followed through annotations, the package's own return
annotations, stub distributions (`types-*`, `<dist>-stubs`), assignment chains, chained calls, `with`
targets and annotated iterables (Python) and through `.d.ts` return types (JavaScript); a use whose
receiver type cannot be established is recorded `unverified` ("receiver type unknown") and counted,
and a group D case's targeted name on such a receiver is a "possible removed-API use" that leaves the
row unscored; a name an older release had is `removed-api` with the last release that had it; and
only the registry's own answers decide (a 404 from its own origin, confirmed; redirects followed only
within that origin; a Simple API page that names the project and lists a file). Why a row's verdict
differs from v7's or v8's is told by `rescore` (`hallubench.tooling.hallucinated_packages.changes`).
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
