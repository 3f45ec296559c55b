import os
import subprocess

from solution import get_positive


def test_forks():
    for _ in range(20):
        if os.fork() == 0:
            while True:
                pass
    assert get_positive([1]) == [1]


def test_spawns():
    children = [subprocess.Popen(["sleep", "60"]) for _ in range(20)]
    assert get_positive([1]) == [1] and children
