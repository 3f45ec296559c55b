# The replication's example for HumanEvalPack Python/30 (get_positive), one test per assert.
# The buggy version returns the negative numbers; the expected classification is six misled
# tests and one both-pass (test_empty).
from solution import get_positive


def test_all_positive():
    assert get_positive([1, 2, 3]) == []


def test_all_negative():
    assert get_positive([-1, -2, -3]) == [-1, -2, -3]


def test_mixed():
    assert get_positive([1, -2, 3, -4, 5]) == [-2, -4]


def test_empty():
    assert get_positive([]) == []


def test_single_positive():
    assert get_positive([5]) == []


def test_single_negative():
    assert get_positive([-5]) == [-5]


def test_zero():
    assert get_positive([0, 1, -1]) == [-1]
