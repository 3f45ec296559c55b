# Breaks the version process from import time (it reaches the harness's module globals through the
# frames), so that it dies after collection without reporting a single item. Every item is then run
# again alone, breaks it again, and must end as an error on both versions, never as a pass.
import os
import sys

from solution import get_positive

_frame = sys._getframe()
while _frame is not None:
    if "wait_item" in _frame.f_globals and "parse" in _frame.f_globals:
        _frame.f_globals["parse"] = lambda *args: os._exit(3)
    _frame = _frame.f_back


def test_passes_on_both_versions():
    assert get_positive([]) == []


def test_fails_on_both_versions():
    assert get_positive([1]) == ["never"]
