"""One self-contained HTML page per rescore, made from the `--json` result alone.

`hallubench rescore ... --html OUT` and `hallubench report RESULT.json --html OUT` write the same
page: verification first (every prompt verified, or where the first character differs, in both
texts; every score disagreement with both values), then per benchmark the leaderboard (intervals
drawn as bars, denominators, simulated baselines beside the models, the groups no paired
interval can split), then every row with a drill-down (prompt, reply, verdict, evidence, and the
benchmark's own evidence, drawn by the view its declaration names: `view.py`). Nothing here knows a
benchmark by name: what one adds comes through its `page_view` hook.

The page needs nothing at view time: styles and a small vanilla script are inline, the rows'
details are embedded as JSON and only parsed when a row is first opened, so a page of 10,000
rows opens quickly. Without JavaScript everything but the drill-down and the filters is readable.
"""

from .page import ReportInputError, read_result, render_page, write_page

__all__ = ["ReportInputError", "read_result", "render_page", "write_page"]
