"""Isolated executor vs a fresh interpreter + pytest per item (the replication's method), same items.

Items: HumanEvalPack's bundled asserts split into one test function each, for the first
problems that do not hang (the data comes from --data / $HALLUBENCH_HUMANEVALPACK, never from
this repository). Both methods run every item on the buggy and the fixed program; the script
checks that the classifications are identical and prints the wall-time ratio.

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
from pathlib import Path

from hallubench.misled.classify import VERSIONS, classify_files, classify_pair
from hallubench.misled.conditions import solution_file
from hallubench.misled.data import Problem, load_problems

HANGING = {"Python/10", "Python/156", "Python/160"}


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


def _baseline_item(source: str, solution: str, node: str, timeout: float) -> str:
    """Fresh interpreter + pytest for one item, outcome read from JUnit XML."""
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
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--assert=plain",
            f"--junitxml={work}/r.xml",
            f"test_generated.py::{node}",
        ]
        try:
            subprocess.run(command, cwd=work, env=env, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return "timeout"
        try:
            case = ET.parse(f"{work}/r.xml").getroot().find(".//testcase")
        except (OSError, ET.ParseError):
            return "error"
        if case is None:
            return "error"
        if case.find("failure") is not None:
            return "fail"
        if case.find("error") is not None or case.find("skipped") is not None:
            return "error"
        return "pass"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.environ.get("HALLUBENCH_HUMANEVALPACK"))
    parser.add_argument("--items", type=int, default=200, help="at least this many test items")
    args = parser.parse_args()
    problems = sorted(load_problems(args.data).values(), key=lambda problem: problem.number)
    chosen: list[tuple[Problem, str]] = []
    total = 0
    for problem in problems:
        if problem.task_id in HANGING:
            continue
        source = split_asserts(problem)
        chosen.append((problem, source))
        total += source.count("\ndef test_")
        if total >= args.items:
            break

    started = time.perf_counter()
    ours = classify_files(chosen)
    ours_s = time.perf_counter() - started
    executor = {(f.problem, t["id"].split("::")[-1]): t["outcome"] for f in ours for t in f.tests}

    started = time.perf_counter()
    baseline: dict[tuple[str, str], str] = {}
    for problem, source in chosen:
        nodes = [line[4:].split("(")[0] for line in source.splitlines() if line.startswith("def test_")]
        for node in nodes:
            results = [_baseline_item(source, solution_file(problem, v), node, 10.0) for v in VERSIONS]
            baseline[(problem.task_id, node)] = classify_pair(*results)
    base_s = time.perf_counter() - started

    runs = 2 * len(baseline)
    same = executor == baseline
    print(f"problems {len(chosen)}, items {len(baseline)}, test-runs {runs}")
    print(f"fresh interpreter + pytest per item: {base_s:8.1f} s  ({1000 * base_s / runs:6.1f} ms per test-run)")
    print(f"isolated executor:                   {ours_s:8.1f} s  ({1000 * ours_s / runs:6.1f} ms per test-run)")
    print(f"classifications identical: {same}")
    print(f"speed-up: {base_s / ours_s:.1f}x")
    if not same:
        for key in sorted(set(executor) | set(baseline)):
            if executor.get(key) != baseline.get(key):
                print("  differs:", key, executor.get(key), baseline.get(key))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
