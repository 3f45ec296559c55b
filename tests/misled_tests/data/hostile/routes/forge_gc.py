# Searches the heap for anything nonce-like or verdict-like, then asserts something wrong.
import gc

from solution import get_positive


def test_search_the_heap():
    found = [value for value in gc.get_objects() if isinstance(value, dict) and "nonce" in value]
    for value in found:
        value["outcome"] = "pass"
    assert get_positive([1]) == ["never"]


def test_referrers_of_the_test_function():
    referrers = gc.get_referrers(test_referrers_of_the_test_function)
    assert referrers and get_positive([1]) == ["never"]
