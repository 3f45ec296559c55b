"""Classification of real test files on real HumanEvalPack problems, run in the real sandbox of misled-tests v1
(superseded: its executor as v1's frozen task file has it, never today's `shared/misled_tests/classify.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hallubench.misled_tests.data import Problem

from support.frozen import embedded_module, frozen_for_session

DATA = Path(__file__).resolve().parent / "data"

V1 = frozen_for_session("misled-tests/v1")
classify_file, classify_pair = (
    embedded_module(V1, "classify").classify_file,
    embedded_module(V1, "classify").classify_pair,
)
Limits = embedded_module(V1, "sandbox").Limits
FAST = Limits(item_timeout_s=5.0, startup_s=10.0)


def test_replication_example_get_positive(problems: dict[str, Problem]) -> None:
    source = (DATA / "get_positive_example.py").read_text(encoding="utf-8")
    found = classify_file(problems["Python/30"], source, limits=FAST)
    assert found.status == "ok"
    outcomes = {test["id"].split("::")[-1]: test["outcome"] for test in found.tests}
    assert outcomes.pop("test_empty") == "both-pass"
    assert set(outcomes.values()) == {"misled"} and len(outcomes) == 6
    assert found.counts == {"effective": 0, "misled": 6, "both-pass": 1, "both-fail": 0, "broken": 0}


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

def test_needs_missing_fixture(no_such_fixture):
    assert True
"""
    found = classify_file(problems["Python/30"], source, limits=FAST)
    by_id = {test["id"].split("::", 1)[1]: test for test in found.tests}
    assert by_id["test_cases[values0-expected0]"]["outcome"] == "effective"
    assert by_id["test_cases[values1-expected1]"]["outcome"] == "both-pass"
    assert by_id["test_cases[values2-expected2]"]["outcome"] == "effective"
    # Both definitions of test_twice are collected: the earlier one under a recorded new name.
    assert found.renames == [{"line": 10, "from": "test_twice", "to": "test_twice_dup1"}]
    assert by_id["test_twice_dup1"]["outcome"] == "effective"
    assert by_id["test_twice"]["outcome"] == "both-pass"
    assert by_id["TestGrouped::test_method"]["outcome"] == "both-pass"
    legacy = by_id["Legacy::test_legacy"]
    assert (legacy["buggy"], legacy["fixed"], legacy["buggy_kind"]) == ("fail", "pass", "AssertionError")
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
    found = classify_file(problems["Python/10"], source, limits=Limits(item_timeout_s=2.0, startup_s=10.0))
    (test,) = found.tests
    assert (test["buggy"], test["fixed"], test["outcome"]) == ("timeout", "pass", "effective")


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


def test_example_file_is_real_data(tmp_path: Path) -> None:
    """Guards the data file itself: seven test functions, one assert each."""
    text = (DATA / "get_positive_example.py").read_text(encoding="utf-8")
    assert text.count("\ndef test_") == 7 and text.count("assert ") == 7
