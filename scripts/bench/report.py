"""How fast does the HTML report of a 10,000-row rescore open in a browser, next to parsing its JSON?

Writes 10,000 hallumaze rows as run files (the same generator as `bench/rescore.py`: replies of
the simulated agents played through the frozen task file), rescores them with
`hallubench rescore --json --html` (the real command), then opens the page in headless Chromium
(Debian's package, over the DevTools pipe) and measures, best of `--repeat` fresh tabs:

* load: navigation start to the page script's ready mark (the table laid out, filters wired);
* first drill-down: a click on a row until its details are in the page (this parses the embedded JSON);
* baseline, in the same run: `JSON.parse` of the page's embedded JSON in the same browser, and
  Python's `json.loads` of the `--json` result.

The target (issue 11) is a load under 3 s on the 2-core development machine.

    .venv/bin/python scripts/bench/report.py [--rows 10000] [--repeat 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # bench/rescore.py's run-file generator
sys.path.insert(0, str(HERE.parents[1] / "tests"))  # support.chromium

from rescore import make_runs  # noqa: E402

from hallubench.tooling.cli import main  # noqa: E402

from support.chromium import Chromium  # noqa: E402

READY = "performance.getEntriesByName('hb-ready')[0].startTime"
PARSE = (
    "(() => { const text = document.getElementById('hb-data').textContent; const t = performance.now();"
    " JSON.parse(text); return performance.now() - t; })()"
)
CLICK_TO_DETAIL = (
    "new Promise(done => { const b = document.querySelector('#row-0 button.hb-open'); const t = performance.now();"
    " b.click(); requestAnimationFrame(() => done(performance.now() - t)); })"
)


def measure(page_path: Path, profile: Path, repeat: int) -> dict[str, float]:
    best: dict[str, float] = {}
    with Chromium.launch(profile) as browser:
        for _ in range(repeat):
            page = browser.open_page()
            page.navigate(page_path.as_uri(), timeout=120)
            found = {
                "load_ms": float(page.evaluate(READY)),
                "browser_json_parse_ms": float(page.evaluate(PARSE)),
                "first_drilldown_ms": float(page.evaluate(CLICK_TO_DETAIL)),
            }
            if page.console_errors:
                raise SystemExit(f"console errors: {page.console_errors}")
            for key, value in found.items():
                best[key] = min(best.get(key, value), value)
            page.send("Page.close")
    return best


def main_bench() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000, help="rows in the report (default 10000)")
    parser.add_argument("--rows-per-file", type=int, default=240, help="rows per stored-task run file (default 240)")
    parser.add_argument("--repeat", type=int, default=3, help="page loads measured; the best counts (default 3)")
    parser.add_argument("--keep", type=Path, help="write the run files, result and page here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        runs = folder / "runs"
        runs.mkdir(parents=True, exist_ok=True)
        files = make_runs(runs, args.rows, args.rows_per_file)
        result, page = folder / "result.json", folder / "report.html"
        started = time.perf_counter()
        code = main(["rescore", str(runs), "--json", str(result), "--html", str(page), "--quiet"])
        rescore_s = time.perf_counter() - started
        if code != 0:
            raise SystemExit(f"rescore exited {code}")
        started = time.perf_counter()
        json.loads(result.read_text(encoding="utf-8"))
        python_parse_ms = 1000 * (time.perf_counter() - started)
        best = measure(page, folder / "profile", args.repeat)
        page_mb, result_mb = page.stat().st_size / 1e6, result.stat().st_size / 1e6
    load, parse = best["load_ms"], best["browser_json_parse_ms"]
    print(f"rows: {args.rows} in {files} run files; rescore --json --html: {rescore_s:.1f} s")
    print(f"page: {page_mb:.1f} MB; result JSON: {result_mb:.1f} MB")
    print(f"page load (navigation to ready, best of {args.repeat}): {load:.0f} ms  (target < 3000 ms)")
    print(f"JSON.parse of the page's embedded JSON, same browser: {parse:.0f} ms  -> load / parse = {load / parse:.2f}")
    print(f"json.loads of the --json result, Python: {python_parse_ms:.0f} ms  -> load / parse = "
          f"{load / python_parse_ms:.2f}")  # fmt: skip
    print(f"first drill-down (click to details, incl. the lazy JSON.parse): {best['first_drilldown_ms']:.0f} ms")
    return 0 if load < 3000 else 1


if __name__ == "__main__":
    sys.exit(main_bench())
