"""The executor, in the jail, against fresh pytest processes, on the same files in one run; then 2 workers.

Items: HumanEvalPack's bundled asserts split into one test function each, for the first problems
that do not hang (the data comes from --data / $HALLUBENCH_HUMANEVALPACK, never from this
repository). Every method runs every item on the buggy and the fixed program:

* (a) one fresh `python -m pytest` process per test file and version (outcomes from JUnit XML);
* (b) one fresh `python -m pytest file::item` process per item and version (the replication's method);
* the executor as `hallubench misled classify` runs it: in the kernel-enforced jail (started once per call,
  as for every batch), each program version in an instance of its own; with 1 worker, then with 2.

It checks that every method classifies every item of every file as (b) does, and prints the
wall-time ratios measured in this run. Targets: >= 3x faster than (a), >= 15x faster than (b),
>= 1.7x from 2 workers on 2 cores. The machine may be shared: run it when it is quiet and read the
ratios, not the absolute times. The ratios against (a) and (b) use the fastest 1-worker executor run
(the one right before them, or the best of `--repeat` after them: a run of seconds swings more than the
baselines of tens of seconds); the 2-worker speed-up compares the best of `--repeat` alternated runs with
1 and with 2 workers, and each line says how idle the whole machine was meanwhile (on a shared machine the idle
share, not the core count, bounds what a second worker can gain).

    .venv/bin/python scripts/bench/execute.py --data ../shared/data/humanevalpack/humanevalpack.jsonl
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from hallubench.misled_tests.conditions import solution_file
from hallubench.misled_tests.data import Problem, load_problems
from hallubench.misled_tests.verdicts import VERSIONS, FileClassification, classify_pair
from hallubench.tooling.misled_tests.jailed import classify

# Buggy versions that loop until the 10 s item limit (Python/76: 11 of its 16 split asserts, 110 s a row,
# which alone would decide any timing of more than 76 problems).
HANGING = {"Python/10", "Python/76", "Python/156", "Python/160"}
TIMEOUT_S = 10.0
Classes = dict[tuple[str, str], str]
T = TypeVar("T")


def split_asserts(problem: Problem) -> str:
    """One pytest function per top-level assert of the bundled `check`, with the statements before it."""
    tree = ast.parse(problem.test)
    check = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "check")
    prelude = [ast.unparse(node) for node in tree.body if node is not check and not isinstance(node, ast.Expr)]
    out = [f"from solution import *\nfrom solution import {problem.entry_point}\n", *prelude]
    setup: list[str] = []
    for number, node in enumerate(check.body):
        if isinstance(node, ast.Assert):
            body = "\n".join(f"    {line}" for stmt in [*setup, ast.unparse(node)] for line in stmt.splitlines())
            out.append(f"def test_assert_{number}():\n    candidate = {problem.entry_point}\n{body}\n")
        else:
            setup.append(ast.unparse(node))
    return "\n\n".join(out) + "\n"


def _fresh_pytest(source: str, solution: str, selector: str | None) -> dict[str, str]:
    """A fresh interpreter + pytest on the whole file (or one item); outcome per item name from JUnit XML."""
    with tempfile.TemporaryDirectory() as work:
        Path(work, "solution.py").write_text(solution)
        Path(work, "test_generated.py").write_text(source)
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": work,
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        }
        target = "test_generated.py" + (f"::{selector}" if selector else "")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--assert=plain"]
        command += [f"--junitxml={work}/r.xml", target]
        try:
            subprocess.run(command, cwd=work, env=env, capture_output=True, timeout=TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            return {"*": "timeout"}
        try:
            cases = ET.parse(f"{work}/r.xml").getroot().iter("testcase")
        except (OSError, ET.ParseError):
            return {"*": "error"}
        found: dict[str, str] = {}
        for case in cases:
            if case.find("failure") is not None:
                outcome = "fail"
            elif case.find("error") is not None or case.find("skipped") is not None:
                outcome = "error"
            else:
                outcome = "pass"
            found[str(case.get("name"))] = outcome
        return found


def _nodes(source: str) -> list[str]:
    return [line[4:].split("(")[0] for line in source.splitlines() if line.startswith("def test_")]


def per_file(chosen: list[tuple[Problem, str]]) -> Classes:
    """(a): one fresh pytest per file and version."""
    found: Classes = {}
    for problem, source in chosen:
        runs = [_fresh_pytest(source, solution_file(problem, version), None) for version in VERSIONS]
        for node in _nodes(source):
            buggy, fixed = (run.get(node, run.get("*", "error")) for run in runs)
            found[(problem.task_id, node)] = classify_pair(buggy, fixed)
    return found


def per_item(chosen: list[tuple[Problem, str]]) -> Classes:
    """(b): one fresh pytest per item and version."""
    found: Classes = {}
    for problem, source in chosen:
        for node in _nodes(source):
            outcomes = []
            for version in VERSIONS:
                run = _fresh_pytest(source, solution_file(problem, version), node)
                outcomes.append(run.get(node, run.get("*", "error")))
            found[(problem.task_id, node)] = classify_pair(*outcomes)
    return found


def _from_json(item: dict[str, Any]) -> FileClassification:
    fields = {"problem", "status", "detail", "tests", "renames", "notes", "version_order", "isolation"}
    return FileClassification(**{key: value for key, value in item.items() if key in fields})


def executor_classes(results: list[FileClassification]) -> Classes:
    return {(found.problem, test["id"].split("::")[-1]): test["outcome"] for found in results for test in found.tests}


def _cpu_ticks() -> tuple[int, int]:
    """(idle, total) jiffies of the whole machine since boot (0, 0 where /proc/stat is missing)."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = [int(value) for value in handle.readline().split()[1:]]
    except OSError:
        return 0, 0
    return fields[3] + fields[4], sum(fields)


IDLE: dict[int, float] = {}  # id of a result -> the share of the machine that stayed idle while it ran


def timed(function: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, float]:
    idle, total = _cpu_ticks()
    started = time.perf_counter()
    value = function(*args, **kwargs)
    elapsed = time.perf_counter() - started
    idle_after, total_after = _cpu_ticks()
    IDLE[id(value)] = (idle_after - idle) / max(1, total_after - total)
    return value, elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--data", default=os.environ.get("HALLUBENCH_HUMANEVALPACK"))
    parser.add_argument("--items", type=int, default=120, help="at least this many test items")
    parser.add_argument("--no-namespaces", action="store_true", help="run the executor with the Python guard alone")
    parser.add_argument("--repeat", type=int, default=3, help="alternated 1- and 2-worker runs (best of each)")
    args = parser.parse_args()
    problems = sorted(load_problems(args.data).values(), key=lambda problem: problem.number)
    chosen: list[tuple[Problem, str]] = []
    total = 0
    for problem in problems:
        if problem.task_id in HANGING:
            continue
        source = split_asserts(problem)
        chosen.append((problem, source))
        total += len(_nodes(source))
        if total >= args.items:
            break

    def jailed(pairs: list[tuple[Problem, str]], workers: int) -> list[FileClassification]:
        """The jail's answer as the executor's own results (a classification is all the comparison reads)."""
        found, _ = classify(
            [(problem.fields(), source) for problem, source in pairs],
            item_timeout_s=TIMEOUT_S,
            namespaces=not args.no_namespaces,
            workers=workers,
        )
        return [_from_json(item) for item in found]

    ours_1, ours_1_s = timed(jailed, chosen, workers=1)
    base_b, base_b_s = timed(per_item, chosen)
    base_a, base_a_s = timed(per_file, chosen)
    one: list[tuple[list[FileClassification], float]] = []
    two: list[tuple[list[FileClassification], float]] = []
    for _ in range(max(1, args.repeat)):
        two.append(timed(jailed, chosen, workers=2))
        one.append(timed(jailed, chosen, workers=1))
    best_1, best_1_s = min(one, key=lambda run: run[1])
    ours_2, ours_2_s = min(two, key=lambda run: run[1])

    runs = 2 * len(base_b)
    methods = {
        "(b) fresh pytest per item": (base_b, base_b_s, IDLE[id(base_b)]),
        "(a) fresh pytest per file": (base_a, base_a_s, IDLE[id(base_a)]),
        "jailed executor, 1 worker": (executor_classes(ours_1), ours_1_s, IDLE[id(ours_1)]),
        f"jailed, 1 worker, best of {len(one)}": (executor_classes(best_1), best_1_s, IDLE[id(best_1)]),
        f"jailed, 2 workers, best of {len(two)}": (executor_classes(ours_2), ours_2_s, IDLE[id(ours_2)]),
    }
    print(f"problems {len(chosen)}, items {len(base_b)}, test-runs {runs} (both versions), cores {os.cpu_count()}")
    print(f"fresh instance per version: {ours_1[0].isolation.get('fresh_instance_per_version') if ours_1 else None}")
    for name, (_, seconds, idle) in methods.items():
        print(f"{name:<28} {seconds:8.2f} s  ({1000 * seconds / runs:7.1f} ms per test-run)  machine idle {idle:4.0%}")
    identical = True
    for name, (classes, _, _) in methods.items():
        same = classes == base_b
        identical &= same
        print(f"classifications identical to (b): {name:<28} {same}")
        if not same:
            for key in sorted(set(classes) | set(base_b)):
                if classes.get(key) != base_b.get(key):
                    print("   differs:", key, classes.get(key), "vs (b)", base_b.get(key))
    fastest = min(ours_1_s, best_1_s)  # a 3 s run swings more on a shared machine than the 12 s and 50 s baselines
    print(f"speed-up vs (a) one fresh pytest per file:  {base_a_s / fastest:6.1f}x  (target >= 3x)")
    print(f"speed-up vs (b) one fresh pytest per item:  {base_b_s / fastest:6.1f}x  (target >= 15x)")
    print(f"speed-up from 2 workers (--jobs 2):         {best_1_s / ours_2_s:6.2f}x  (target >= 1.7x on 2 cores)")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
