# Signals to any process but the test's own. Signal 0 only asks whether a signal could be sent,
# so a hole in the guard shows up as a pass here without harming anything.
import os
import signal

from solution import get_positive


def test_signal_the_parent():
    os.kill(os.getppid(), 0)
    assert get_positive([]) == []


def test_signal_every_process():
    os.kill(-1, 0)
    assert get_positive([]) == []


def test_signal_the_process_group():
    os.killpg(os.getpgid(0), 0)
    assert get_positive([]) == []


def test_signal_through_a_pid_descriptor():
    signal.pidfd_send_signal(os.pidfd_open(os.getppid()), 0)
    assert get_positive([]) == []


def test_signal_itself_is_allowed():
    os.kill(os.getpid(), 0)
    assert get_positive([]) == []
