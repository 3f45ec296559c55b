import pytest

from solution import below_zero


def test_empty_list_never_goes_below_zero():
    assert below_zero([]) is False


def test_balance_dips_below_zero():
    assert below_zero([1, 2, -4, 5]) is True


@pytest.mark.parametrize("ops", [[1, 2, 3], [1, -1, 2, -2]])
def test_balance_stays_non_negative(ops):
    assert below_zero(ops) is False
