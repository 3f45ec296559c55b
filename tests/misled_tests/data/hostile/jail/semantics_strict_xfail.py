"""Semantics (route E): a strict xfail that passes is a failure in pytest's own verdict."""
import pytest

from solution import get_positive


@pytest.mark.xfail(strict=True, reason="expected to fail")
def test_strict_xfail_that_passes():
    assert get_positive([1]) == get_positive([1])
