import pytest


@pytest.fixture
def words():
    return ["apple", "banana", "cherry"]

from solution import filter_by_prefix


def test_prefix_a(words):
    assert filter_by_prefix(words, "a") == ["apple"]


def test_no_match(words):
    assert filter_by_prefix(words, "z") == []
