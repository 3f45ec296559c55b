import os

from solution import get_positive


def test_exits_cleanly_mid_test():
    os._exit(0)
    assert get_positive([1]) == [999]


def test_sys_exit_zero():
    import sys

    sys.exit(0)
