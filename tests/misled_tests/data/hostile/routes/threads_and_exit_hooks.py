# Code meant to run after the test: threads, atexit, finalizers, faulthandler, signal handlers, alarms.
import atexit
import faulthandler
import os
import signal
import threading
import time

from solution import get_positive

MARKER = "{MARKER}"


def _write(name):
    with open(os.path.join(MARKER, name), "w", encoding="ascii") as handle:
        handle.write("escaped")


def test_thread_that_outlives_the_test():
    threading.Thread(target=lambda: (time.sleep(0.2), _write("thread")), daemon=True).start()
    assert get_positive([]) == []


def test_atexit_handler():
    atexit.register(_write, "atexit")
    assert get_positive([]) == []


class Finalized:
    def __del__(self):
        _write("finalizer")


KEEP = [Finalized()]


def test_finalizer_at_exit():
    assert get_positive([]) == []


def test_faulthandler_exits_later():
    faulthandler.dump_traceback_later(0.05, exit=True)
    time.sleep(1)
    assert get_positive([]) == []


def test_faulthandler_into_a_file_outside():
    faulthandler.enable(file=open(os.path.join(MARKER, "faulthandler"), "w"))
    assert get_positive([]) == []


def test_signal_handler():
    signal.signal(signal.SIGALRM, lambda *args: _write("alarm"))
    signal.alarm(1)
    assert get_positive([]) == []


def test_alarm_with_the_default_action():
    signal.alarm(1)
    time.sleep(3)
    assert get_positive([]) == []
