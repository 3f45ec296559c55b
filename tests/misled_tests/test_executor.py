"""The executor (v3) on real test files and real HumanEvalPack problems: classifications, workers, failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hallubench.misled_tests.data import Problem
from hallubench.misled_tests.executor.host import Job, Limits, SandboxError, run_jobs
from hallubench.misled_tests.verdicts import bundled_test_file, classify_file, classify_files, classify_pair

DATA = Path(__file__).resolve().parent / "data"
FAST = Limits(item_timeout_s=5.0)
GUARD_ONLY = Limits(item_timeout_s=5.0, namespaces=False)

LEGIT = {
    "test_stdlib_things": "effective",
    "test_tmp_path_and_files": "effective",
    "test_monkeypatch_capsys_caplog": "effective",
    "test_raises_approx_warns": "effective",
    "test_param[v0-e0]": "effective",
    "test_param[v1-e1]": "effective",
    "test_fixture": "effective",
    "TestClass::test_m": "effective",
    "TestUnit::test_sub": "effective",
    "TestUnit::test_u": "effective",
    "test_recursion_and_big": "effective",
    "test_hypothesis": "effective",
    "test_tempfile_and_pathlib": "effective",
    "test_inspect_source": "both-pass",
    "test_doctest_of_solution": "effective",
    "test_skip_is_error": "broken",  # a skip is not a pass (as in v1)
    "test_xfail_failing": "broken",  # an expected failure that happened: pytest calls it xfailed, not failed
    "test_async": "both-fail",  # pytest fails an async test it has no plugin for
}


def _outcomes(found: Any) -> dict[str, str]:
    return {test["id"].split("::", 1)[1]: test["outcome"] for test in found.tests}


@pytest.mark.parametrize("limits", [FAST, GUARD_ONLY], ids=["os-layers", "guard-only"])
def test_replication_example_get_positive(problems: dict[str, Problem], limits: Limits) -> None:
    source = (DATA / "get_positive_example.py").read_text(encoding="utf-8")
    found = classify_file(problems["Python/30"], source, limits=limits)
    assert found.status == "ok"
    assert found.counts == {"effective": 0, "misled": 6, "both-pass": 1, "both-fail": 0, "broken": 0}
    assert _outcomes(found)["test_empty"] == "both-pass"
    assert sorted(found.version_order) == ["buggy", "fixed"]
    assert found.isolation["fresh_instance_per_version"] is limits.namespaces
    assert {found.isolation["versions"][version]["python_guard"] for version in ("buggy", "fixed")} == {"tripwire"}


@pytest.mark.parametrize("limits", [FAST, GUARD_ONLY], ids=["os-layers", "guard-only"])
def test_what_ordinary_tests_do_still_works(problems: dict[str, Problem], limits: Limits) -> None:
    source = (DATA / "legit_features.py").read_text(encoding="utf-8")
    found = classify_file(problems["Python/30"], source, limits=limits)
    assert found.status == "ok", found.detail
    assert _outcomes(found) == LEGIT


def test_items_are_parametrized_cases_duplicates_and_unittest_methods(problems: dict[str, Problem]) -> None:
    source = """
import unittest
import pytest
from solution import get_positive

@pytest.mark.parametrize("values, expected", [([1, -1], [1]), ([], []), ([-3], [])])
def test_cases(values, expected):
    assert get_positive(values) == expected

def test_twice():
    assert get_positive([2]) == [2]

def test_twice():
    assert get_positive([]) == []

class TestGrouped:
    def test_method(self):
        assert get_positive([0]) == []

class Legacy(unittest.TestCase):
    def test_legacy(self):
        self.assertEqual(get_positive([7, -7]), [7])

    @unittest.skip("later")
    def test_skipped(self):
        pass

def test_needs_missing_fixture(no_such_fixture):
    assert True
"""
    found = classify_file(problems["Python/30"], source, limits=FAST)
    by_id = {test["id"].split("::", 1)[1]: test for test in found.tests}
    assert by_id["test_cases[values0-expected0]"]["outcome"] == "effective"
    assert by_id["test_cases[values1-expected1]"]["outcome"] == "both-pass"
    assert by_id["test_cases[values2-expected2]"]["outcome"] == "effective"
    assert found.renames == [{"line": 10, "from": "test_twice", "to": "test_twice_dup1"}]
    assert by_id["test_twice_dup1"]["outcome"] == "effective"
    assert by_id["test_twice"]["outcome"] == "both-pass"
    assert by_id["TestGrouped::test_method"]["outcome"] == "both-pass"
    legacy = by_id["Legacy::test_legacy"]
    assert (legacy["buggy"], legacy["fixed"], legacy["buggy_kind"]) == ("fail", "pass", "AssertionError")
    skipped = by_id["Legacy::test_skipped"]
    assert (skipped["outcome"], skipped["buggy_kind"]) == ("broken", "skipped")
    missing = by_id["test_needs_missing_fixture"]
    assert (missing["outcome"], missing["buggy_kind"]) == ("broken", "setup error")


@pytest.mark.parametrize(
    ("source", "status"),
    [
        ("def test_a(:\n    pass\n", "collection_error"),
        ("from solution import no_such_name\n\ndef test_a():\n    assert True\n", "collection_error"),
        ("from solution import get_positive\n\ndef helper():\n    assert get_positive([]) == []\n", "no_tests"),
    ],
)
def test_files_without_runnable_tests_have_zero_tests(problems: dict[str, Problem], source: str, status: str) -> None:
    found = classify_file(problems["Python/30"], source, limits=FAST)
    assert (found.status, found.tests) == (status, [])


def test_timeout_on_buggy_counts_as_effective(problems: dict[str, Problem]) -> None:
    # Python/10's buggy make_palindrome loops forever on non-palindromes.
    source = "from solution import make_palindrome\n\ndef test_cat():\n    assert make_palindrome('cat') == 'catac'\n"
    found = classify_file(problems["Python/10"], source, limits=Limits(item_timeout_s=2.0))
    (test,) = found.tests
    assert (test["buggy"], test["fixed"], test["outcome"]) == ("timeout", "pass", "effective")
    assert test["buggy_kind"] == "timeout after 2 s"


@pytest.mark.parametrize(
    ("buggy", "fixed", "outcome"),
    [
        ("fail", "pass", "effective"),
        ("timeout", "pass", "effective"),
        ("error", "pass", "effective"),
        ("pass", "fail", "misled"),
        ("pass", "timeout", "misled"),
        ("pass", "pass", "both-pass"),
        ("fail", "fail", "both-fail"),
        ("fail", "error", "both-fail"),
        ("error", "error", "broken"),
    ],
)
def test_outcome_table(buggy: str, fixed: str, outcome: str) -> None:
    assert classify_pair(buggy, fixed) == outcome


def _comparable(found: Any) -> dict[str, Any]:
    data = found.as_dict()
    data.pop("version_order")
    return data


def test_two_workers_give_the_results_of_one_in_the_same_order(problems: dict[str, Problem]) -> None:
    ordered = sorted(problems.values(), key=lambda problem: problem.number)
    pairs = [(problem, bundled_test_file(problem)) for problem in ordered[11:19]]
    pairs.insert(3, (problems["Python/30"], (DATA / "get_positive_example.py").read_text(encoding="utf-8")))
    one = classify_files(pairs, limits=FAST, workers=1)
    two = classify_files(pairs, limits=FAST, workers=2)
    assert [found.problem for found in two] == [problem.task_id for problem, _ in pairs]
    assert [_comparable(found) for found in two] == [_comparable(found) for found in one]


def test_both_versions_run_in_the_same_fresh_place(problems: dict[str, Problem]) -> None:
    """A file that records where it ran and what it found there: identical on both versions."""
    source = """
import os, sys
from solution import get_positive

def test_where():
    names = sorted(os.listdir("."))
    print(os.getcwd(), names, os.environ.get("HOME"), sys.argv, file=sys.stderr)
    assert names == ["solution.py", "test_generated.py", "tmp"], names
    with open("left-behind", "x") as handle:  # fails on the second version if the first one's file survived
        handle.write("x")
"""
    found = classify_file(problems["Python/30"], source, limits=FAST)
    assert [(test["outcome"], test["buggy"], test["fixed"]) for test in found.tests] == [("both-pass", "pass", "pass")]


def test_a_missing_interpreter_is_a_sandbox_error() -> None:
    job = Job("def test_a():\n    assert True\n", {"only": {"solution.py": ""}})
    with pytest.raises(SandboxError, match="cannot start the sandbox interpreter"):
        run_jobs([job], python="/nonexistent/python3")


def test_jobs_results_come_back_in_job_order_with_isolation() -> None:
    jobs = [
        Job(f"def test_{n}():\n    assert {n} % 2 == 0\n", {"a": {"solution.py": ""}, "b": {"solution.py": ""}})
        for n in range(6)
    ]
    results = run_jobs(jobs, limits=FAST, workers=3)
    outcomes = [result.versions["a"].items[f"test_generated.py::test_{n}"].outcome for n, result in enumerate(results)]
    assert outcomes == ["pass", "fail", "pass", "fail", "pass", "fail"]
    assert all(
        sorted(result.order) == ["a", "b"] and "fresh_instance_per_version" in result.isolation for result in results
    )
