"""The other file of route 11: an honest test, slow enough to be running while the killer runs."""
import time

from solution import get_positive


def test_honest_and_slow():
    for _ in range(20):
        time.sleep(0.05)
    assert get_positive([-1, 2, 0, 3]) == [2, 3]
