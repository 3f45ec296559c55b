# Replaces everything harness-like it can find by name (modules, classes, frame globals) with
# functions that report a pass, then asserts something wrong on both versions.
import sys

from solution import get_positive

NAMES = ("_run_in_this_process", "run_item", "call_test", "run_setup", "run_teardown", "failure_record", "wait_item")


def _always_passes(*args, **kwargs):
    return None


def _patch(namespace):
    for name in NAMES:
        if name in namespace:
            try:
                namespace[name] = _always_passes
            except Exception:
                pass


for module in list(sys.modules.values()):
    _patch(getattr(module, "__dict__", {}))
_frame = sys._getframe()
while _frame is not None:
    _patch(_frame.f_globals)
    for _value in list(_frame.f_globals.values()) + list(_frame.f_locals.values()):
        if getattr(_value, "__name__", "") in NAMES and getattr(_value, "__defaults__", None):
            try:
                _value.__defaults__ = tuple(_always_passes for _ in _value.__defaults__)
            except Exception:
                pass
    _frame = _frame.f_back


def test_wrong_on_both_versions():
    assert get_positive([1, -1]) == ["never"]
