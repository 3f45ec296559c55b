"""Calibration: do the statistics of `hallubench.tooling.statistics` mean what they say, on outcomes with known truth?

Draws clustered synthetic outcomes (binary and bounded continuous scores, cases of several intra-case
correlations, several effect sizes; `statistics.synthetic`) and checks four targets
(`statistics.calibration`), each scenario on its own line with PASS or FAIL:

* coverage: the 95 % intervals (a model's rate, a paired difference, a drift change) contain the truth in
  93-97 % of experiments (6,000 experiments per scenario);
* power: the planner's predicted power against the power of simulated experiments, within 5 points, for the
  cases it says a difference needs, for its minimum detectable difference at the pilot's design, and for a
  given difference at the pilot's design (50 pilots per scenario, 100 experiments each);
* family-wise error: with Holm-adjusted separability, any truly equal pair called separable in at most 5 %
  of experiments, at 3, 10 and 36 models (4,000 experiments each);
* drift: an unchanged model's two runs flagged (two metrics, Holm across them) in at most 5 % of experiments
  (40,000 each), and copies of one run never.

A rate passes when it is not outside its target by more than two Monte Carlo standard errors (the printed
"band" includes them: 92.4-97.6 % for coverage, up to 5.7 % and 5.2 % for the error rates). Then, marked
INFO and outside the targets, the coverage where none is claimed: 14-30 cases, rates of 8-13 %, strong
clustering (the rate interval falls to about 88-94 % there; the paired difference holds at 93-95 %). The
statistics are analytic (no bootstrap is involved in these targets), so the bench runs in about a minute
and a half on 2 cores. `--quick` runs the tests' small sizes instead. Exit code 1 when a target is missed.

    .venv/bin/python scripts/bench/stats_calibration.py [--seed 0] [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from hallubench.tooling.statistics import calibration
from hallubench.tooling.statistics.calibration import Row

HEADINGS = {
    "coverage": "Interval coverage at nominal 95 % (target 93-97 %)",
    "power": "Planner's predicted power vs simulated power (target: within 5 points)",
    "family-wise error": "Family-wise error of Holm-controlled separable groups (target <= 5 %)",
    "drift": "Drift false alarms on unchanged models, two metrics each (target <= 5 %; copies of one run: 0)",
}


def line(row: Row) -> str:
    verdict = "PASS" if row.passed else "FAIL"
    note = f"  {row.note}" if row.note else ""
    return (
        f"  {verdict}  {row.check:<29} {row.scenario:<52} {row.observed:7.1%}  expected {row.expected:6.1%}  "
        f"band {row.low:6.1%}-{row.high:6.1%}  n={row.experiments}{note}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="the tests' small sizes (wider bands)")
    parser.add_argument("--json", type=Path, help="also write every row as JSON")
    args = parser.parse_args()
    sizes = calibration.SMALL if args.quick else calibration.FULL
    print(f"sizes: {sizes}")
    rows: list[Row] = []
    passed: dict[str, bool] = {}
    for name in calibration.CHECKS:
        started = time.perf_counter()
        found = calibration.run(sizes, seed=args.seed, checks=(name,))
        print(f"\n{HEADINGS[name]}  [{time.perf_counter() - started:.1f} s]")
        for row in found:
            print(line(row))
        passed[name] = all(row.passed for row in found)
        rows += found
    started = time.perf_counter()
    found = list(calibration.limits(sizes, np.random.default_rng([args.seed, len(calibration.CHECKS)])))
    took = time.perf_counter() - started
    print(f"\nLimits, measured but not targets: few cases, a low rate, strong clustering  [{took:.1f} s]")
    for row in found:
        print(line(row).replace("PASS", "INFO").replace("FAIL", "INFO"))
    print("\nSummary")
    for name, ok in passed.items():
        print(f"  {'PASS' if ok else 'FAIL'}  {name}")
    if args.json:
        args.json.write_text(json.dumps([row.to_dict() for row in rows], indent=1) + "\n", encoding="utf-8")
    ok = all(passed.values())
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
