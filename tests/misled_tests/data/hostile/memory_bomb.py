from solution import get_positive


def test_allocates_too_much():
    hoard = [0] * (10**10)  # 80 GB of list slots if nothing stops it
    assert get_positive([1]) == [1] and hoard
