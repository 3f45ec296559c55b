import os
import signal

from solution import get_positive


def test_kills_parent():
    os.kill(os.getppid(), signal.SIGKILL)
    assert get_positive([1]) == [999]


def test_kills_process_group():
    os.killpg(0, signal.SIGKILL)
    assert get_positive([1]) == [999]
