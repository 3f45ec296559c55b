"""Benchmark: hallucinated-packages v8's install-line parser on degenerate replies, against v7's.

A model stuck in a loop writes one fragment thousands of times. For each fragment this prints the
time to read install commands from 32 KB and from 64 KB of it with the shared parser (what v8
embeds) and the ratio 64 KB / 32 KB: linear is 2, the target is <= 3. The whole answer
extraction of v8 (install lines, code blocks, imports) is timed on the same texts with the same
target. The baseline, the frozen v7 parser (loaded from tasks/hallucinated_packages_v7.py in the
same run), is timed on 4 KB and 8 KB only, because it is quadratic: repeated `pip install` lines
re-read the rest of the line once per command, and its inline-code search restarted at every
backtick (at 32 KB some fragments take minutes). Times are CPU times, the two sizes measured in turns.
Exit code 1 when a v8 ratio misses the target.

    .venv/bin/python scripts/bench/install_lines.py [--repeats 3] [--skip-v7]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from hallubench.hallucinated_packages.extract_answer import extract_answer
from hallubench.hallucinated_packages.install_lines import install_references
from hallubench.tooling.taskfile.reader import FrozenProtocol, read_task_file

ROOT = Path(__file__).resolve().parents[2]
FRAGMENTS = ("`", "pip install ", "`pip install x` ", "npm i a ", "pip install a==1 \\\n", "!pip install -r ",
             "```\n", "pip3 install -e . && ", "npm install a@", "x\n")  # fmt: skip
SIZES = (32_000, 64_000)
V7_SIZES = (4_000, 8_000)


def best_of(repeats: int, action: Callable[[], object]) -> float:
    """Least CPU time of `repeats` runs (CPU time: other processes on a shared machine do not count)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        action()
        best = min(best, time.process_time() - start)
    return best


def alternated(repeats: int, small: Callable[[], object], large: Callable[[], object]) -> tuple[float, float]:
    """Best CPU time of each, measured in turns, so a busy spell of the machine touches both alike."""
    times = [best_of(1, small), best_of(1, large)]
    for _ in range(repeats - 1):
        times = [min(times[0], best_of(1, small)), min(times[1], best_of(1, large))]
    return times[0], times[1]


def text_of(fragment: str, size: int) -> str:
    return (fragment * (size // len(fragment) + 1))[:size]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-v7", action="store_true", help="do not time the frozen v7 parser")
    args = parser.parse_args()
    frozen = None if args.skip_v7 else FrozenProtocol(read_task_file(ROOT / "tasks" / "hallucinated_packages_v7.py"))
    v7_parse: Callable[[str], object] | None = None
    if frozen is not None:  # the frozen task file's own install-line module, loaded in isolation
        package = frozen.entry.__name__.rsplit(".", 1)[0]
        v7_parse = sys.modules[f"{package}.install_lines"].install_references
    ok = True
    print(f"{'fragment':<24} {'v8 32KB ms':>10} {'64KB ms':>9} {'ratio':>6}  {'extract ratio':>13}  "
          f"{'v7 4KB ms':>9} {'8KB ms':>9} {'ratio':>6}")  # fmt: skip
    for fragment in FRAGMENTS:
        small, large = (text_of(fragment, size) for size in SIZES)
        v8 = alternated(args.repeats, lambda s=small: install_references(s), lambda t=large: install_references(t))
        whole = alternated(args.repeats, lambda s=small: extract_answer(s), lambda t=large: extract_answer(t))
        ratio, whole_ratio = v8[1] / v8[0], whole[1] / whole[0]
        ok &= ratio <= 3.0 and whole_ratio <= 3.0
        old = ""
        if v7_parse is not None:
            v7 = [best_of(1, lambda t=text, p=v7_parse: p(t)) for text in (text_of(fragment, n) for n in V7_SIZES)]
            old = f"{v7[0] * 1000:9.1f} {v7[1] * 1000:9.1f} {v7[1] / v7[0]:6.2f}"
        print(f"{fragment!r:<24} {v8[0] * 1000:10.1f} {v8[1] * 1000:9.1f} {ratio:6.2f}  {whole_ratio:13.2f}  {old}")
    if frozen is not None:
        frozen.close()
    print("target: every v8 ratio <= 3 (linear is 2):", "met" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
