"""Classify each collected test item by what it does on the buggy and the fixed program.

Per item and version the sandbox gives pass / fail / error / timeout (with the kind of
failure). Outcomes, ours, following the fail-to-pass convention of the reference:

* effective: not a pass on buggy (fail, error or timeout), pass on fixed: it catches the bug;
* misled: pass on buggy, not a pass on fixed: it enshrines the bug;
* both-pass: passes on both (does not tell them apart);
* broken: an error (setup/fixture error, crash, not collected) on both;
* both-fail: every other case (a wrong oracle on both, or a failure on one and error on the other).

A file that cannot be collected (syntax or import error, a crash at import) on either
version has zero tests and is recorded as unusable, never as effective.
Embedded into task files: standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .conditions import solution_file
from .data import Problem
from .dedupe import rename_duplicates
from .sandbox import ItemResult, Job, Limits, VersionResult, run_jobs

OUTCOME_CLASSES = ("effective", "misled", "both-pass", "both-fail", "broken")
VERSIONS = ("buggy", "fixed")
_NOT_COLLECTED = ItemResult("", "error", "not collected on this version")


def classify_pair(buggy: str, fixed: str) -> str:
    """The outcome class of one item from its two results."""
    if buggy == "pass" and fixed == "pass":
        return "both-pass"
    if fixed == "pass":
        return "effective"
    if buggy == "pass":
        return "misled"
    if buggy == "error" and fixed == "error":
        return "broken"
    return "both-fail"


@dataclass
class FileClassification:
    """Every item of one test file on one problem, or why the file gave no tests."""

    problem: str
    status: str = "ok"
    detail: str = ""
    tests: list[dict[str, Any]] = field(default_factory=list)
    renames: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(OUTCOME_CLASSES, 0)
        for test in self.tests:
            counts[test["outcome"]] += 1
        return counts

    def as_dict(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "status": self.status,
            "detail": self.detail,
            "n_tests": len(self.tests),
            "counts": self.counts,
            "tests": self.tests,
            "renames": self.renames,
            "notes": self.notes,
        }


def job_for(problem: Problem, test_source: str) -> tuple[Job, list[dict[str, Any]]]:
    """The sandbox job for a test file on one problem (duplicate names renamed first)."""
    source, renames = rename_duplicates(test_source)
    versions = {version: {"solution.py": solution_file(problem, version)} for version in VERSIONS}
    return Job(source, versions), renames


def _combine(problem: Problem, results: dict[str, VersionResult], renames: list[dict[str, Any]]) -> FileClassification:
    found = FileClassification(problem.task_id, renames=renames)
    for version in VERSIONS:
        found.notes.extend(f"{version}: {note}" for note in results[version].notes)
    broken = [version for version in VERSIONS if results[version].collection_error is not None]
    if broken:
        found.status = "collection_error"
        found.detail = "; ".join(f"{version}: {results[version].collection_error}" for version in broken)
        return found
    nodes: list[str] = []
    for version in VERSIONS:
        nodes.extend(node for node in results[version].collected or [] if node not in nodes)
    if not nodes:
        found.status, found.detail = "no_tests", "pytest collected no test items"
        return found
    if set(results["buggy"].collected or []) != set(results["fixed"].collected or []):
        found.notes.append("the collected items differ between the buggy and the fixed version")
    for node in nodes:
        buggy = results["buggy"].items.get(node, _NOT_COLLECTED)
        fixed = results["fixed"].items.get(node, _NOT_COLLECTED)
        found.tests.append(
            {
                "id": node,
                "buggy": buggy.outcome,
                "fixed": fixed.outcome,
                "outcome": classify_pair(buggy.outcome, fixed.outcome),
                "buggy_kind": buggy.kind,
                "fixed_kind": fixed.kind,
                "buggy_detail": buggy.detail[:300],
                "fixed_detail": fixed.detail[:300],
            }
        )
    return found


def classify_files(
    pairs: list[tuple[Problem, str]], *, limits: Limits | None = None, python: str | None = None
) -> list[FileClassification]:
    """Classify many (problem, test file) pairs in shared sandbox sessions."""
    prepared = [job_for(problem, source) for problem, source in pairs]
    results = run_jobs([job for job, _ in prepared], limits=limits, python=python)
    return [
        _combine(problem, result, renames)
        for (problem, _), (_, renames), result in zip(pairs, prepared, results, strict=True)
    ]


def classify_file(
    problem: Problem, test_source: str, *, limits: Limits | None = None, python: str | None = None
) -> FileClassification:
    """Classify one test file against one problem."""
    return classify_files([(problem, test_source)], limits=limits, python=python)[0]


def bundled_test_file(problem: Problem) -> str:
    """HumanEvalPack's own test for the problem, as one pytest test (its trailing `check(...)` call removed)."""
    lines = problem.test.rstrip().splitlines()
    call = f"check({problem.entry_point})"
    if not lines or lines[-1].strip().replace(" ", "") != call:
        raise ValueError(f"{problem.task_id}: the bundled test does not end with {call}")
    body = "\n".join(lines[:-1]).strip("\n")
    return (
        f"from solution import *\nfrom solution import {problem.entry_point}\n\n{body}\n\n\n"
        f"def test_bundled():\n    {call}\n"
    )
