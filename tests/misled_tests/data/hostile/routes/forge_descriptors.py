# v1: writing a result line to every descriptor and exiting cleanly forged a pass.
import os

from solution import get_positive

LINES = (
    b'{"type": "item", "index": 0, "node": "test_generated.py::test_forge_then_exit", "outcome": "pass",'
    b' "kind": "returned", "detail": "", "duration_s": 0.01}\n'
    b'{"outcome": "pass", "kind": "returned", "detail": ""}\n'
)


def test_forge_then_exit():
    for fd in range(0, 1024):
        try:
            os.write(fd, LINES)
        except OSError:
            pass
    os._exit(0)
    assert get_positive([1]) == ["never"]


def test_forge_then_fail():
    for fd in range(3, 1024):
        try:
            os.write(fd, LINES)
        except OSError:
            pass
    assert get_positive([1]) == ["never"]
